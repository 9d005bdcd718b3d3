import type { SimulatedAccount } from '../../common/accounts';
import { DAY_MS, MINUTE_MS, addDays, civilMsOfDate, dayNumberOf } from '../../common/civil-time';
import type { WearableModel } from '../../common/wearable-model';
import type { FitbitErrorBody } from '../errors';
import type { FitbitScope } from '../oauth-routes';
import type { UnitSystem } from '../units';

/** What every Fitbit resource handler gets about the caller and the request. */
export interface FitbitCaller {
  account: SimulatedAccount;
  model: WearableModel;
  units: UnitSystem;
  /** The user's local date now (`today` in paths). */
  today: string;
  nowMs: number;
  /** Tracker data exists only before this instant (sync lag, empty battery). */
  trackerCutoff: number;
  /** e.g. `http://127.0.0.1:5000`, for pagination links. */
  baseUrl: string;
  query: Record<string, string | undefined>;
}

export type ResourceResult = { body: unknown } | { status: number; error: FitbitErrorBody };

export interface FitbitResource {
  /** API version prefix: `1` or `1.2`. */
  version: '1' | '1.2';
  /** Matched against the path after `/{version}/user/{user-id}/`. */
  pattern: RegExp;
  scope: FitbitScope;
  handle(caller: FitbitCaller, match: RegExpExecArray): ResourceResult;
}

export function bad(error: FitbitErrorBody, status = 400): ResourceResult {
  return { status, error };
}

/** A minute of tracker data addressed by a request's date/time window. */
export interface WindowMinute {
  date: string;
  minute: number;
  /** Label time: local civil ms, or UTC ms with `timezone=UTC`. */
  label: number;
}

/**
 * The minutes from `startDate startMinute` to `endDate endMinute` (both inclusive) in local
 * time, or in UTC when the request asked for `timezone=UTC`. Minutes not yet synced are left
 * out, as Fitbit returns today's intraday data only up to the last sync.
 */
export function windowMinutes(
  caller: FitbitCaller,
  startDate: string,
  endDate: string,
  startMinute: number,
  endMinute: number,
): WindowMinute[] {
  const utc = caller.query.timezone === 'UTC';
  const from = civilMsOfDate(startDate) + startMinute * MINUTE_MS;
  const to = civilMsOfDate(endDate) + endMinute * MINUTE_MS;
  const minutes: WindowMinute[] = [];
  // In UTC mode the window's minutes come from the local days around it.
  const firstDay = dayNumberOf(startDate) - (utc ? 1 : 0);
  const lastDay = dayNumberOf(endDate) + (utc ? 1 : 0);
  for (let day = firstDay; day <= lastDay; day++) {
    const date = addDays('1970-01-01', day);
    const series = caller.model.day(date);
    for (let m = 0; m < series.length; m++) {
      const minuteUtc = series.minuteUtc[m] ?? Number.NaN;
      if (Number.isNaN(minuteUtc) || minuteUtc + MINUTE_MS > caller.trackerCutoff) continue;
      const label = utc ? minuteUtc : day * DAY_MS + m * MINUTE_MS;
      if (label < from || label > to) continue;
      minutes.push({ date, minute: m, label });
    }
  }
  return minutes.sort((a, b) => a.label - b.label);
}

/** `HH:mm:ss` of a label time. */
export function clockOf(label: number): string {
  return new Date(label).toISOString().slice(11, 19);
}

/** Fitbit's local timestamps: `yyyy-MM-ddTHH:mm:ss.SSS` without a zone. */
export function localTimestamp(civilMs: number): string {
  return new Date(civilMs).toISOString().slice(0, 23);
}
