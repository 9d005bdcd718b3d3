import type { DeviceBrand, DeviceUpstream } from '../../../db/schema';

/** One call to a provider's data API; the sync's caller adds the token, budget and counting. */
export type SourceRequest = {
  method: 'GET' | 'POST';
  /** Appended to the provider's API base URL. */
  path: string;
  query?: Record<string, string | undefined>;
  /** Sent as application/x-www-form-urlencoded (a provider whose data call is a form POST). */
  form?: Record<string, string | undefined>;
  /** Sent as JSON (Google rollups). */
  json?: unknown;
};

/** A reading as a source produces it; the sync adds participant, team, brand and upstream. */
export type SourceReading = {
  metricKey: string;
  recordedAt: Date;
  endAt?: Date | null;
  utcOffsetMinutes?: number | null;
  value?: number | null;
  valueJson?: unknown;
  dataSource?: string | null;
};

export type FetchContext = {
  request(request: SourceRequest): Promise<unknown>;
  now: Date;
  /** Per-run memo (Dexcom's dataRange probe). */
  memo: Map<string, unknown>;
  /** The cursor's position before this run, per metric (null: never synced). */
  syncedUntil: Date | null;
  /**
   * Says the answer being built may not hold everything in the window (a paging bound hit
   * with a page token left): its readings are stored, but the window is not mirrored
   * (decision 0112).
   */
  markIncomplete(reason: string): void;
};

/**
 * Where a fetched window's readings lie in the stored rows, for a stream whose provider
 * answer lists everything in the window (decision 0112): stored readings of the stream's
 * metrics with `on` in [from, to) that the answer no longer holds are deleted.
 * `recorded_at`: samples and daily readings (kept at 00:00 UTC of their civil date);
 * `end_at`: sessions, which the provider selects by their end (a row without an end counts
 * by its start, as the day summary does).
 */
export type MirrorRange = { on: 'recorded_at' | 'end_at'; from: Date; to: Date };

/**
 * One provider data type fetched in one sequence of calls, feeding one or more metrics
 * (Google's sleep gives sleep_duration and sleep_stages; a blood-pressure measurement gives
 * systolic, diastolic and pulse).
 */
export type SyncStream = {
  key: string;
  metrics: readonly string[];
  /** 'intraday': due every cycle (15 minutes); 'daily': due once a day (decision 0036). */
  cadence: 'intraday' | 'daily';
  /** Largest window one fetch sequence may span, the provider's limit where it has one. */
  maxWindowDays: number;
  /**
   * The stored range a successful fetch of `window` answers for completely (decision 0112);
   * absent: the stream is upsert-only (its window is not exact, or not proven to be).
   */
  mirror?: (window: { from: Date; to: Date }) => MirrorRange;
  /** Readings with recordedAt in [from, to) (sessions: ending in it), only of `metrics`. */
  fetch(
    ctx: FetchContext,
    window: { from: Date; to: Date },
    metrics: ReadonlySet<string>,
  ): Promise<SourceReading[]>;
};

/** A call budget: `limit` calls per `windowSeconds`, per connection or per application. */
export type CallBudget = { scope: string; limit: number; windowSeconds: number };

export type SyncSource = {
  upstream: DeviceUpstream;
  brand: DeviceBrand;
  streams: readonly SyncStream[];
  budgets(connectionId: number): CallBudget[];
};

export const DAY_MS = 86_400_000;

/** "32400s" → 540 (minutes); undefined → null. */
export function offsetMinutes(duration: string | undefined): number | null {
  if (!duration) return null;
  const seconds = Number.parseFloat(duration.replace(/s$/, ''));
  return Number.isFinite(seconds) ? Math.round(seconds / 60) : null;
}

/** int64 values come as strings (proto3 JSON) or numbers. */
export function num(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}

export function utcDate(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

/** Windows of at most `days` covering [from, to), oldest first. */
export function windowsOf(from: Date, to: Date, days: number): Array<{ from: Date; to: Date }> {
  const windows: Array<{ from: Date; to: Date }> = [];
  for (let start = from.getTime(); start < to.getTime(); start += days * DAY_MS) {
    windows.push({
      from: new Date(start),
      to: new Date(Math.min(to.getTime(), start + days * DAY_MS)),
    });
  }
  return windows;
}
