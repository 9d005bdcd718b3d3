import {
  CGM_READINGS_PER_DAY,
  type CompletenessRow,
  type CompletenessThresholds,
  type DayState,
  type HealthWarning,
} from '@trialpulse/shared';
import { civilDayAt, participantToday } from '@trialpulse/shared/civil-days';
import type { DeviceBrandName } from '@trialpulse/shared';
import { BRAND_COMPLETENESS, type BrandCompleteness } from '../../providers';
import type { ConnectionHealthRow } from '../devices/device-connections.service';
import type { DailySummary } from '../sync/readings.service';

const DAY_MS = 86_400_000;

/** The civil dates from `count - 1` days before `lastDay` up to it, oldest first (YYYY-MM-DD). */
export function dayRange(lastDay: string, count: number): string[] {
  const last = Date.parse(`${lastDay}T00:00:00Z`);
  return Array.from({ length: count }, (_, index) =>
    isoDay(new Date(last - (count - 1 - index) * DAY_MS)),
  );
}

export const isoDay = (at: Date) => at.toISOString().slice(0, 10);

/** CGM sensor usage in % (readings ÷ 288), at most 100, one decimal. */
export const cgmUsagePercent = (readings: number) =>
  Math.min(100, Math.round((readings / CGM_READINGS_PER_DAY) * 1000) / 10);

type Participant = { id: number; code: string };

/**
 * The metrics whose first day with readings starts a brand's expectation (decision 0181),
 * as each brand's completeness rule declares them (`BRAND_COMPLETENESS`, the registry; every
 * brand has one, which `providers/index.test.ts` checks).
 */
export const FIRST_DATA_METRICS = Object.fromEntries(
  BRAND_COMPLETENESS.map((rule) => [rule.brand, rule.firstDataMetrics]),
) as Record<DeviceBrandName, readonly string[]>;

/**
 * Where a participant's days are (decision 0180): their current UTC offset (null: UTC),
 * which decides their today and the local date of a connection, and per brand the first
 * local day with readings of it (decision 0181).
 */
export type ParticipantDays = {
  offsetMinutes: number | null;
  firstDataDay: Partial<Record<DeviceBrandName, string>>;
};

const UTC_DAYS: ParticipantDays = { offsetMinutes: null, firstDataDay: {} };

/**
 * One participant's grid row (decision 0050): each day's measures and state against the
 * thresholds, the valid-day summary and the sync-health warnings of the connections.
 *
 * A day expects data from a brand from the participant's first link of it: the earliest of
 * their connections' local dates and the first local day with readings of the brand (a
 * re-link or a demo restart does not move it; decision 0181), or when the day holds data of
 * it. Each brand's check is its completeness rule (`BRAND_COMPLETENESS` in the provider
 * registry: wear hours, CGM sensor usage, blood-pressure readings per day).
 * A day is `valid` when every expected brand's check passes, `partial` when it has data but
 * fails one, `missing` without any data, and `none` when nothing is expected (no link yet).
 * An expected day of the wear-measuring brand without a worn minute shows no steps (its 0
 * is the device's silence, not a count). The participant's today
 * (their local date, decision 0180) is `in_progress` instead of `partial` or `missing`: a
 * day under way has not had its chance to pass, so it neither counts as expected nor flags
 * the participant (decision 0111).
 */
export function buildRow(
  participant: Participant,
  days: readonly string[],
  summaries: readonly DailySummary[],
  connections: readonly ConnectionHealthRow[],
  thresholds: CompletenessThresholds,
  now: Date,
  local: ParticipantDays = UTC_DAYS,
): CompletenessRow {
  const byDay = new Map(summaries.map((summary) => [summary.day, summary]));
  const connectedFrom = (brand: DeviceBrandName) =>
    connections
      .filter((connection) => connection.brand === brand)
      .reduce<string | null>((first, connection) => {
        const day = civilDayAt(connection.connectedAt, local.offsetMinutes);
        return first === null || day < first ? day : first;
      }, local.firstDataDay[brand] ?? null);
  const fromOf = new Map(BRAND_COMPLETENESS.map((rule) => [rule.brand, connectedFrom(rule.brand)]));
  const expects = (rule: BrandCompleteness | undefined, day: string, hasData: boolean) => {
    const from = rule ? (fromOf.get(rule.brand) ?? null) : null;
    return hasData || (from !== null && from <= day);
  };
  const measuredBy = (measure: BrandCompleteness['measure']) =>
    BRAND_COMPLETENESS.find((rule) => rule.measure === measure);
  const today = participantToday(now, local.offsetMinutes);

  const row: CompletenessRow = {
    participantId: participant.id,
    participantCode: participant.code,
    states: [],
    wearMinutes: [],
    steps: [],
    sleepMinutes: [],
    bpReadings: [],
    weightReadings: [],
    cgmReadings: [],
    cgmUsagePercent: [],
    expectedDays: 0,
    validDays: 0,
    validPercent: null,
    connections: [],
    warnings: [],
    belowThreshold: false,
  };

  for (const day of days) {
    const summary = byDay.get(day);
    const wear = summary?.wearMinutes ?? 0;
    const cgm = summary?.cgmReadings ?? 0;
    const bp = summary?.bpReadings ?? 0;
    const anyData = Boolean(
      summary &&
      (wear > 0 ||
        cgm > 0 ||
        bp > 0 ||
        summary.weightReadings > 0 ||
        (summary.steps ?? 0) > 0 ||
        summary.sleepMinutes !== null),
    );
    const measures = {
      wearMinutes: wear,
      cgmUsagePercent: cgmUsagePercent(cgm),
      bpReadings: bp,
      weightReadings: summary?.weightReadings ?? 0,
    };
    const checks: boolean[] = [];
    for (const rule of BRAND_COMPLETENESS) {
      const check = rule.day(measures, thresholds);
      if (expects(rule, day, check.hasData)) checks.push(check.passes);
    }
    let state: DayState;
    if (checks.length === 0) state = anyData ? 'valid' : 'none';
    else if (checks.every(Boolean)) state = 'valid';
    else state = anyData ? 'partial' : 'missing';
    if (day >= today && (state === 'partial' || state === 'missing')) state = 'in_progress';

    row.states.push(state);
    row.wearMinutes.push(wear);
    // Not worn: a tracker's 0 steps say nothing was measured, so no count is shown.
    const notWorn = wear === 0 && expects(measuredBy('wear'), day, false) && summary?.steps === 0;
    row.steps.push(notWorn ? null : (summary?.steps ?? null));
    row.sleepMinutes.push(summary?.sleepMinutes ?? null);
    row.bpReadings.push(bp);
    row.weightReadings.push(summary?.weightReadings ?? 0);
    row.cgmReadings.push(cgm);
    row.cgmUsagePercent.push(
      expects(measuredBy('cgm'), day, cgm > 0) ? cgmUsagePercent(cgm) : null,
    );
    if (state !== 'none' && state !== 'in_progress') row.expectedDays += 1;
    if (state === 'valid') row.validDays += 1;
  }
  row.validPercent =
    row.expectedDays > 0 ? Math.round((row.validDays / row.expectedDays) * 1000) / 10 : null;

  row.connections = connections.map((connection) => ({
    brand: connection.brand,
    status: connection.status,
    needsReconsent: connection.needsReconsent,
    battery: connection.battery,
    batteryLevel: connection.batteryLevel,
    lastSyncAt: connection.lastSyncAt?.toISOString() ?? null,
    daysSinceSync: connection.lastSyncAt
      ? Math.max(0, Math.floor((now.getTime() - connection.lastSyncAt.getTime()) / DAY_MS))
      : null,
  }));
  row.warnings = warningsOf(connections, thresholds, now);
  row.belowThreshold =
    row.warnings.length > 0 ||
    row.states.some((state) => state === 'partial' || state === 'missing');
  return row;
}

/**
 * Sync-health warnings (the warning colour): a connection needs re-consent, its device's
 * battery is empty or low, or an authorised connection has not synced for more than the
 * trial's maximum days (never synced counts from when it was connected).
 */
export function warningsOf(
  connections: readonly ConnectionHealthRow[],
  thresholds: CompletenessThresholds,
  now: Date,
): HealthWarning[] {
  const warnings = new Set<HealthWarning>();
  const limitMs = thresholds.maxDaysWithoutSync * DAY_MS;
  for (const connection of connections) {
    if (connection.needsReconsent) warnings.add('needs_reconsent');
    if (connection.battery === 'Empty' || connection.batteryLevel === 0)
      warnings.add('battery_empty');
    else if (connection.battery === 'Low') warnings.add('battery_low');
    if (connection.status === 'authorized') {
      const since = connection.lastSyncAt ?? connection.connectedAt;
      if (now.getTime() - since.getTime() > limitMs) warnings.add('no_recent_sync');
    }
  }
  return [...warnings];
}

/** Worst first: lowest share of valid days, then most warnings, then by code. */
export function worstFirst(a: CompletenessRow, b: CompletenessRow): number {
  const share = (row: CompletenessRow) => row.validPercent ?? 101;
  return (
    share(a) - share(b) ||
    b.warnings.length - a.warnings.length ||
    a.participantCode.localeCompare(b.participantCode)
  );
}
