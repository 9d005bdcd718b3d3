import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';

/** One participant's civil day as the completeness grid needs it. */
export type DailySummary = {
  participantId: number;
  /** Civil date (YYYY-MM-DD) in the participant's local time (decision 0051). */
  day: string;
  /** Minutes with at least one heart-rate sample. */
  wearMinutes: number;
  steps: number | null;
  sleepMinutes: number | null;
  bpReadings: number;
  weightReadings: number;
  cgmReadings: number;
};

/** Local days can start up to 14 h before and end up to 12 h after the UTC day (UTC−12…UTC+14). */
const MARGIN_BEFORE = "interval '14 hours'";
const MARGIN_AFTER = "interval '36 hours'";

/**
 * Per participant and civil day in [fromDay, toDay] (inclusive), computed by PostgreSQL
 * with one GROUP BY: no reading leaves the database. A reading counts on the local date of
 * its instant shifted by its `utc_offset_minutes` (samples and sessions); daily metrics,
 * stored at 00:00 UTC with a null offset, count on their UTC date (decision 0051). A sleep
 * session counts on the day it ends (the wake-up day, as Fitbit's dateOfSleep). Days
 * without any reading are absent. The time filter is on `recorded_at`, so only the
 * partitions of the range are read.
 */
export async function dailySummaries(
  db: Db,
  teamId: number,
  participantIds: readonly number[],
  fromIso: string,
  toIso: string,
): Promise<DailySummary[]> {
  if (participantIds.length === 0) return [];
  const ids = sql.raw(participantIds.map((id) => String(Math.trunc(id))).join(','));
  const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / 86_400_000;
  const fromDay = dayNumber(fromIso);
  const toDay = dayNumber(toIso);
  // Arithmetic on epoch seconds as double precision (date_part; extract() answers numeric,
  // several times slower per row) instead of interval and time-zone functions; the sort
  // behind count(DISTINCT minute) gets memory enough not to spill.
  const result = await db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL work_mem = '64MB'`);
    return tx.execute(sql`
    SELECT participant_id AS "participantId",
           to_char(date '1970-01-01' + day_number::int, 'YYYY-MM-DD') AS "day",
           count(DISTINCT minute) FILTER (WHERE metric_key = 'heart_rate')::int AS "wearMinutes",
           sum(value) FILTER (WHERE metric_key = 'steps') AS "steps",
           sum(value) FILTER (WHERE metric_key = 'sleep_duration') AS "sleepMinutes",
           count(*) FILTER (WHERE metric_key = 'systolic')::int AS "bpReadings",
           count(*) FILTER (WHERE metric_key = 'weight')::int AS "weightReadings",
           count(*) FILTER (WHERE metric_key = 'egv')::int AS "cgmReadings"
      FROM (
        SELECT participant_id, metric_key, value,
               floor((date_part('epoch', coalesce(end_at, recorded_at)) + coalesce(utc_offset_minutes, 0) * 60) / 86400)::int AS day_number,
               floor(date_part('epoch', recorded_at) / 60)::int AS minute
          FROM device_readings
         WHERE team_id = ${teamId}
           AND participant_id IN (${ids})
           AND metric_key IN ('heart_rate', 'steps', 'sleep_duration', 'systolic', 'weight', 'egv')
           AND recorded_at >= ${fromIso}::date - ${sql.raw(MARGIN_BEFORE)}
           AND recorded_at < ${toIso}::date + ${sql.raw(MARGIN_AFTER)}
      ) readings
     WHERE day_number BETWEEN ${fromDay} AND ${toDay}
     GROUP BY participant_id, day_number
     ORDER BY participant_id, day_number`);
  });
  return result.rows.map((row) => ({
    participantId: Number(row.participantId),
    day: String(row.day),
    wearMinutes: Number(row.wearMinutes),
    steps: row.steps === null ? null : Number(row.steps),
    sleepMinutes: row.sleepMinutes === null ? null : Number(row.sleepMinutes),
    bpReadings: Number(row.bpReadings),
    weightReadings: Number(row.weightReadings),
    cgmReadings: Number(row.cgmReadings),
  }));
}
