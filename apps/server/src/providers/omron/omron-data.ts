import type {
  OmronBloodPressureReading,
  OmronCategory,
  OmronWeightReading,
} from '@trialpulse/shared/device-data/device-data.schemas';
import type { ReadingInput, StoredReading } from '../../modules/sync/readings.service';
import type { SourceReading } from '../../modules/sync/sources/types';
import type {
  OmronBloodPressure,
  OmronClient,
  OmronMeasurements,
  OmronWeight,
} from './omron.client';
import { formatOffset, instantText, localText, parseOffset, utcInstant } from '../time-text';

/**
 * Omron readings: how provider records become stored readings (metric keys systolic,
 * diastolic, pulse, weight in kg, body_fat and bmi; `omronReadings`, which the sync's
 * `omronSource` writes with) and how
 * stored readings become the Omron answer. The live answer goes through the same two steps,
 * so stored and live answers cannot differ in shape.
 */

type Owner = { participantId: number; teamId: number };

/** Metric keys of a category; the first is the one whose sync coverage decides. */
export const OMRON_METRICS: Record<OmronCategory, readonly string[]> = {
  bloodpressure: ['systolic', 'diastolic', 'pulse'],
  weight: ['weight'],
};

/** An Omron record as the conversion reads it (the client's types, or the sync's lenient reading of the answer). */
type OmronRecordLike = {
  dateTime: string;
  dateTimeUtcOffset?: string | null;
  deviceType?: string | null;
};
export type OmronBloodPressureLike = OmronRecordLike & {
  systolic?: number | null;
  diastolic?: number | null;
  pulse?: number | null;
  possibleAfib?: boolean | null;
};
export type OmronWeightLike = OmronRecordLike & {
  weight?: number | null;
  bodyFatPercentage?: number | null;
  bmi?: number | null;
};

/**
 * Provider records → readings without their owner: the one conversion of the sync
 * (`omronSource`) and of the live answer (`omronReadingsOf`). Blood pressure gives systolic
 * (value_json {possibleAfib} when the monitor says), diastolic and pulse; weight gives weight
 * (kg), body_fat and bmi; a field Omron left out gives no reading.
 */
export function omronReadings(measurements: {
  bloodPressure?: readonly OmronBloodPressureLike[];
  weight?: readonly OmronWeightLike[];
}): SourceReading[] {
  const rows: SourceReading[] = [];
  const add = (
    record: OmronRecordLike,
    metricKey: string,
    value: number | null | undefined,
    valueJson?: unknown,
  ) => {
    if (value === null || value === undefined || !Number.isFinite(value)) return;
    rows.push({
      metricKey,
      recordedAt: utcInstant(record.dateTime),
      utcOffsetMinutes: parseOffset(record.dateTimeUtcOffset),
      value,
      ...(valueJson !== undefined && { valueJson }),
      dataSource: record.deviceType ?? null,
    });
  };
  for (const record of measurements.bloodPressure ?? []) {
    const afib =
      typeof record.possibleAfib === 'boolean' ? { possibleAfib: record.possibleAfib } : undefined;
    add(record, 'systolic', record.systolic, afib);
    add(record, 'diastolic', record.diastolic);
    add(record, 'pulse', record.pulse);
  }
  for (const record of measurements.weight ?? []) {
    add(record, 'weight', record.weight);
    add(record, 'body_fat', record.bodyFatPercentage);
    add(record, 'bmi', record.bmi);
  }
  return rows;
}

/** Provider records → readings of a participant (the live answer's path). */
export function omronReadingsOf(
  owner: Owner,
  measurements: Pick<OmronMeasurements, 'bloodPressure' | 'weight'>,
): ReadingInput[] {
  return omronReadings(measurements).map((reading) => ({
    ...owner,
    brand: 'Omron' as const,
    upstream: 'omron' as const,
    ...reading,
  }));
}

type ReadingLike =
  | Pick<StoredReading, 'metricKey' | 'recordedAt' | 'utcOffsetMinutes' | 'value' | 'dataSource'>
  | ReadingInput;

const times = (reading: ReadingLike) => ({
  dateTime: instantText(reading.recordedAt),
  dateTimeLocal: localText(reading.recordedAt, reading.utcOffsetMinutes ?? 0),
  dateTimeUtcOffset: formatOffset(reading.utcOffsetMinutes ?? 0),
});

/** Blood pressure readings, one per instant, in the order their first row comes. */
export function presentBloodPressure(
  readings: readonly ReadingLike[],
): OmronBloodPressureReading[] {
  const byInstant = new Map<number, OmronBloodPressureReading>();
  for (const reading of readings) {
    if (reading.value === null || reading.value === undefined) continue;
    const key = reading.recordedAt.getTime();
    const entry =
      byInstant.get(key) ??
      ({
        ...times(reading),
        systolic: Number.NaN,
        diastolic: Number.NaN,
        pulse: null,
        deviceType: reading.dataSource ?? null,
      } as OmronBloodPressureReading);
    if (reading.metricKey === 'systolic') entry.systolic = reading.value;
    else if (reading.metricKey === 'diastolic') entry.diastolic = reading.value;
    else if (reading.metricKey === 'pulse') entry.pulse = reading.value;
    byInstant.set(key, entry);
  }
  return [...byInstant.values()].filter(
    (entry) => Number.isFinite(entry.systolic) && Number.isFinite(entry.diastolic),
  );
}

export function presentWeight(readings: readonly ReadingLike[]): OmronWeightReading[] {
  return readings
    .filter(
      (reading) =>
        reading.metricKey === 'weight' && reading.value !== null && reading.value !== undefined,
    )
    .map((reading) => ({
      ...times(reading),
      weight: reading.value as number,
      deviceType: reading.dataSource ?? null,
    }));
}

/**
 * Omron's own selection applied to stored readings: local date on or after `since`,
 * ordered by instant, at most `limit` (0 = all).
 */
export function selectLikeOmron<T extends { dateTime: string; dateTimeLocal: string }>(
  entries: readonly T[],
  query: { since: string; sortOrder: 'asc' | 'desc'; limit: number },
): T[] {
  const kept = entries
    .filter((entry) => entry.dateTimeLocal.slice(0, 10) >= query.since)
    .sort((a, b) => a.dateTime.localeCompare(b.dateTime));
  if (query.sortOrder === 'desc') kept.reverse();
  return query.limit > 0 ? kept.slice(0, query.limit) : kept;
}

/** Every page of one Omron query (following `nextPaginationKey`) until `limit` records (0 = all). */
export async function fetchOmron(
  client: OmronClient,
  accessToken: string,
  query: { category: OmronCategory; since: string; sortOrder: 'asc' | 'desc'; limit: number },
): Promise<Pick<OmronMeasurements, 'bloodPressure' | 'weight'>> {
  const bloodPressure: OmronBloodPressure[] = [];
  const weight: OmronWeight[] = [];
  let paginationKey: string | undefined;
  for (;;) {
    const wanted = query.limit > 0 ? query.limit - bloodPressure.length - weight.length : undefined;
    const page = await client.getMeasurements(accessToken, {
      type: query.category,
      since: query.since,
      sortOrder: query.sortOrder,
      ...(wanted !== undefined && { limit: wanted }),
      ...(paginationKey && { paginationKey }),
    });
    bloodPressure.push(...page.bloodPressure);
    weight.push(...page.weight);
    const have = bloodPressure.length + weight.length;
    if (!page.truncated || !page.nextPaginationKey || (query.limit > 0 && have >= query.limit))
      break;
    paginationKey = page.nextPaginationKey;
  }
  return { bloodPressure, weight };
}
