import type { FitbitWeeklySummary } from '@trialpulse/shared';
import {
  lastCompleteDays,
  previousDays,
  readingDay,
  type CivilDayRange,
} from '@trialpulse/shared/civil-days';
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
 * The spec's Fitbit weekly summary (decisions 0038, 0180): the last 7 complete local days of
 * the participant (the seven days before their today, `civil-days`) against the 7 before,
 * from the readings TrialPulse stores; each reading counts on its local day (a sleep on its
 * wake day). The answer names the days it covers. A client's POST does not carry figures
 * the server trusts: it asks for a recomputation, which is saved and returned; GET returns
 * the saved summary, computing it first when there is none.
 */
export function createWeeklySummaryService(deps: {
  db: Db;
  access: Pick<AccessService, 'requireParticipant'>;
  readings: Pick<ReadingsService, 'read' | 'currentOffsets'>;
  clock: Clock;
}) {
  const { db, access, readings, clock } = deps;

  /** The days a summary computed at `at` covers, in the participant's current offset. */
  async function daysAt(teamId: number, participantId: number, at: Date) {
    const offsets = await readings.currentOffsets(teamId, [participantId], at);
    const last = lastCompleteDays(at, offsets.get(participantId) ?? null, 7);
    return { last, prev: previousDays(last) };
  }

  async function compute(teamId: number, participantId: number): Promise<FitbitWeeklySummary> {
    const { last: lastDays, prev: prevDays } = await daysAt(teamId, participantId, clock.now());
    const rows: StoredReading[] = await readings.read({
      teamId,
      participantId,
      brand: 'Fitbit',
      metricKeys: ['resting_heart_rate', 'sleep_duration', 'steps', 'distance', 'floors', 'weight'],
      // Local days lie within 14 h before and 12 h after their UTC date; a sleep counts on
      // its end and starts up to a day before.
      from: new Date(Date.parse(`${prevDays.start}T00:00:00Z`) - 2 * DAY),
      to: new Date(Date.parse(`${lastDays.end}T00:00:00Z`) + 2 * DAY),
    });
    const inWeek = (row: StoredReading, metric: string, days: CivilDayRange) => {
      const day = readingDay(row);
      return row.metricKey === metric && row.value !== null && day >= days.start && day <= days.end;
    };
    const values = (metric: string, days: CivilDayRange) =>
      rows.filter((row) => inWeek(row, metric, days)).map((row) => row.value!);
    const week = (days: CivilDayRange) => ({
      rhr: round(avg(values('resting_heart_rate', days))),
      // Average minutes asleep per night with data (naps count towards their day).
      sleep: (() => {
        const perDay = new Map<string, number>();
        for (const row of rows.filter((r) => inWeek(r, 'sleep_duration', days))) {
          const day = readingDay(row);
          perDay.set(day, (perDay.get(day) ?? 0) + row.value!);
        }
        return round(avg([...perDay.values()]));
      })(),
      steps: sum(values('steps', days)),
      distance: round(sum(values('distance', days)), 2),
      floors: sum(values('floors', days)),
      weight: round(avg(values('weight', days)), 2),
    });
    const last = week(lastDays);
    const prev = week(prevDays);
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
      ...daysFields(lastDays, prevDays),
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
        ...(await daysAt(ref.teamId, ref.id, row.updatedAt).then(({ last, prev }) =>
          daysFields(last, prev),
        )),
      };
    },
  };
}

function daysFields(last: CivilDayRange, prev: CivilDayRange) {
  return {
    last_7days_start: last.start,
    last_7days_end: last.end,
    prev_7days_start: prev.start,
    prev_7days_end: prev.end,
  };
}

export type WeeklySummaryService = ReturnType<typeof createWeeklySummaryService>;
