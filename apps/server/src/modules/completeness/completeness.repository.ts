import { and, eq, inArray, or, sql } from 'drizzle-orm';
import { COMPLETENESS_DEFAULTS, rolesFor, type CompletenessThresholds } from '@trialpulse/shared';
import type { Db } from '../../db/client';
import {
  completenessAlertStates,
  completenessDigestRuns,
  completenessDigestSubscriptions,
  completenessThresholds,
  participants,
  teamUserMappings,
  teams,
  trialUsers,
  trials,
  users,
} from '../../db/schema';
import type { DbOrTx } from '../../db/client';

/** A subscription whose user still sees the trial: what the digest mails go to. */
export type DigestRecipient = {
  userId: number;
  email: string;
  trialId: number;
  teamId: number;
  trialNumber: string;
  trialName: string;
};

/**
 * The completeness module's own tables: thresholds, digest subscriptions, alert states and
 * digest runs. Readings and connections are read through the sync and devices services.
 */
export function createCompletenessRepository(db: Db) {
  return {
    db,
    transaction<T>(run: (tx: DbOrTx) => Promise<T>): Promise<T> {
      return db.transaction((tx) => run(tx));
    },

    /** The trial's thresholds, the defaults where it has none. */
    async thresholdsOf(q: DbOrTx, trialId: number): Promise<CompletenessThresholds> {
      const [row] = await q
        .select()
        .from(completenessThresholds)
        .where(eq(completenessThresholds.trialId, trialId));
      return row ? pickThresholds(row) : { ...COMPLETENESS_DEFAULTS };
    },

    /** Thresholds of several trials (digest job), keyed by trial id; defaults for the missing. */
    async thresholdsOfTrials(
      trialIds: readonly number[],
    ): Promise<Map<number, CompletenessThresholds>> {
      const rows = trialIds.length
        ? await db
            .select()
            .from(completenessThresholds)
            .where(inArray(completenessThresholds.trialId, [...trialIds]))
        : [];
      const byTrial = new Map(rows.map((row) => [row.trialId, pickThresholds(row)]));
      return new Map(trialIds.map((id) => [id, byTrial.get(id) ?? { ...COMPLETENESS_DEFAULTS }]));
    },

    async saveThresholds(
      tx: DbOrTx,
      values: CompletenessThresholds & { trialId: number; teamId: number; userId: number },
    ): Promise<void> {
      const { trialId, teamId, userId, ...thresholds } = values;
      await tx
        .insert(completenessThresholds)
        .values({ trialId, teamId, updatedByUserId: userId, ...thresholds })
        .onConflictDoUpdate({
          target: completenessThresholds.trialId,
          set: { ...thresholds, updatedByUserId: userId, updatedAt: new Date() },
        });
    },

    async isSubscribed(userId: number, trialId: number): Promise<boolean> {
      const rows = await db
        .select({ userId: completenessDigestSubscriptions.userId })
        .from(completenessDigestSubscriptions)
        .where(
          and(
            eq(completenessDigestSubscriptions.userId, userId),
            eq(completenessDigestSubscriptions.trialId, trialId),
          ),
        );
      return rows.length > 0;
    },

    async setSubscribed(
      userId: number,
      trialId: number,
      teamId: number,
      subscribed: boolean,
    ): Promise<void> {
      if (subscribed) {
        await db
          .insert(completenessDigestSubscriptions)
          .values({ userId, trialId, teamId })
          .onConflictDoNothing();
      } else {
        await db
          .delete(completenessDigestSubscriptions)
          .where(
            and(
              eq(completenessDigestSubscriptions.userId, userId),
              eq(completenessDigestSubscriptions.trialId, trialId),
            ),
          );
      }
    },

    /**
     * Subscribed users who may still see the trial: active staff with a role in its Active
     * team, and for User and Viewer a trial user of it (decision 0009). The same rule as the
     * access checks of the requests; kept here, in one query, until the access module
     * answers it for jobs.
     */
    async digestRecipients(now: Date): Promise<DigestRecipient[]> {
      return db
        .selectDistinct({
          userId: users.id,
          email: users.email,
          trialId: trials.id,
          teamId: trials.teamId,
          trialNumber: trials.trialNumber,
          trialName: trials.trialName,
        })
        .from(completenessDigestSubscriptions)
        .innerJoin(users, eq(users.id, completenessDigestSubscriptions.userId))
        .innerJoin(trials, eq(trials.id, completenessDigestSubscriptions.trialId))
        .innerJoin(teams, eq(teams.id, trials.teamId))
        .innerJoin(
          teamUserMappings,
          and(eq(teamUserMappings.userId, users.id), eq(teamUserMappings.teamId, trials.teamId)),
        )
        .leftJoin(
          trialUsers,
          and(eq(trialUsers.trialId, trials.id), eq(trialUsers.userId, users.id)),
        )
        .where(
          and(
            eq(users.isActive, true),
            eq(users.accountType, 'staff'),
            eq(teams.isActive, true),
            sql`(${teams.subscriptionStarts} IS NULL OR ${teams.subscriptionStarts} <= ${now.toISOString()}::timestamptz)`,
            sql`(${teams.subscriptionEnds} IS NULL OR ${teams.subscriptionEnds} > ${now.toISOString()}::timestamptz)`,
            or(
              inArray(teamUserMappings.role, [...rolesFor('trial.viewAll')]),
              sql`${trialUsers.id} IS NOT NULL`,
            ),
          ),
        )
        .orderBy(users.id, trials.id);
    },

    /** Participants (id, code) of these trials, for the digest. */
    async participantsOfTrials(trialIds: readonly number[]) {
      if (trialIds.length === 0) return [];
      return db
        .select({
          id: participants.id,
          teamId: participants.teamId,
          trialId: participants.trialId,
          code: participants.participantCode,
        })
        .from(participants)
        .where(inArray(participants.trialId, [...trialIds]))
        .orderBy(participants.participantCode);
    },

    async alertStates(participantIds: readonly number[]): Promise<Map<number, string[]>> {
      if (participantIds.length === 0) return new Map();
      const rows = await db
        .select({
          participantId: completenessAlertStates.participantId,
          kinds: completenessAlertStates.kinds,
        })
        .from(completenessAlertStates)
        .where(inArray(completenessAlertStates.participantId, [...participantIds]));
      return new Map(rows.map((row) => [row.participantId, row.kinds]));
    },

    async saveAlertState(
      tx: DbOrTx,
      participantId: number,
      teamId: number,
      kinds: readonly string[],
    ): Promise<void> {
      await tx
        .insert(completenessAlertStates)
        .values({ participantId, teamId, kinds: [...kinds] })
        .onConflictDoUpdate({
          target: completenessAlertStates.participantId,
          set: { kinds: [...kinds], updatedAt: new Date() },
        });
    },

    /** Claims the digest of `day`; false when a run of that day exists already. */
    async claimDigestRun(tx: DbOrTx, day: string, mails: number): Promise<boolean> {
      const rows = await tx
        .insert(completenessDigestRuns)
        .values({ day, mails })
        .onConflictDoNothing()
        .returning({ day: completenessDigestRuns.day });
      return rows.length > 0;
    },
  };
}

export type CompletenessRepository = ReturnType<typeof createCompletenessRepository>;

function pickThresholds(row: typeof completenessThresholds.$inferSelect): CompletenessThresholds {
  return {
    minWearHours: row.minWearHours,
    minCgmUsagePercent: row.minCgmUsagePercent,
    minBpReadingsPerDay: row.minBpReadingsPerDay,
    maxDaysWithoutSync: row.maxDaysWithoutSync,
  };
}
