import type { ConnectionSyncStatus, SyncState, TrialLastData } from '@trialpulse/shared';
import type { Clock } from '../../lib/clock';
import type { AuthContext } from '../auth/session-context';
import type { AccessService } from '../access/access.service';
import type { ReadingsService } from './readings.service';
import type { SyncRunsRepository } from './sync.repository';
import type { DeviceUpstream } from '../../db/schema';
import { SYNC_SOURCES } from './sources';
import { nextScheduleTick } from './sync.service';

/**
 * Sync status for staff: per connection of a participant (state, backfill progress, back-off,
 * last sync, readings stored) and the latest reading per participant of a trial (the trial
 * page's "last data N days ago" badge). The access module decides visibility (`data.view`:
 * team and trial-user rules); a participant or trial the caller may not see answers 404.
 */
export function createSyncStatusService(deps: {
  access: Pick<AccessService, 'requireParticipant' | 'requireTrial'>;
  runs: SyncRunsRepository;
  readings: ReadingsService;
  clock: Clock;
}) {
  const { access, runs, readings, clock } = deps;
  return {
    async participantStatus(
      auth: AuthContext,
      participantId: number,
    ): Promise<ConnectionSyncStatus[]> {
      const ref = await access.requireParticipant(auth, participantId, 'data.view');
      const connections = await runs.connectionsOfParticipant(ref.teamId, ref.id);
      if (connections.length === 0) return [];
      const ids = connections.map((connection) => connection.id);
      const [states, stats] = await Promise.all([
        runs.states(ids),
        readings.stats(ref.teamId, ref.id),
      ]);
      const now = clock.now();
      const result: ConnectionSyncStatus[] = [];
      for (const connection of connections) {
        const state = states.find((row) => row.participantDeviceId === connection.id);
        const [cursors, enabled] = await Promise.all([
          runs.cursorsOfConnection(connection.id),
          runs.enabledMetrics(connection.id),
        ]);
        const metrics = stats
          .filter((row) => row.brand === connection.brand)
          .map((row) => ({
            metricKey: row.metricKey,
            rows: row.rows,
            earliest: row.earliest?.toISOString() ?? null,
            latest: row.latest?.toISOString() ?? null,
          }));
        const rowsStored = metrics.reduce((sum, row) => sum + row.rows, 0);
        const earliest =
          metrics
            .map((row) => row.earliest)
            .filter(Boolean)
            .sort()[0] ?? null;
        const latest =
          metrics
            .map((row) => row.latest)
            .filter(Boolean)
            .sort()
            .at(-1) ?? null;
        // Backfill progress: the share of [backfill_from, now) every cursor has fetched.
        let fetched = 0;
        let total = 0;
        for (const cursor of cursors) {
          const span = now.getTime() - cursor.backfillFrom.getTime();
          if (span <= 0) continue;
          total += span;
          fetched += Math.min(
            span,
            Math.max(
              0,
              (cursor.syncedUntil?.getTime() ?? cursor.backfillFrom.getTime()) -
                cursor.backfillFrom.getTime(),
            ),
          );
        }
        // A metric enabled in both layers whose first window is not stored yet (no cursor) is
        // still to be backfilled: until then its readings are not all there.
        // Only metrics the connection's upstream delivers count: another never gets a cursor.
        const withCursor = new Set(cursors.map((cursor) => cursor.metricKey));
        const delivered = new Set(
          SYNC_SOURCES[connection.upstream as DeviceUpstream]?.streams.flatMap(
            (stream) => stream.metrics,
          ) ?? [],
        );
        const backfilling =
          enabled.some(
            (metric) => delivered.has(metric.metricKey) && !withCursor.has(metric.metricKey),
          ) ||
          cursors.some(
            (cursor) =>
              !cursor.syncedUntil || now.getTime() - cursor.syncedUntil.getTime() > 2 * 86_400_000,
          );
        let syncState: SyncState;
        if (connection.needsReconsent) syncState = 'needs_reconsent';
        else if (state?.backoffUntil && state.backoffUntil > now) syncState = 'backing_off';
        else if (cursors.length === 0) syncState = 'not_synced';
        else if (backfilling) syncState = 'backfilling';
        else if (state?.lastOutcome === 'failed') syncState = 'error';
        else syncState = 'up_to_date';
        result.push({
          participantId: ref.id,
          brand: connection.brand,
          upstream: connection.upstream,
          state: syncState,
          backfillPercent:
            syncState === 'backfilling' && total > 0
              ? Math.min(99, Math.floor((fetched / total) * 100))
              : null,
          backoffUntil: syncState === 'backing_off' ? state!.backoffUntil!.toISOString() : null,
          errorType: state?.lastErrorType ?? connection.lastSyncError ?? null,
          lastSyncAt: (state?.lastSuccessAt ?? connection.lastSyncAt)?.toISOString() ?? null,
          earliestReading: earliest,
          latestReading: latest,
          rowsStored,
          metrics,
          nextSyncAt:
            syncState === 'needs_reconsent'
              ? null
              : nextScheduleTick(
                  syncState === 'backing_off' ? new Date(state!.backoffUntil!.getTime() - 1) : now,
                ).toISOString(),
          enabledMetrics: enabled.map((metric) => metric.metricKey),
        });
      }
      return result;
    },

    async trialLastData(auth: AuthContext, trialId: number): Promise<TrialLastData> {
      const trial = await access.requireTrial(auth, trialId, 'data.view');
      const ids = await runs.participantIdsOfTrial(trial.teamId, trial.id);
      const latest = await readings.latestByParticipant(trial.teamId, ids);
      const byId = new Map(latest.map((row) => [row.participantId, row.latest]));
      return {
        participants: ids.map((id) => ({
          participantId: id,
          latestReading: byId.get(id)?.toISOString() ?? null,
        })),
      };
    },
  };
}

export type SyncStatusService = ReturnType<typeof createSyncStatusService>;
