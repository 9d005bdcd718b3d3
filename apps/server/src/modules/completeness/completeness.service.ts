import {
  COMPLETENESS_STRIP_DAYS,
  can,
  type Action,
  type CompletenessGrid,
  type CompletenessRange,
  type CompletenessRow,
  type CompletenessStrips,
  type CompletenessThresholds,
} from '@trialpulse/shared';
import { lastCompleteDays, trialToday } from '@trialpulse/shared/civil-days';
import { recordAudit } from '../../lib/audit';
import { neutralise } from '../../lib/csv-safe';
import type { Clock } from '../../lib/clock';
import type { Meta } from '../../lib/request-meta';
import type { AuthContext } from '../auth/session-context';
import type { ConnectionHealthRow } from '../devices/device-connections.service';
import type { AccessService } from '../access/access.service';
import type { ReadingsService } from '../sync/readings.service';
import type { CompletenessRepository } from './completeness.repository';
import {
  buildRow,
  dayRange,
  FIRST_DATA_METRICS,
  worstFirst,
  type ParticipantDays,
} from './day-states';

/** Participants per aggregate query: bounds the rows a CSV or digest holds at once. */
const CHUNK = 200;

/**
 * Data completeness and sync health (issue 20): the participant × day grid of a trial, the
 * trial page's 14-day strips, thresholds, digest opt-in and the adherence CSV. Every call
 * first asks the access module (`completeness.view`, or `completeness.thresholds`), which
 * answers 404 for a trial the caller may not see (another team's, or not a trial user of it).
 */
export function createCompletenessService(deps: {
  repository: CompletenessRepository;
  access: Pick<AccessService, 'requireTrial'>;
  readings: RowsReadings;
  devices: ConnectionHealthSource;
  clock: Clock;
}) {
  const { repository, readings, devices, clock } = deps;

  /** The trial's team and participants when the caller may do `action` on it (404 otherwise, 403 for the role). */
  async function visibleTrial(
    auth: AuthContext,
    trialId: number,
    action: Action = 'completeness.view',
  ) {
    const trial = await deps.access.requireTrial(auth, trialId, action);
    const participants = await repository.participantsOfTrials([trial.id]);
    return { teamId: trial.teamId, participants };
  }

  const rowsFor = createRowsBuilder({ readings, devices, clock });

  /**
   * The grid's last column: the trial's local today, the latest of its participants' todays
   * (decision 0185), so a participant east of UTC sees their today after their midnight and
   * one west of UTC no day that has not begun for anyone.
   */
  async function lastGridDay(
    teamId: number,
    participants: readonly { id: number }[],
  ): Promise<string> {
    const now = clock.now();
    const offsets = new Map<number, number>();
    for (let start = 0; start < participants.length; start += CHUNK) {
      const ids = participants.slice(start, start + CHUNK).map((participant) => participant.id);
      for (const [id, offset] of await readings.currentOffsets(teamId, ids, now))
        offsets.set(id, offset);
    }
    return trialToday(
      now,
      participants.map((participant) => offsets.get(participant.id) ?? null),
    );
  }

  return {
    /**
     * The grid of the last `range` days (ending the trial's local today), worst participant first.
     * Throws 404 "Trial not found." for a trial the caller may not see.
     */
    async grid(
      auth: AuthContext,
      trialId: number,
      range: CompletenessRange,
    ): Promise<CompletenessGrid> {
      const { teamId, participants } = await visibleTrial(auth, trialId);
      const thresholds = await repository.thresholdsOf(repository.db, trialId);
      const days = dayRange(await lastGridDay(teamId, participants), range);
      const rows = await rowsFor(teamId, participants, days, thresholds);
      return {
        trialId,
        days,
        thresholds,
        canEditThresholds: can(auth.role, 'completeness.thresholds'),
        rows: rows.sort(worstFirst),
      };
    },

    /**
     * The trial page's compact strips: the last 14 days' states of the given participants
     * of the trial (one call for the visible page). Ids of other trials are left out.
     */
    async strips(
      auth: AuthContext,
      trialId: number,
      participantIds: readonly number[],
    ): Promise<CompletenessStrips> {
      const { teamId, participants } = await visibleTrial(auth, trialId);
      const wanted = new Set(participantIds);
      const thresholds = await repository.thresholdsOf(repository.db, trialId);
      const shown = participants.filter((participant) => wanted.has(participant.id));
      const days = dayRange(await lastGridDay(teamId, shown), COMPLETENESS_STRIP_DAYS);
      const rows = await rowsFor(teamId, shown, days, thresholds);
      return {
        days,
        strips: rows.map((row) => ({
          participantId: row.participantId,
          states: row.states,
          warnings: row.warnings,
        })),
      };
    },

    /**
     * Sets the trial's thresholds (Sys_Admin, Admin — the route guard), audited with before
     * and after. Throws 403 for other roles, 404 for a trial the caller may not see.
     */
    async updateThresholds(
      auth: AuthContext,
      trialId: number,
      input: CompletenessThresholds,
      meta: Meta,
    ): Promise<CompletenessThresholds> {
      const { teamId } = await visibleTrial(auth, trialId, 'completeness.thresholds');
      return repository.transaction(async (tx) => {
        const before = await repository.thresholdsOf(tx, trialId);
        await repository.saveThresholds(tx, { ...input, trialId, teamId, userId: auth.userId });
        await recordAudit(tx, {
          action: 'completeness.thresholds.update',
          entityType: 'trial',
          entityId: trialId,
          actorUserId: auth.userId,
          teamId,
          before,
          after: input,
          requestId: meta.requestId,
        });
        return { ...input };
      });
    },

    async digestSubscription(auth: AuthContext, trialId: number): Promise<{ subscribed: boolean }> {
      await visibleTrial(auth, trialId);
      return { subscribed: await repository.isSubscribed(auth.userId, trialId) };
    },

    /** Opts the caller in or out of the trial's daily alert digest (off by default). */
    async setDigestSubscription(
      auth: AuthContext,
      trialId: number,
      subscribed: boolean,
    ): Promise<{ subscribed: boolean }> {
      const { teamId } = await visibleTrial(auth, trialId);
      await repository.setSubscribed(auth.userId, trialId, teamId, subscribed);
      return { subscribed };
    },

    /**
     * The adherence CSV's rows for [from, to]: one per participant and day, participants
     * in code order, computed a chunk of participants at a time. Throws 404 as `grid`.
     */
    async adherenceRows(auth: AuthContext, trialId: number, from: string, to: string, meta: Meta) {
      const { teamId, participants } = await visibleTrial(auth, trialId);
      await recordAudit(repository.db, {
        action: 'completeness.csv.download',
        entityType: 'trial',
        entityId: trialId,
        actorUserId: auth.userId,
        teamId,
        after: { from, to, participants: participants.length },
        requestId: meta.requestId,
      });
      const thresholds = await repository.thresholdsOf(repository.db, trialId);
      const count =
        Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) +
        1;
      const days = dayRange(to, count);
      const sorted = [...participants].sort((a, b) => a.code.localeCompare(b.code));
      async function* generate() {
        for (let start = 0; start < sorted.length; start += CHUNK) {
          for (const row of await rowsFor(
            teamId,
            sorted.slice(start, start + CHUNK),
            days,
            thresholds,
          )) {
            for (const [index, day] of days.entries()) {
              const cgm = row.cgmUsagePercent[index] ?? null;
              const cgmReadings = row.cgmReadings[index]!;
              yield [
                neutralise(row.participantCode),
                day,
                row.states[index],
                row.wearMinutes[index],
                row.steps[index] ?? '',
                row.sleepMinutes[index] === null ? 'no' : 'yes',
                row.sleepMinutes[index] ?? '',
                row.bpReadings[index],
                row.weightReadings[index],
                cgm === null ? '' : cgmReadings,
                cgm ?? '',
              ];
            }
          }
        }
      }
      return { teamId, rows: generate() };
    },
  };
}

export type CompletenessService = ReturnType<typeof createCompletenessService>;

/** Where a participant's connections' sync health comes from (the devices module). */
export type ConnectionHealthSource = {
  healthOfParticipants(
    teamId: number,
    participantIds: readonly number[],
  ): Promise<ConnectionHealthRow[]>;
};

/**
 * Grid rows of arbitrary participants of one team over `days`: two queries per chunk of
 * participants (daily aggregates in SQL, connections' health). Callers check access; the
 * digest job calls it without a caller.
 */
export function createRowsBuilder(deps: {
  readings: RowsReadings;
  devices: ConnectionHealthSource;
  clock: Clock;
}) {
  /**
   * `days`: the grid's days, the same for every participant; or `{ lastCompleteDayAt }`:
   * each participant's own last complete local day at that instant (the digest's "yesterday",
   * decision 0180), one day per row.
   */
  return async function rowsFor(
    teamId: number,
    participants: readonly { id: number; code: string }[],
    days: readonly string[] | { lastCompleteDayAt: Date },
    thresholds: CompletenessThresholds,
  ): Promise<CompletenessRow[]> {
    const now = deps.clock.now();
    const rows: CompletenessRow[] = [];
    for (let start = 0; start < participants.length; start += CHUNK) {
      const chunk = participants.slice(start, start + CHUNK);
      const ids = chunk.map((participant) => participant.id);
      const offsets = await deps.readings.currentOffsets(teamId, ids, now);
      const daysOf = (participantId: number): readonly string[] =>
        Array.isArray(days)
          ? days
          : [
              lastCompleteDays(
                (days as { lastCompleteDayAt: Date }).lastCompleteDayAt,
                offsets.get(participantId) ?? null,
                1,
              ).end,
            ];
      const allDays = chunk.flatMap((participant) => daysOf(participant.id)).sort();
      if (allDays.length === 0) continue;
      const [summaries, health, firsts] = await Promise.all([
        deps.readings.dailySummaries(teamId, ids, allDays[0]!, allDays.at(-1)!),
        deps.devices.healthOfParticipants(teamId, ids),
        deps.readings.firstDataDays(teamId, ids, Object.values(FIRST_DATA_METRICS).flat()),
      ]);
      const summariesOf = groupBy(summaries, (summary) => summary.participantId);
      const healthOf = groupBy(health, (connection) => connection.participantId);
      const firstsOf = groupBy(firsts, (first) => first.participantId);
      for (const participant of chunk) {
        const firstDataDay: ParticipantDays['firstDataDay'] = {};
        for (const [brand, metrics] of Object.entries(FIRST_DATA_METRICS)) {
          for (const first of firstsOf.get(participant.id) ?? []) {
            if (!(metrics as readonly string[]).includes(first.metricKey)) continue;
            const known = firstDataDay[brand as keyof typeof FIRST_DATA_METRICS];
            if (!known || first.day < known)
              firstDataDay[brand as keyof typeof FIRST_DATA_METRICS] = first.day;
          }
        }
        rows.push(
          buildRow(
            participant,
            daysOf(participant.id),
            summariesOf.get(participant.id) ?? [],
            healthOf.get(participant.id) ?? [],
            thresholds,
            now,
            { offsetMinutes: offsets.get(participant.id) ?? null, firstDataDay },
          ),
        );
      }
    }
    return rows;
  };
}

export type RowsFor = ReturnType<typeof createRowsBuilder>;

/** What the grid reads of the stored readings: day summaries, offsets, first days. */
export type RowsReadings = Pick<
  ReadingsService,
  'dailySummaries' | 'currentOffsets' | 'firstDataDays'
>;

function groupBy<T>(items: readonly T[], keyOf: (item: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
