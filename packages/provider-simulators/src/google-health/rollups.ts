import {
  DAY_MS,
  dateOfDayNumber,
  dayNumberOf,
  isValidDate,
  localDateOf,
} from '../common/civil-time';
import { decodePageToken, encodePageToken } from '../common/page-token';
import { FLOOR_HEIGHT_MM } from '../common/wearable-model';
import type { DataTypeSpec } from './catalog';
import { googleErrors, type GoogleErrorBody } from './errors';
import { civilDateTime, duration, int64, timestamp } from './json';
import { parseFamily, parsePageSize } from './list';
import { type PointContext, forEachWornMinute } from './points';

/**
 * dataPoints.rollUp (physical UTC windows) and dailyRollUp (local civil days). Both aggregate
 * "atoms" (worn minutes, heart-rate samples, weigh-ins, logs) of the generated days. A window
 * without any atom (tracker not worn) is left out; a worn window with nothing in it is kept
 * with zero fields omitted, e.g. `"steps": {}` (facts §5 true zeros, proto3 JSON).
 * Windows come newest first, like list.
 */

export function rollUp(
  spec: DataTypeSpec,
  ctx: PointContext,
  body: unknown,
  userId: string,
): { body: Record<string, unknown> } | { error: GoogleErrorBody } {
  const request = asObject(body);
  if ('error' in request) return request;
  const unknown = unknownField(request.value, [
    'range',
    'windowSize',
    'pageSize',
    'pageToken',
    'dataSourceFamily',
  ]);
  if (unknown) return { error: unknown };
  const range = asObject(request.value.range, 'range');
  if ('error' in range) return range;
  const start = parseTimestamp(range.value.startTime, 'range.start_time');
  if (typeof start !== 'number') return start;
  const end = parseTimestamp(range.value.endTime, 'range.end_time');
  if (typeof end !== 'number') return end;
  if (start >= end) {
    return {
      error: googleErrors.invalidArgument(
        'Range start time must be before end time.',
        'INVALID_TIME_RANGE',
        undefined,
        'range',
      ),
    };
  }
  if (end - start > spec.rollupRangeDays * DAY_MS) return { error: durationError(spec) };
  const windowSeconds = parseDuration(request.value.windowSize);
  if (windowSeconds === undefined || windowSeconds < 1) {
    return {
      error: googleErrors.invalidArgument(
        'window_size must be a duration of at least 1s, e.g. "3600s".',
        'INVALID_ROLLUP_WINDOW_SIZE',
        undefined,
        'window_size',
      ),
    };
  }
  const common = pagingAndFamily(spec, request.value);
  if ('error' in common) return common;

  const windowMs = windowSeconds * 1000;
  const aggregator = AGGREGATORS[spec.id];
  const windows = new Map<number, Accumulator>();
  if (aggregator && spec.generated && common.family !== 'self-sources') {
    const tz = ctx.account.timeZone;
    const firstDay = dayNumberOf(localDateOf(tz, start));
    const lastDay = dayNumberOf(localDateOf(tz, Math.min(end, ctx.nowMs)));
    for (let day = firstDay; day <= lastDay; day++) {
      aggregator.atoms(ctx, dateOfDayNumber(day), (utc, atom) => {
        if (utc < start || utc >= end) return;
        const index = Math.floor((utc - start) / windowMs);
        let acc = windows.get(index);
        if (!acc) windows.set(index, (acc = aggregator.create()));
        aggregator.add(acc, atom);
      });
    }
  }
  const fingerprint = JSON.stringify([
    'rollUp',
    spec.id,
    start,
    end,
    windowSeconds,
    common.family,
    userId,
  ]);
  return pageOfWindows(
    windows,
    common.pageSize,
    request.value.pageToken,
    fingerprint,
    (index, acc) => ({
      startTime: timestamp(start + index * windowMs),
      endTime: timestamp(Math.min(end, start + (index + 1) * windowMs)),
      [spec.jsonKey]: aggregator?.render(acc) ?? {},
    }),
  );
}

export function dailyRollUp(
  spec: DataTypeSpec,
  ctx: PointContext,
  body: unknown,
  userId: string,
): { body: Record<string, unknown> } | { error: GoogleErrorBody } {
  const request = asObject(body);
  if ('error' in request) return request;
  const unknown = unknownField(request.value, [
    'range',
    'windowSizeDays',
    'pageSize',
    'pageToken',
    'dataSourceFamily',
  ]);
  if (unknown) return { error: unknown };
  const range = asObject(request.value.range, 'range');
  if ('error' in range) return range;
  const startDate = parseCivilDate(range.value.start, 'range.start');
  if (typeof startDate !== 'string') return startDate;
  const endDate = parseCivilDate(range.value.end, 'range.end');
  if (typeof endDate !== 'string') return endDate;
  const startDay = dayNumberOf(startDate);
  const endDay = dayNumberOf(endDate);
  if (startDay >= endDay) {
    return {
      error: googleErrors.invalidArgument(
        'Range start must be before range end.',
        'INVALID_TIME_RANGE',
        undefined,
        'range',
      ),
    };
  }
  if (endDay - startDay > spec.rollupRangeDays) return { error: durationError(spec) };
  const rawWindow = request.value.windowSizeDays;
  const windowDays = rawWindow === undefined ? 1 : Number(rawWindow);
  if (!Number.isInteger(windowDays) || windowDays < 1) {
    return {
      error: googleErrors.invalidArgument(
        'window_size_days must be a positive integer.',
        undefined,
        undefined,
        'window_size_days',
      ),
    };
  }
  const common = pagingAndFamily(spec, request.value);
  if ('error' in common) return common;

  const aggregator = AGGREGATORS[spec.id];
  const windows = new Map<number, Accumulator>();
  if (aggregator && spec.generated && common.family !== 'self-sources') {
    for (let day = startDay; day < endDay; day++) {
      const index = Math.floor((day - startDay) / windowDays);
      aggregator.atoms(ctx, dateOfDayNumber(day), (_utc, atom) => {
        let acc = windows.get(index);
        if (!acc) windows.set(index, (acc = aggregator.create()));
        aggregator.add(acc, atom);
      });
    }
  }
  const fingerprint = JSON.stringify([
    'dailyRollUp',
    spec.id,
    startDate,
    endDate,
    windowDays,
    common.family,
    userId,
  ]);
  return pageOfWindows(
    windows,
    common.pageSize,
    request.value.pageToken,
    fingerprint,
    (index, acc) => ({
      civilStartTime: civilDateTime((startDay + index * windowDays) * DAY_MS),
      civilEndTime: civilDateTime(Math.min(endDay, startDay + (index + 1) * windowDays) * DAY_MS),
      [spec.jsonKey]: aggregator?.render(acc) ?? {},
    }),
  );
}

// ---------------------------------------------------------------------------------------------

type Accumulator = Record<string, number> & { extra?: Map<string, number> };
type Atom = Record<string, number>;

interface Aggregator {
  atoms(ctx: PointContext, date: string, emit: (utc: number, atom: Atom) => void): void;
  create(): Accumulator;
  add(acc: Accumulator, atom: Atom): void;
  render(acc: Accumulator): Record<string, unknown>;
}

/** Sum one per-minute series value over worn minutes. */
function minuteSum(
  read: (ctx: PointContext, date: string, minute: number) => number,
  render: (sum: number) => Record<string, unknown>,
): Aggregator {
  return {
    atoms: (ctx, date, emit) =>
      forEachWornMinute(ctx, date, (m, utc) => emit(utc, { value: read(ctx, date, m) })),
    create: () => ({ sum: 0 }),
    add: (acc, atom) => {
      acc.sum = (acc.sum ?? 0) + (atom.value ?? 0);
    },
    render: (acc) => render(acc.sum ?? 0),
  };
}

/** Sum of int64 fields, omitted when zero. */
function int64Field(name: string) {
  return (sum: number) => (sum ? { [name]: int64(sum) } : {});
}

function average(
  atomsOf: (ctx: PointContext, date: string) => Array<{ utc: number; value: number }>,
  field: string,
): Aggregator {
  return {
    atoms: (ctx, date, emit) =>
      atomsOf(ctx, date).forEach((atom) => emit(atom.utc, { value: atom.value })),
    create: () => ({ sum: 0, count: 0 }),
    add: (acc, atom) => {
      acc.sum = (acc.sum ?? 0) + (atom.value ?? 0);
      acc.count = (acc.count ?? 0) + 1;
    },
    render: (acc) => ({ [field]: Math.round(((acc.sum ?? 0) / (acc.count || 1)) * 100) / 100 }),
  };
}

const LEVEL_NAMES = ['SEDENTARY', 'LIGHTLY_ACTIVE', 'MODERATELY_ACTIVE', 'VERY_ACTIVE'];

const AGGREGATORS: Record<string, Aggregator> = {
  steps: minuteSum((ctx, date, m) => ctx.model.day(date).steps[m] ?? 0, int64Field('countSum')),
  distance: minuteSum(
    (ctx, date, m) => ctx.model.day(date).distanceMm[m] ?? 0,
    int64Field('millimetersSum'),
  ),
  floors: minuteSum((ctx, date, m) => ctx.model.day(date).floors[m] ?? 0, int64Field('countSum')),
  altitude: minuteSum(
    (ctx, date, m) => (ctx.model.day(date).floors[m] ?? 0) * FLOOR_HEIGHT_MM,
    int64Field('gainMillimetersSum'),
  ),
  'total-calories': minuteSum(
    (ctx, date, m) => ctx.model.day(date).kcal[m] ?? 0,
    (sum) => (sum ? { kcalSum: Math.round(sum * 100) / 100 } : {}),
  ),
  'active-zone-minutes': {
    atoms: (ctx, date, emit) =>
      forEachWornMinute(ctx, date, (m, utc) =>
        emit(utc, { zone: ctx.model.day(date).azmZone[m] ?? 0 }),
      ),
    create: () => ({ fat: 0, cardio: 0, peak: 0 }),
    add: (acc, atom) => {
      if (atom.zone === 1) acc.fat = (acc.fat ?? 0) + 1;
      if (atom.zone === 2) acc.cardio = (acc.cardio ?? 0) + 2;
      if (atom.zone === 3) acc.peak = (acc.peak ?? 0) + 2;
    },
    render: (acc) => ({
      ...int64Field('sumInFatBurnHeartZone')(acc.fat ?? 0),
      ...int64Field('sumInCardioHeartZone')(acc.cardio ?? 0),
      ...int64Field('sumInPeakHeartZone')(acc.peak ?? 0),
    }),
  },
  'activity-level': {
    atoms: (ctx, date, emit) =>
      forEachWornMinute(ctx, date, (m, utc) => {
        const series = ctx.model.day(date);
        if (!series.stage[m]) emit(utc, { level: series.level[m] ?? 0 });
      }),
    create: () => ({ l0: 0, l1: 0, l2: 0, l3: 0 }),
    add: (acc, atom) => {
      const key = `l${atom.level ?? 0}`;
      acc[key] = (acc[key] ?? 0) + 60;
    },
    render: (acc) => ({
      activityLevelRollupsByActivityLevelType: LEVEL_NAMES.flatMap((name, index) =>
        acc[`l${index}`]
          ? [{ activityLevelType: name, totalDuration: duration(acc[`l${index}`] ?? 0) }]
          : [],
      ),
    }),
  },
  'heart-rate': {
    atoms: (ctx, date, emit) =>
      forEachWornMinute(ctx, date, (m) => {
        for (const sample of ctx.model.heartRateSamples(date, m))
          emit(sample.utc, { bpm: sample.bpm });
      }),
    create: () => ({ sum: 0, count: 0, min: Number.POSITIVE_INFINITY, max: 0 }),
    add: (acc, atom) => {
      const bpm = atom.bpm ?? 0;
      acc.sum = (acc.sum ?? 0) + bpm;
      acc.count = (acc.count ?? 0) + 1;
      acc.min = Math.min(acc.min ?? bpm, bpm);
      acc.max = Math.max(acc.max ?? bpm, bpm);
    },
    render: (acc) => ({
      beatsPerMinuteAvg: Math.round(((acc.sum ?? 0) / (acc.count || 1)) * 100) / 100,
      beatsPerMinuteMin: acc.min ?? 0,
      beatsPerMinuteMax: acc.max ?? 0,
    }),
  },
  weight: average((ctx, date) => {
    const weighIn = ctx.model.weighIn(date);
    return weighIn && weighIn.utc <= ctx.nowMs
      ? [{ utc: weighIn.utc, value: Math.round(weighIn.weightKg * 1000) }]
      : [];
  }, 'weightGramsAvg'),
  'body-fat': average((ctx, date) => {
    const weighIn = ctx.model.weighIn(date);
    return weighIn && weighIn.bodyFatPercent !== null && weighIn.utc <= ctx.nowMs
      ? [{ utc: weighIn.utc, value: weighIn.bodyFatPercent }]
      : [];
  }, 'bodyFatPercentageAvg'),
  'hydration-log': {
    atoms: (ctx, date, emit) =>
      ctx.model
        .water(date)
        .filter((log) => log.utc <= ctx.nowMs)
        .forEach((log) => emit(log.utc, { ml: log.milliliters })),
    create: () => ({ ml: 0 }),
    add: (acc, atom) => {
      acc.ml = (acc.ml ?? 0) + (atom.ml ?? 0);
    },
    render: (acc) => ({
      amountConsumed: { millilitersSum: acc.ml ?? 0, userProvidedUnitLast: 'MILLILITER' },
    }),
  },
  'nutrition-log': {
    atoms: (ctx, date, emit) =>
      ctx.model
        .foods(date)
        .filter((log) => log.utc <= ctx.nowMs)
        .forEach((log) =>
          emit(log.utc, {
            kcal: log.food.calories,
            fatKcal: log.food.fat * 9,
            carbs: log.food.carbs,
            fat: log.food.fat,
            protein: log.food.protein,
            fiber: log.food.fiber,
            sodium: log.food.sodium / 1000,
          }),
        ),
    create: () => ({ kcal: 0, fatKcal: 0, carbs: 0, fat: 0, protein: 0, fiber: 0, sodium: 0 }),
    add: (acc, atom) => {
      for (const key of Object.keys(atom)) acc[key] = (acc[key] ?? 0) + (atom[key] ?? 0);
    },
    render: (acc) => {
      const round = (value: number | undefined) => Math.round((value ?? 0) * 1000) / 1000;
      return {
        energy: { kcalSum: round(acc.kcal), userProvidedUnitLast: 'KILOCALORIE' },
        energyFromFat: { kcalSum: round(acc.fatKcal) },
        totalCarbohydrate: { gramsSum: round(acc.carbs) },
        totalFat: { gramsSum: round(acc.fat) },
        nutrients: [
          { nutrient: 'PROTEIN', quantity: { gramsSum: round(acc.protein) } },
          { nutrient: 'DIETARY_FIBER', quantity: { gramsSum: round(acc.fiber) } },
          { nutrient: 'SODIUM', quantity: { gramsSum: round(acc.sodium) } },
        ],
      };
    },
  },
};

/** Windows with data, newest first, one page at a time (token = next window index). */
function pageOfWindows(
  windows: Map<number, Accumulator>,
  pageSize: number,
  rawToken: unknown,
  fingerprint: string,
  render: (index: number, acc: Accumulator) => Record<string, unknown>,
): { body: Record<string, unknown> } | { error: GoogleErrorBody } {
  let cursor = Number.POSITIVE_INFINITY;
  if (typeof rawToken === 'string' && rawToken !== '') {
    const decoded = decodePageToken(rawToken, fingerprint);
    if (typeof decoded !== 'number') return { error: googleErrors.invalidPageToken() };
    cursor = decoded;
  }
  const indexes = [...windows.keys()].filter((index) => index < cursor).sort((a, b) => b - a);
  const page = indexes.slice(0, pageSize);
  if (page.length === 0) return { body: {} };
  const body: Record<string, unknown> = {
    rollupDataPoints: page.map((index) => render(index, windows.get(index) ?? {})),
  };
  const last = page[page.length - 1];
  if (indexes.length > pageSize && last !== undefined)
    body.nextPageToken = encodePageToken(last, fingerprint);
  return { body };
}

function pagingAndFamily(
  spec: DataTypeSpec,
  request: Record<string, unknown>,
): { pageSize: number; family: string } | { error: GoogleErrorBody } {
  const rawSize = request.pageSize;
  const pageSize = parsePageSize(rawSize === undefined ? undefined : String(rawSize), 1440, 10_000);
  if (typeof pageSize !== 'number') return pageSize;
  const family = parseFamily(
    typeof request.dataSourceFamily === 'string' ? request.dataSourceFamily : undefined,
    spec,
    'rollup',
  );
  if (typeof family !== 'string') return family;
  return { pageSize, family };
}

function durationError(spec: DataTypeSpec): GoogleErrorBody {
  return googleErrors.invalidArgument(
    `The rollup query duration exceeds the maximum of ${spec.rollupRangeDays} days for data type ${spec.id}.`,
    'INVALID_ROLLUP_QUERY_DURATION',
    undefined,
    'range',
  );
}

function asObject(
  value: unknown,
  field?: string,
): { value: Record<string, unknown> } | { error: GoogleErrorBody } {
  if (typeof value === 'object' && value !== null && !Array.isArray(value))
    return { value: value as Record<string, unknown> };
  return {
    error: googleErrors.invalidArgument(
      field ? `Missing required field: ${field}` : 'Request body must be a JSON object.',
      undefined,
      undefined,
      field,
    ),
  };
}

/** Google rejects unknown JSON fields ("Cannot find field"). */
function unknownField(
  object: Record<string, unknown>,
  allowed: string[],
): GoogleErrorBody | undefined {
  const extra = Object.keys(object).find((key) => !allowed.includes(key));
  return extra === undefined
    ? undefined
    : googleErrors.invalidArgument(
        `Invalid JSON payload received. Unknown name "${extra}": Cannot find field.`,
        undefined,
        undefined,
        extra,
      );
}

function parseTimestamp(value: unknown, field: string): number | { error: GoogleErrorBody } {
  if (
    typeof value === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i.test(value)
  ) {
    const ms = Date.parse(value);
    if (Number.isFinite(ms)) return ms;
  }
  return {
    error: googleErrors.invalidArgument(
      value === undefined
        ? `Missing required field: ${field}`
        : `Invalid value at '${field}' (type.googleapis.com/google.protobuf.Timestamp), ${JSON.stringify(value)}`,
      undefined,
      undefined,
      field,
    ),
  };
}

function parseDuration(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+)(\.\d{1,9})?s$/.exec(value);
  if (!match) return undefined;
  return Number(match[1]) + Number(match[2] ?? 0);
}

/** CivilDateTime `{date: {year, month, day}, time?}` → `YYYY-MM-DD`. */
function parseCivilDate(value: unknown, field: string): string | { error: GoogleErrorBody } {
  const object =
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  const date = object?.date as Record<string, unknown> | undefined;
  const parts = [date?.year, date?.month, date?.day];
  if (parts.every((part) => Number.isInteger(part))) {
    const [year, month, day] = parts as [number, number, number];
    const text = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
    if (isValidDate(text)) return text;
  }
  return {
    error: googleErrors.invalidArgument(
      value === undefined
        ? `Missing required field: ${field}`
        : `Invalid value at '${field}': a civil date {year, month, day} is required.`,
      undefined,
      undefined,
      field,
    ),
  };
}
