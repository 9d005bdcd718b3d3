import type { FitbitWeeklySummary } from '@trialpulse/shared';
import { eq, and, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { fitbitWeeklySummaries } from '../../db/schema';
import type { Clock } from '../../lib/clock';
import type { AuthContext } from '../auth/session-context';
import type { AccessService } from '../access/access.service';
import type { ReadingsService, StoredReading } from './readings.service';

const DAY = 86_400_000;
const round = (value: number | null, digits = 1) =>
  value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits;
const sum = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) : null);
const avg = (values: number[]) =>
  values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;

/**
 * The spec's Fitbit weekly summary (decision 0038): the last 7 days (today and the six
 * before, in UTC dates — daily readings are stored at their civil date) against the 7
 * before, from the readings TrialPulse stores. A client's POST does not carry figures the
 * server trusts: it asks for a recomputation, which is saved and returned; GET returns the
 * saved summary, computing it first when there is none.
 */
export function createWeeklySummaryService(deps: {
  db: Db;
  access: Pick<AccessService, 'requireParticipant'>;
  readings: ReadingsService;
  clock: Clock;
}) {
  const { db, access, readings, clock } = deps;

  async function compute(teamId: number, participantId: number): Promise<FitbitWeeklySummary> {
    const today = Math.floor(clock.now().getTime() / DAY) * DAY;
    const lastFrom = new Date(today - 6 * DAY);
    const prevFrom = new Date(today - 13 * DAY);
    const to = new Date(today + DAY);
    const rows: StoredReading[] = await readings.read({
      teamId,
      participantId,
      brand: 'Fitbit',
      metricKeys: ['resting_heart_rate', 'sleep_duration', 'steps', 'distance', 'floors', 'weight'],
      from: new Date(prevFrom.getTime() - DAY),
      to,
    });
    const inWeek = (row: StoredReading, metric: string, from: Date, until: Date) => {
      // Sleep belongs to the day it ends (its wake day), as Fitbit's dateOfSleep.
      const at = metric === 'sleep_duration' && row.endAt ? row.endAt : row.recordedAt;
      return row.metricKey === metric && row.value !== null && at >= from && at < until;
    };
    const values = (metric: string, from: Date, until: Date) =>
      rows.filter((row) => inWeek(row, metric, from, until)).map((row) => row.value!);
    const week = (from: Date, until: Date) => ({
      rhr: round(avg(values('resting_heart_rate', from, until))),
      // Average minutes asleep per night with data (naps count towards their day).
      sleep: (() => {
        const perDay = new Map<number, number>();
        for (const row of rows.filter((r) => inWeek(r, 'sleep_duration', from, until))) {
          const day = Math.floor((row.endAt ?? row.recordedAt).getTime() / DAY);
          perDay.set(day, (perDay.get(day) ?? 0) + row.value!);
        }
        return round(avg([...perDay.values()]));
      })(),
      steps: sum(values('steps', from, until)),
      distance: round(sum(values('distance', from, until)), 2),
      floors: sum(values('floors', from, until)),
      weight: round(avg(values('weight', from, until)), 2),
    });
    const last = week(lastFrom, to);
    const prev = week(prevFrom, lastFrom);
    return {
      participant_id: participantId,
      avrg_resting_heart_rate_last_7days: last.rhr,
      avrg_resting_heart_rate_prev_7days: prev.rhr,
      avrg_sleep_duration_last_7days: last.sleep,
      avrg_sleep_duration_prev_7days: prev.sleep,
      total_steps_last_7days: last.steps,
      total_steps_prev_7days: prev.steps,
      total_distance_last_7days: last.distance,
      total_distance_prev_7days: prev.distance,
      total_floors_last_7days: last.floors,
      total_floors_prev_7days: prev.floors,
      avrg_weight_last_7days: last.weight,
      avrg_weight_prev_7days: prev.weight,
      updated_at: null,
    };
  }

  async function save(teamId: number, summary: FitbitWeeklySummary): Promise<FitbitWeeklySummary> {
    const values = {
      avrgRestingHeartRateLast7days: summary.avrg_resting_heart_rate_last_7days,
      avrgRestingHeartRatePrev7days: summary.avrg_resting_heart_rate_prev_7days,
      avrgSleepDurationLast7days: summary.avrg_sleep_duration_last_7days,
      avrgSleepDurationPrev7days: summary.avrg_sleep_duration_prev_7days,
      totalStepsLast7days: summary.total_steps_last_7days,
      totalStepsPrev7days: summary.total_steps_prev_7days,
      totalDistanceLast7days: summary.total_distance_last_7days,
      totalDistancePrev7days: summary.total_distance_prev_7days,
      totalFloorsLast7days: summary.total_floors_last_7days,
      totalFloorsPrev7days: summary.total_floors_prev_7days,
      avrgWeightLast7days: summary.avrg_weight_last_7days,
      avrgWeightPrev7days: summary.avrg_weight_prev_7days,
    };
    const [row] = await db
      .insert(fitbitWeeklySummaries)
      .values({ teamId, participantId: summary.participant_id, ...values })
      .onConflictDoUpdate({
        target: [fitbitWeeklySummaries.participantId, fitbitWeeklySummaries.teamId],
        set: { ...values, updatedAt: sql`now()` },
      })
      .returning({ updatedAt: fitbitWeeklySummaries.updatedAt });
    return { ...summary, updated_at: row!.updatedAt.toISOString() };
  }

  return {
    async recompute(auth: AuthContext, participantId: number): Promise<FitbitWeeklySummary> {
      const ref = await access.requireParticipant(auth, participantId, 'data.recompute');
      return save(ref.teamId, await compute(ref.teamId, ref.id));
    },
    async get(auth: AuthContext, participantId: number): Promise<FitbitWeeklySummary> {
      const ref = await access.requireParticipant(auth, participantId, 'data.view');
      const [row] = await db
        .select()
        .from(fitbitWeeklySummaries)
        .where(
          and(
            eq(fitbitWeeklySummaries.participantId, ref.id),
            eq(fitbitWeeklySummaries.teamId, ref.teamId),
          ),
        );
      if (!row) return save(ref.teamId, await compute(ref.teamId, ref.id));
      return {
        participant_id: ref.id,
        avrg_resting_heart_rate_last_7days: row.avrgRestingHeartRateLast7days,
        avrg_resting_heart_rate_prev_7days: row.avrgRestingHeartRatePrev7days,
        avrg_sleep_duration_last_7days: row.avrgSleepDurationLast7days,
        avrg_sleep_duration_prev_7days: row.avrgSleepDurationPrev7days,
        total_steps_last_7days: row.totalStepsLast7days,
        total_steps_prev_7days: row.totalStepsPrev7days,
        total_distance_last_7days: row.totalDistanceLast7days,
        total_distance_prev_7days: row.totalDistancePrev7days,
        total_floors_last_7days: row.totalFloorsLast7days,
        total_floors_prev_7days: row.totalFloorsPrev7days,
        avrg_weight_last_7days: row.avrgWeightLast7days,
        avrg_weight_prev_7days: row.avrgWeightPrev7days,
        updated_at: row.updatedAt.toISOString(),
      };
    },
  };
}

export type WeeklySummaryService = ReturnType<typeof createWeeklySummaryService>;
