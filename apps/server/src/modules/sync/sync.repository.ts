import { and, eq, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import {
  globalDeviceCatalog,
  participantDevices,
  syncCursors,
  type DeviceBrand,
} from '../../db/schema';

export type CursorRow = typeof syncCursors.$inferSelect;

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
        .innerJoin(globalDeviceCatalog, eq(globalDeviceCatalog.id, participantDevices.globalDeviceCatalogId))
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
      cursor: { participantDeviceId: number; metricKey: string; teamId: number; backfillFrom: Date; syncedUntil: Date | null; lastRunId: number | null },
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
