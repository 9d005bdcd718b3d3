import {
  addDays,
  dateOfDayNumber,
  dayNumberOf,
  localDateOf,
  localDayUtcRange,
} from '../common/civil-time';
import { decodePageToken, encodePageToken } from '../common/page-token';
import { dayNumberOfId } from '../common/wearable-model';
import type { DataTypeSpec } from './catalog';
import { googleErrors, type GoogleErrorBody } from './errors';
import { filterEnvelope, matchesFilter, parseFilter } from './filters';
import { type GeneratedPoint, type PointContext, pointsForDay } from './points';

/**
 * dataPoints.list / reconcile / get. Points are generated day by day from the newest day in
 * the filter's range backwards until the page is full; the page token is the start time of
 * the last returned point. A full page always carries a token, so the last page may be `{}`
 * (facts §3: clients must accept that).
 */

export interface ListQuery {
  filter?: string;
  pageSize?: string;
  pageToken?: string;
  dataSourceFamily?: string;
}

export type ListMode = 'list' | 'reconcile';

export function listDataPoints(
  spec: DataTypeSpec,
  ctx: PointContext,
  query: ListQuery,
  mode: ListMode,
  userId: string,
): { body: Record<string, unknown> } | { error: GoogleErrorBody } {
  const parsedFilter = parseFilter(query.filter, spec);
  if ('error' in parsedFilter) return parsedFilter;
  const pageSize = parsePageSize(query.pageSize, spec.defaultPageSize, spec.maxPageSize);
  if (typeof pageSize !== 'number') return pageSize;
  const family = parseFamily(query.dataSourceFamily, spec, mode);
  if (typeof family !== 'string') return family;

  const fingerprint = JSON.stringify([spec.id, mode, query.filter ?? '', family, userId]);
  let cursor = Number.POSITIVE_INFINITY;
  if (query.pageToken) {
    const decoded = decodePageToken(query.pageToken, fingerprint);
    if (typeof decoded !== 'number') return { error: googleErrors.invalidPageToken() };
    cursor = decoded;
  }
  // App-written data would live in self-sources; the simulator has none.
  if (family === 'self-sources') return { body: {} };

  const { filter } = parsedFilter;
  const envelope = filterEnvelope(filter);
  const tz = ctx.account.timeZone;
  const newest = Math.min(
    ctx.nowMs,
    envelope.to,
    cursor === Number.POSITIVE_INFINITY ? cursor : cursor + 2 * 86_400_000,
  );
  const firstDay = dayNumberOf(localDateOf(tz, newest)) + 1;
  const memberDay = dayNumberOf(ctx.account.memberSince);
  const lastDay = Math.max(
    memberDay,
    Number.isFinite(envelope.from) ? dayNumberOf(localDateOf(tz, envelope.from)) - 1 : memberDay,
  );

  const page: GeneratedPoint[] = [];
  let pending: GeneratedPoint[] = [];
  let full = false;
  for (let day = firstDay; day >= lastDay && !full; day--) {
    const date = dateOfDayNumber(day);
    for (const point of pointsForDay(spec, ctx, date)) {
      if (point.sortMs < cursor && matchesFilter(filter, point)) pending.push(point);
    }
    // Points of earlier days all start before this day, so these are final.
    const [dayStart] = localDayUtcRange(tz, date);
    const ready = pending
      .filter((point) => point.sortMs >= dayStart)
      .sort((a, b) => b.sortMs - a.sortMs);
    pending = pending.filter((point) => point.sortMs < dayStart);
    full = take(page, ready, pageSize);
  }
  if (!full)
    take(
      page,
      pending.sort((a, b) => b.sortMs - a.sortMs),
      pageSize,
    );

  if (page.length === 0) return { body: {} };
  const last = page[page.length - 1];
  const body: Record<string, unknown> = {
    dataPoints: page.map((point) => renderPoint(spec, point, mode, userId)),
  };
  if (page.length === pageSize && last)
    body.nextPageToken = encodePageToken(last.sortMs, fingerprint);
  return { body };
}

/** dataPoints.get: the id encodes its day, so only that day (and the next, for sleep) is built. */
export function getDataPoint(
  spec: DataTypeSpec,
  ctx: PointContext,
  id: string,
  userId: string,
): { body: Record<string, unknown> } | { error: GoogleErrorBody } {
  const dayNumber = dayNumberOfId(id);
  if (dayNumber === null) return { error: googleErrors.notFound() };
  const date = dateOfDayNumber(dayNumber);
  for (const candidate of [date, addDays(date, 1)]) {
    const point = pointsForDay(spec, ctx, candidate).find((p) => p.id === id);
    if (point) return { body: renderPoint(spec, point, 'list', userId) };
  }
  return { error: googleErrors.notFound() };
}

export function renderPoint(
  spec: DataTypeSpec,
  point: GeneratedPoint,
  mode: ListMode,
  userId: string,
): Record<string, unknown> {
  const name = point.id ? `users/${userId}/dataTypes/${spec.id}/dataPoints/${point.id}` : undefined;
  if (mode === 'reconcile') {
    // Reconciled points carry dataPointName and no dataSource (facts §5).
    return { ...(name && { dataPointName: name }), [spec.jsonKey]: point.value() };
  }
  return { ...(name && { name }), dataSource: point.dataSource, [spec.jsonKey]: point.value() };
}

/** pageSize / page_size: default per type, larger values truncated to the maximum. */
export function parsePageSize(
  raw: string | undefined,
  defaultSize: number,
  maxSize: number,
): number | { error: GoogleErrorBody } {
  if (raw === undefined || raw === '') return defaultSize;
  if (!/^-?\d+$/.test(raw)) {
    return {
      error: googleErrors.invalidArgument(
        `Invalid value at 'page_size' (TYPE_INT32), "${raw}"`,
        undefined,
        undefined,
        'page_size',
      ),
    };
  }
  const size = Number(raw);
  if (size < 0)
    return {
      error: googleErrors.invalidArgument(
        'page_size must not be negative.',
        undefined,
        undefined,
        'page_size',
      ),
    };
  if (size === 0) return defaultSize;
  return Math.min(size, maxSize);
}

const FAMILIES = ['all-sources', 'google-wearables', 'google-sources', 'self-sources'];

/** dataSourceFamily: `users/{me|id}/dataSourceFamilies/{family}`; list on sleep rejects it. */
export function parseFamily(
  raw: string | undefined,
  spec: DataTypeSpec,
  mode: ListMode | 'rollup',
): string | { error: GoogleErrorBody } {
  if (raw === undefined || raw === '') return 'all-sources';
  if (mode === 'list' && spec.id === 'sleep') return { error: googleErrors.unsupportedFamily() };
  const match = /^users\/[^/]+\/dataSourceFamilies\/([a-z-]+)$/.exec(raw);
  const family = match?.[1];
  if (!family || !FAMILIES.includes(family)) return { error: googleErrors.unsupportedFamily() };
  return family;
}

function take(page: GeneratedPoint[], ready: GeneratedPoint[], pageSize: number): boolean {
  for (const point of ready) {
    if (page.length >= pageSize) return true;
    page.push(point);
  }
  return page.length >= pageSize;
}
