import type {
  DexcomDataResponse,
  DexcomEgvReading,
  DexcomEventReading,
  DexcomQuery,
  DexcomRecordType,
} from '@trialpulse/shared/device-data/device-data.schemas';
import type { ReadingInput, StoredReading } from '../../modules/sync/readings.service';
import type { SourceReading } from '../../modules/sync/sources/types';
import type { DexcomCalibration, DexcomClient, DexcomEgv, DexcomEvent } from './dexcom.client';
import { formatOffset, instantText, parseOffset, utcInstant } from '../time-text';

/**
 * Dexcom readings: provider records → stored readings (metric keys egv, egv_trend_rate,
 * calibration, events; `dexcomReadings`, which the sync's `dexcomSource` writes with) → the
 * Dexcom answer.
 * The live answer goes through the same steps, so stored and live answers are alike.
 *
 * - egv: value mg/dL (null when Dexcom sent none), value_json {trend, status,
 *   generation, displayDevice}, data_source the transmitter id (else the display device);
 * - egv_trend_rate: mg/dL/min, only when Dexcom sent one;
 * - calibration: mg/dL;
 * - events: value_json {events: [...]}: every event of one instant (the key holds one row
 *   per instant, and a meal and its insulin are often logged together).
 */

type Owner = { participantId: number; teamId: number };

/** The stored metric keys each record type needs (their sync coverage decides stored vs live). */
export const DEXCOM_METRICS: Record<DexcomRecordType, readonly string[]> = {
  egvs: ['egv', 'egv_trend_rate'],
  devices: ['egv'],
  events: ['events'],
  calibrations: ['calibration'],
};

type EgvJson = {
  trend: string | null;
  status: string | null;
  generation: string | null;
  displayDevice: string | null;
};
type EventJson = {
  events: Array<
    Pick<DexcomEventReading, 'eventType' | 'eventSubType' | 'value' | 'unit'> & {
      eventStatus: string | null;
    }
  >;
};

export type DexcomRecords = {
  egvs: DexcomEgv[];
  events: DexcomEvent[];
  calibrations: DexcomCalibration[];
};

/** A Dexcom reading without its owner: what the sync's source returns (the sync adds owner and provenance). */
export type DexcomReading = SourceReading;

/**
 * Provider records → readings: the one conversion of the sync (`dexcomSource`) and of the
 * live answer (`dexcomReadingsOf`), so a stored answer equals a live one.
 */
export function dexcomReadings(records: Partial<DexcomRecords>): DexcomReading[] {
  const base = (record: {
    systemTime: string;
    displayTime: string;
    transmitterId?: string | null;
    displayDevice?: string | null;
  }) => ({
    recordedAt: utcInstant(record.systemTime),
    // displayTime carries the phone's offset; a receiver's has none (null: unknown).
    utcOffsetMinutes: /[zZ]|[+-]\d\d:\d\d$/.test(record.displayTime)
      ? parseOffset(record.displayTime)
      : null,
    // Provenance: the transmitter, else the display device (a record without a transmitter id).
    dataSource: record.transmitterId ?? record.displayDevice ?? null,
  });
  const rows: DexcomReading[] = [];
  for (const egv of records.egvs ?? []) {
    const json: EgvJson = {
      trend: egv.trend ?? null,
      status: egv.status ?? null,
      generation: egv.transmitterGeneration ?? null,
      displayDevice: egv.displayDevice ?? null,
    };
    rows.push({ ...base(egv), metricKey: 'egv', value: egv.value, valueJson: json });
    if (egv.trendRate !== null && egv.trendRate !== undefined) {
      rows.push({ ...base(egv), metricKey: 'egv_trend_rate', value: egv.trendRate });
    }
  }
  for (const calibration of records.calibrations ?? []) {
    if (calibration.value === null) continue;
    rows.push({ ...base(calibration), metricKey: 'calibration', value: calibration.value });
  }
  const eventsAt = new Map<number, { row: DexcomReading; json: EventJson }>();
  for (const event of records.events ?? []) {
    const row = base(event);
    const key = row.recordedAt.getTime();
    const entry = eventsAt.get(key) ?? {
      row: { ...row, metricKey: 'events' },
      json: { events: [] },
    };
    entry.json.events.push({
      eventType: event.eventType,
      eventSubType: event.eventSubType ?? null,
      value: event.value ?? null,
      unit: event.unit ?? null,
      eventStatus: event.eventStatus ?? null,
    });
    eventsAt.set(key, entry);
  }
  for (const { row, json } of eventsAt.values()) rows.push({ ...row, valueJson: json });
  return rows;
}

/** Provider records → readings of a participant (the live answer's path). */
export function dexcomReadingsOf(owner: Owner, records: DexcomRecords): ReadingInput[] {
  return dexcomReadings(records).map((reading) => ({
    ...owner,
    brand: 'Dexcom' as const,
    upstream: 'dexcom' as const,
    ...reading,
  }));
}

/**
 * The events of a stored `events` row. Rows the sync wrote before it used `dexcomReadings`
 * hold one event as `{eventType, eventSubType, unit, value}` (and at most one per instant).
 */
function eventsOf(valueJson: unknown): EventJson['events'] {
  const json = (valueJson ?? {}) as Partial<EventJson> & Record<string, unknown>;
  if (Array.isArray(json.events)) return json.events;
  if (typeof json.eventType !== 'string') return [];
  const text = (key: string) => (typeof json[key] === 'string' ? (json[key] as string) : null);
  return [
    {
      eventType: json.eventType,
      eventSubType: text('eventSubType'),
      value: text('value'),
      unit: text('unit'),
      eventStatus: text('eventStatus'),
    },
  ];
}

type ReadingLike =
  | Pick<StoredReading, 'metricKey' | 'recordedAt' | 'utcOffsetMinutes' | 'value' | 'valueJson'>
  | ReadingInput;

const offsetText = (minutes: number | null | undefined) =>
  minutes === null || minutes === undefined ? null : formatOffset(minutes);
const newestFirst = <T extends { systemTime: string }>(items: T[]) =>
  items.sort((a, b) => b.systemTime.localeCompare(a.systemTime));

/** The answer for a query from readings (stored, or converted from a live fetch). */
export function presentDexcom(
  readings: readonly ReadingLike[],
  query: DexcomQuery,
  source: 'stored' | 'live',
): DexcomDataResponse {
  const from = query.start.getTime();
  const to = query.end.getTime();
  const inRange = readings.filter(
    (reading) => reading.recordedAt.getTime() >= from && reading.recordedAt.getTime() < to,
  );
  const trendRates = new Map<number, number>();
  for (const reading of inRange) {
    if (reading.metricKey === 'egv_trend_rate' && typeof reading.value === 'number') {
      trendRates.set(reading.recordedAt.getTime(), reading.value);
    }
  }
  const egvs: DexcomEgvReading[] = [];
  const devices = new Map<
    string,
    { transmitterGeneration: string | null; displayDevice: string | null; lastReading: string }
  >();
  const events: DexcomEventReading[] = [];
  const calibrations: Array<{ systemTime: string; utcOffset: string | null; value: number }> = [];
  for (const reading of inRange) {
    const systemTime = instantText(reading.recordedAt);
    const utcOffset = offsetText(reading.utcOffsetMinutes);
    if (reading.metricKey === 'egv') {
      const json = (reading.valueJson ?? {}) as Partial<EgvJson>;
      egvs.push({
        systemTime,
        utcOffset,
        value: reading.value ?? null,
        status: json.status ?? null,
        trend: json.trend ?? null,
        trendRate: trendRates.get(reading.recordedAt.getTime()) ?? null,
      });
      const key = `${json.generation ?? ''}|${json.displayDevice ?? ''}`;
      const known = devices.get(key);
      if (!known || known.lastReading < systemTime) {
        devices.set(key, {
          transmitterGeneration: json.generation ?? null,
          displayDevice: json.displayDevice ?? null,
          lastReading: systemTime,
        });
      }
    } else if (reading.metricKey === 'calibration' && typeof reading.value === 'number') {
      calibrations.push({ systemTime, utcOffset, value: reading.value });
    } else if (reading.metricKey === 'events') {
      for (const event of eventsOf(reading.valueJson)) {
        events.push({
          systemTime,
          utcOffset,
          eventType: event.eventType,
          eventSubType: event.eventSubType,
          value: event.value,
          unit: event.unit,
        });
      }
    }
  }
  const wants = (type: DexcomRecordType) => query.records.includes(type);
  return {
    source,
    startDate: instantText(query.start),
    endDate: instantText(query.end),
    unit: 'mg/dL',
    ...(wants('egvs') && { egvs: newestFirst(egvs) }),
    ...(wants('events') && { events: newestFirst(events) }),
    ...(wants('calibrations') && { calibrations: newestFirst(calibrations) }),
    ...(wants('devices') && {
      devices: [...devices.values()].sort((a, b) => b.lastReading.localeCompare(a.lastReading)),
    }),
  };
}

/** Fetches what a query needs from Dexcom (egvs also for devices). */
export async function fetchDexcom(
  client: DexcomClient,
  accessToken: string,
  query: DexcomQuery,
): Promise<DexcomRecords> {
  const range = { start: query.start, end: query.end };
  const wants = (type: DexcomRecordType) => query.records.includes(type);
  return {
    egvs: wants('egvs') || wants('devices') ? await client.getEgvs(accessToken, range) : [],
    events: wants('events') ? await client.getEvents(accessToken, range) : [],
    calibrations: wants('calibrations') ? await client.getCalibrations(accessToken, range) : [],
  };
}

/** The stored metric keys a query reads. */
export function dexcomMetricsOf(query: DexcomQuery): string[] {
  return [...new Set(query.records.flatMap((type) => DEXCOM_METRICS[type]))];
}

/**
 * A Dexcom reading outside the sensor's reporting range (status `low` / `high`, decision
 * 0183): its stored value is the bound (40 or 400 mg/dL); the true value is below or above.
 */
export function dexcomReadingBound(reading: {
  metricKey: string;
  valueJson: unknown;
}): '<' | '>' | null {
  if (reading.metricKey !== 'egv') return null;
  const status = (reading.valueJson as { status?: unknown } | null)?.status;
  if (typeof status !== 'string') return null;
  if (status.toLowerCase() === 'low') return '<';
  if (status.toLowerCase() === 'high') return '>';
  return null;
}
