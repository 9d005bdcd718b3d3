import { and, asc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import {
  globalDeviceCatalog,
  participantDevices,
  participants,
  syncCallBudgets,
  syncCursors,
  syncRuns,
  syncStates,
  teams,
  type DeviceBrand,
  type DeviceUpstream,
  type SyncRunKind,
} from '../../db/schema';

export type CursorRow = typeof syncCursors.$inferSelect;

/** The error type of a run closed because its worker stopped (process killed, crashed). */
export const SYNC_WORKER_STOPPED = 'worker_stopped';
/** The error type of a run that found its lease gone (run out while it stalled, or taken over) and stopped. */
export const SYNC_LEASE_LOST = 'lease_lost';

/** The only code that touches the sync tables: cursors, runs, states and call budgets. */
export function createSyncRepository(db: Db) {
  return {
    db,
    transaction: db.transaction.bind(db),

    /** A participant's cursors of one brand and metric (one per connection of that brand). */
    async cursorsOf(teamId: number, participantId: number, brand: DeviceBrand, metricKey: string) {
      return db
        .select({
          participantDeviceId: syncCursors.participantDeviceId,
          backfillFrom: syncCursors.backfillFrom,
          syncedUntil: syncCursors.syncedUntil,
        })
        .from(syncCursors)
        .innerJoin(participantDevices, eq(participantDevices.id, syncCursors.participantDeviceId))
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, participantDevices.globalDeviceCatalogId),
        )
        .where(
          and(
            eq(participantDevices.participantId, participantId),
            eq(participantDevices.teamId, teamId),
            eq(globalDeviceCatalog.manufacturer, brand),
            eq(syncCursors.metricKey, metricKey),
          ),
        );
    },

    /**
     * Creates the cursor or moves it forward. `backfillFrom` is fixed when the cursor is
     * created (windows are fetched forward from it, so [backfillFrom, syncedUntil) is always
     * contiguous); `syncedUntil` never moves back.
     */
    async saveCursor(
      tx: DbOrTx,
      cursor: {
        participantDeviceId: number;
        metricKey: string;
        teamId: number;
        backfillFrom: Date;
        syncedUntil: Date | null;
        lastRunId: number | null;
      },
    ) {
      await tx
        .insert(syncCursors)
        .values(cursor)
        .onConflictDoUpdate({
          target: [syncCursors.participantDeviceId, syncCursors.metricKey],
          set: {
            syncedUntil: sql`greatest(${syncCursors.syncedUntil}, excluded.synced_until)`,
            lastRunId: sql`coalesce(excluded.last_run_id, ${syncCursors.lastRunId})`,
            updatedAt: sql`now()`,
          },
        });
    },
  };
}

export type SyncRepository = ReturnType<typeof createSyncRepository>;

/** What a sync run needs to know about one connection, its participant and team. */
export type SyncConnection = {
  id: number;
  teamId: number;
  participantId: number;
  brand: DeviceBrand;
  upstream: DeviceUpstream;
  providerUserId: string | null;
  authorizationStatus: string;
  needsReconsent: boolean;
  hasRefreshToken: boolean;
  /** Enrolment: when the participant was added to the trial. */
  enrolledAt: Date;
  teamRetentionDays: number | null;
};

/** A metric enabled in both layers for the connection's team device. */
export type EnabledMetric = { metricKey: string; retentionDays: number };

export type SyncStateRow = typeof syncStates.$inferSelect;
export type SyncRunRow = typeof syncRuns.$inferSelect;

/** The sync's own tables: connection context, enabled metrics, runs, states and call budgets. */
export function createSyncRunsRepository(db: Db) {
  return {
    db,
    transaction: db.transaction.bind(db),
    /** The cursor write, inside the transaction that stores a window's readings. */
    saveCursorIn: createSyncRepository(db).saveCursor,

    async connection(connectionId: number): Promise<SyncConnection | undefined> {
      const [row] = await db
        .select({
          id: participantDevices.id,
          teamId: participantDevices.teamId,
          participantId: participantDevices.participantId,
          brand: globalDeviceCatalog.manufacturer,
          upstream: participantDevices.upstream,
          providerUserId: participantDevices.providerUserId,
          authorizationStatus: participantDevices.authorizationStatus,
          needsReconsent: participantDevices.needsReconsent,
          hasRefreshToken: sql<boolean>`${participantDevices.refreshTokenEncrypted} is not null`,
          enrolledAt: participants.createdAt,
          teamRetentionDays: teams.retentionDays,
        })
        .from(participantDevices)
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, participantDevices.globalDeviceCatalogId),
        )
        .innerJoin(
          participants,
          and(
            eq(participants.id, participantDevices.participantId),
            eq(participants.teamId, participantDevices.teamId),
          ),
        )
        .innerJoin(teams, eq(teams.id, participantDevices.teamId))
        .where(eq(participantDevices.id, connectionId));
      return row;
    },

    /** The participants of a trial (the caller checked access to the trial). */
    async participantIdsOfTrial(teamId: number, trialId: number): Promise<number[]> {
      const rows = await db
        .select({ id: participants.id })
        .from(participants)
        .where(and(eq(participants.teamId, teamId), eq(participants.trialId, trialId)))
        .orderBy(asc(participants.id));
      return rows.map((row) => row.id);
    },

    /** A participant's connections with their brand (sync status). */
    async connectionsOfParticipant(teamId: number, participantId: number) {
      return db
        .select({
          id: participantDevices.id,
          brand: globalDeviceCatalog.manufacturer,
          upstream: participantDevices.upstream,
          needsReconsent: participantDevices.needsReconsent,
          lastSyncAt: participantDevices.lastSyncAt,
          lastSyncError: participantDevices.lastSyncError,
        })
        .from(participantDevices)
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, participantDevices.globalDeviceCatalogId),
        )
        .where(
          and(
            eq(participantDevices.teamId, teamId),
            eq(participantDevices.participantId, participantId),
          ),
        )
        .orderBy(asc(participantDevices.id));
    },

    /** Connections sync may work on: authorised, with a refresh token, not waiting for consent. */
    async syncableConnectionIds(): Promise<number[]> {
      const rows = await db
        .select({ id: participantDevices.id })
        .from(participantDevices)
        .where(
          and(
            eq(participantDevices.authorizationStatus, 'authorized'),
            eq(participantDevices.needsReconsent, false),
            isNotNull(participantDevices.refreshTokenEncrypted),
          ),
        )
        .orderBy(asc(participantDevices.id));
      return rows.map((row) => row.id);
    },

    /** The connection whose provider account is `providerUserId` on `upstream` (webhooks). */
    async connectionIdsOfProviderUser(
      upstream: DeviceUpstream,
      providerUserId: string,
    ): Promise<number[]> {
      const rows = await db
        .select({ id: participantDevices.id })
        .from(participantDevices)
        .where(
          and(
            eq(participantDevices.upstream, upstream),
            eq(participantDevices.providerUserId, providerUserId),
          ),
        );
      return rows.map((row) => row.id);
    },

    /**
     * Metrics enabled in both layers (device_metric_settings by the system administrator and
     * team_device_data_storage_settings by the team) for the team's devices of the
     * connection's brand — one Google account delivers the tracker's and the scale's data —
     * with the team layer's retention. Read at every window, so unticking stops collection.
     */
    async enabledMetrics(connectionId: number): Promise<EnabledMetric[]> {
      const result = await db.execute<{ metric_key: string; retention_days: number }>(sql`
        select t.metric_key, max(t.retention_days)::int as retention_days
        from participant_devices pd
        join global_device_catalog own on own.id = pd.global_device_catalog_id
        join team_supported_devices tsd on tsd.team_id = pd.team_id and tsd.is_active
        join global_device_catalog g on g.id = tsd.global_device_catalog_id and g.manufacturer = own.manufacturer
        join device_metric_settings d
          on d.team_supported_device_id = tsd.id and d.team_id = pd.team_id and d.is_enabled
        join team_device_data_storage_settings t
          on t.team_supported_device_id = tsd.id and t.team_id = pd.team_id and t.metric_key = d.metric_key and t.is_enabled
        where pd.id = ${connectionId}
        group by t.metric_key
        order by t.metric_key`);
      return result.rows.map((row) => ({
        metricKey: row.metric_key,
        retentionDays: Number(row.retention_days),
      }));
    },

    async cursorsOfConnection(connectionId: number): Promise<CursorRow[]> {
      return db.select().from(syncCursors).where(eq(syncCursors.participantDeviceId, connectionId));
    },

    async startRun(values: {
      teamId: number;
      participantDeviceId: number;
      upstream: DeviceUpstream;
      kind: SyncRunKind;
      jobId: string | null;
      metrics: string[];
      startedAt: Date;
    }): Promise<number> {
      const [row] = await db.insert(syncRuns).values(values).returning({ id: syncRuns.id });
      return row!.id;
    },

    async updateRun(
      tx: DbOrTx,
      runId: number,
      values: Partial<
        Pick<
          SyncRunRow,
          | 'providerCalls'
          | 'rowsInserted'
          | 'rowsUpdated'
          | 'rowsDeleted'
          | 'windows'
          | 'finishedAt'
          | 'outcome'
          | 'errorType'
        >
      >,
    ): Promise<void> {
      await tx.update(syncRuns).set(values).where(eq(syncRuns.id, runId));
    },

    /** Closes a run still `running` (not one the recovery closed meanwhile). */
    async closeRunIfRunning(
      runId: number,
      values: Pick<SyncRunRow, 'finishedAt' | 'outcome' | 'errorType'>,
    ): Promise<void> {
      await db
        .update(syncRuns)
        .set(values)
        .where(and(eq(syncRuns.id, runId), eq(syncRuns.outcome, 'running')));
    },

    async lastRuns(connectionIds: readonly number[]): Promise<SyncRunRow[]> {
      if (connectionIds.length === 0) return [];
      const result = await db.execute<{ id: number }>(sql`
        select distinct on (participant_device_id) id from sync_runs
        where participant_device_id in (${sql.join(
          connectionIds.map((id) => sql`${id}`),
          sql`, `,
        )})
        order by participant_device_id, started_at desc, id desc`);
      const ids = result.rows.map((row) => Number(row.id));
      if (ids.length === 0) return [];
      return db.select().from(syncRuns).where(inArray(syncRuns.id, ids));
    },

    async state(connectionId: number): Promise<SyncStateRow | undefined> {
      const [row] = await db
        .select()
        .from(syncStates)
        .where(eq(syncStates.participantDeviceId, connectionId));
      return row;
    },

    async states(connectionIds: readonly number[]): Promise<SyncStateRow[]> {
      if (connectionIds.length === 0) return [];
      return db
        .select()
        .from(syncStates)
        .where(inArray(syncStates.participantDeviceId, [...connectionIds]));
    },

    async saveState(
      tx: DbOrTx,
      state: { participantDeviceId: number; teamId: number } & Partial<
        Omit<SyncStateRow, 'participantDeviceId' | 'teamId' | 'createdAt'>
      >,
    ): Promise<void> {
      const { participantDeviceId, teamId, ...rest } = state;
      await tx
        .insert(syncStates)
        .values({ participantDeviceId, teamId, ...rest })
        .onConflictDoUpdate({
          target: syncStates.participantDeviceId,
          set: { ...rest, updatedAt: sql`now()` },
        });
    },

    /**
     * Spends one call of a budget (fixed windows aligned to the epoch, as providers count).
     * One statement: concurrent workers in any process never spend more than the limit
     * together. Returns null when spent, else the instant the next call is allowed.
     */
    async takeCall(
      budget: { scope: string; limit: number; windowSeconds: number },
      now: Date,
    ): Promise<Date | null> {
      const windowMs = budget.windowSeconds * 1000;
      const windowStart = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
      const result = await db.execute<{ calls_used: number }>(sql`
        insert into sync_call_budgets as b (scope, window_started_at, window_seconds, call_limit, calls_used)
        values (${budget.scope}, ${windowStart.toISOString()}::timestamptz, ${budget.windowSeconds}, ${budget.limit}, 1)
        on conflict (scope) do update set
          calls_used = case when b.window_started_at < excluded.window_started_at then 1 else b.calls_used + 1 end,
          window_started_at = greatest(b.window_started_at, excluded.window_started_at),
          window_seconds = excluded.window_seconds,
          call_limit = excluded.call_limit,
          updated_at = now()
        where (b.blocked_until is null or b.blocked_until <= ${now.toISOString()}::timestamptz)
          and (b.window_started_at < excluded.window_started_at or b.calls_used < excluded.call_limit)
        returning b.calls_used`);
      if (result.rows.length > 0) return null;
      const [row] = await db
        .select()
        .from(syncCallBudgets)
        .where(eq(syncCallBudgets.scope, budget.scope));
      const windowEnd = new Date(windowStart.getTime() + windowMs);
      if (row?.blockedUntil && row.blockedUntil > now) return row.blockedUntil;
      return windowEnd;
    },

    /**
     * Takes the connection's lease for `owner` (one attempt of a job) until `until`, when no
     * live one is held — not even by an earlier attempt of the same job. One statement, so
     * two processes never both get it. Returns the holder's lease end when it is taken, else
     * null.
     */
    async acquireLease(
      connectionId: number,
      teamId: number,
      owner: string,
      now: Date,
      until: Date,
    ): Promise<Date | null> {
      const result = await db.execute<{ lease_owner: string }>(sql`
        insert into sync_states as s (participant_device_id, team_id, lease_owner, lease_until)
        values (${connectionId}, ${teamId}, ${owner}, ${until.toISOString()}::timestamptz)
        on conflict (participant_device_id) do update set
          lease_owner = excluded.lease_owner, lease_until = excluded.lease_until, updated_at = now()
        where s.lease_until is null or s.lease_until <= ${now.toISOString()}::timestamptz
        returning s.lease_owner`);
      if (result.rows.length > 0) return null;
      const state = await this.state(connectionId);
      return state?.leaseUntil ?? until;
    },

    /**
     * The run's heartbeat and fence (decision 0121): moves the lease of `owner` on to `until`
     * when it still holds it, live at `now`. False when the lease ran out or another run took
     * it: the caller stops writing. Inside a window's transaction the update locks the lease
     * row until the commit, so a run taking the lease over waits for that commit and then
     * finds the lease renewed — a run that lost its lease never commits a window.
     * The end only ever moves on: background renewals are not awaited one by one, so under
     * load an earlier renewal may land after a later one (seen in a CI run: the lease went
     * back 30 s), and must not take back what the later one gave.
     */
    async renewLease(
      tx: DbOrTx,
      connectionId: number,
      owner: string,
      now: Date,
      until: Date,
    ): Promise<boolean> {
      const rows = await tx
        .update(syncStates)
        .set({
          leaseUntil: sql`greatest(${syncStates.leaseUntil}, ${until.toISOString()}::timestamptz)`,
        })
        .where(
          and(
            eq(syncStates.participantDeviceId, connectionId),
            eq(syncStates.leaseOwner, owner),
            sql`${syncStates.leaseUntil} > ${now.toISOString()}::timestamptz`,
          ),
        )
        .returning({ id: syncStates.participantDeviceId });
      return rows.length > 0;
    },

    /**
     * Closes the runs whose worker is gone (decision 0121): still `running` while their
     * connection's lease is no longer held by their job (released, run out, or taken by
     * another). A live run renews its lease (every quarter of its length, and at each window
     * it stores) and stops when a renewal fails, so none is touched. Marked failed with error type `worker_stopped`; answers what was closed.
     */
    async closeAbandonedRuns(
      now: Date,
    ): Promise<Array<{ id: number; participantDeviceId: number; kind: SyncRunKind }>> {
      const result = await db.execute<{
        id: number;
        participant_device_id: number;
        kind: SyncRunKind;
      }>(sql`
        update sync_runs r set outcome = 'failed', error_type = ${SYNC_WORKER_STOPPED}, finished_at = ${now.toISOString()}::timestamptz
        where r.outcome = 'running'
          and not exists (
            select 1 from sync_states s
            where s.participant_device_id = r.participant_device_id and s.lease_owner = r.job_id
              and s.lease_until > ${now.toISOString()}::timestamptz)
        returning r.id, r.participant_device_id, r.kind`);
      return result.rows.map((row) => ({
        id: Number(row.id),
        participantDeviceId: Number(row.participant_device_id),
        kind: row.kind,
      }));
    },

    async releaseLease(connectionId: number, owner: string): Promise<void> {
      await db
        .update(syncStates)
        .set({ leaseOwner: null, leaseUntil: null })
        .where(
          and(eq(syncStates.participantDeviceId, connectionId), eq(syncStates.leaseOwner, owner)),
        );
    },

    /** No call on this budget before `until` (a 429's Retry-After). */
    async blockBudget(scope: string, until: Date): Promise<void> {
      await db
        .update(syncCallBudgets)
        .set({
          blockedUntil: sql`greatest(coalesce(${syncCallBudgets.blockedUntil}, ${until.toISOString()}::timestamptz), ${until.toISOString()}::timestamptz)`,
        })
        .where(eq(syncCallBudgets.scope, scope));
    },
  };
}

export type SyncRunsRepository = ReturnType<typeof createSyncRunsRepository>;
