import { type DeviceBrandName } from '@trialpulse/shared';
import {
  DEVICE_DATA_ERROR_REASONS,
  DEVICE_DATA_MESSAGES,
  type ParticipantOverview,
  type StoredReadingRow,
} from '@trialpulse/shared/device-data/device-data.schemas';
import type { Clock } from '../../lib/clock';
import { AppError } from '../../lib/errors';
import type { AuthContext } from '../auth/session-context';
import type { DeviceConnectionsService } from '../devices/device-connections.service';
import type { BrandDataContext } from '../../providers';
import {
  ProviderRateLimitedError,
  ProviderUnavailableError,
} from '../devices/core/provider-errors';
import type { ReadingsListQuery, ReadingsService, StoredReading } from '../sync/readings.service';
import type { AccessService } from '../access/access.service';
import type { ParticipantsService } from '../participants/participants.service';

/** A provider failure as the spec's texts: 429 Too Many Requests, else a 502 the page shows. */
function providerDataError(failed: string, error: unknown): unknown {
  if (error instanceof AppError) return error;
  if (error instanceof ProviderRateLimitedError) {
    return new AppError(429, DEVICE_DATA_MESSAGES.tooManyRequests, {
      displayToUser: true,
      reason: DEVICE_DATA_ERROR_REASONS.rateLimited,
      headers: { 'retry-after': String(error.retryAfterSeconds) },
      cause: error,
    });
  }
  if (error instanceof ProviderUnavailableError && error.reason === 'invalid_response') {
    return new AppError(502, DEVICE_DATA_MESSAGES.invalidDataFormat, {
      displayToUser: true,
      reason: DEVICE_DATA_ERROR_REASONS.invalidResponse,
      cause: error,
    });
  }
  return new AppError(502, failed, {
    displayToUser: true,
    reason: DEVICE_DATA_ERROR_REASONS.providerFailed,
    cause: error,
  });
}

/**
 * A reading's value_json as the readings tables show it (Details column). The Google sleep
 * session a `sleep_stages` row keeps for the Fitbit data call (decision 0062, update
 * 2026-11-27) is left out: kilobytes of stages in one cell, where the nightly totals were.
 */
function shownValueJson(reading: Pick<StoredReading, 'metricKey' | 'valueJson'>): unknown {
  const json = reading.valueJson ?? null;
  if (
    reading.metricKey !== 'sleep_stages' ||
    !json ||
    typeof json !== 'object' ||
    !('session' in json)
  )
    return json;
  const { session: _session, ...shown } = json as Record<string, unknown>;
  return shown;
}

/**
 * The device data calls (device-data §7): stored readings with provenance, the participant
 * overview, and what the brands' own data calls need (`brandData`). Those are answered from
 * stored readings when the sync covers the range (`ReadingsService.covers`), otherwise live
 * from the provider through the stored connection (refreshed and retried through the
 * single-flight refresh); both paths turn provider records into readings and readings into the
 * answer with the brand's one converter and presenter (its provider folder).
 */
export function createDeviceDataService(deps: {
  access: Pick<AccessService, 'requireParticipant'>;
  participants: Pick<ParticipantsService, 'allowedDevices'>;
  connections: Pick<DeviceConnectionsService, 'withConnection'>;
  readings: ReadingsService;
  clock: Clock;
}) {
  const { access, participants, connections, readings, clock } = deps;

  /** Every call asks the access module first: role, team, trial visibility (404, never 403). */
  const participantFor = async (
    auth: AuthContext,
    participantId: number,
    action: 'data.view' | 'data.viewRaw' = 'data.view',
  ) => {
    const ref = await access.requireParticipant(auth, participantId, action);
    return { id: ref.id, teamId: ref.teamId };
  };

  /**
   * What each brand's own data calls (`ProviderPlugin.dataRoutes`, in the brand's provider
   * folder) are lent: the access check, a provider call on the participant's connection with
   * the spec's error texts, the readings and the clock.
   */
  const brandData: BrandDataContext = {
    participantFor,
    async live(auth, scope, { brand, failed }, meta, call) {
      try {
        return await connections.withConnection(
          scope.teamId,
          scope.id,
          brand,
          { userId: auth.userId },
          meta,
          call,
        );
      } catch (error) {
        throw providerDataError(failed, error);
      }
    },
    readings,
    clock,
  };

  return {
    brandData,

    /** One page of the participant's stored readings of a brand, with provenance. */
    async storedReadings(
      auth: AuthContext,
      participantId: number,
      brand: DeviceBrandName,
      query: ReadingsListQuery,
      filter: { metricKeys?: string[]; from?: Date; to?: Date },
    ): Promise<{ rows: StoredReadingRow[]; total: number }> {
      const scope = await participantFor(auth, participantId);
      // Without a page the whole history could come back: a table always pages.
      const paged = query.page ? query : { ...query, page: { index: 0, size: 50 } };
      const page = await readings.page(
        { teamId: scope.teamId, participantId: scope.id, brand, ...filter },
        paged,
      );
      return {
        total: page.total,
        rows: page.rows.map((row) => ({
          metricKey: row.metricKey,
          recordedAt: row.recordedAt.toISOString(),
          endAt: row.endAt?.toISOString() ?? null,
          utcOffsetMinutes: row.utcOffsetMinutes,
          value: row.value,
          valueJson: shownValueJson(row),
          brand: row.brand,
          upstream: row.upstream,
          dataSource: row.dataSource,
          syncRunId: row.syncRunId,
          syncedAt: row.syncedAt.toISOString(),
        })),
      };
    },

    /** Per brand the team allows: the stored metrics with rows, first and last reading and the last value. */
    async overview(auth: AuthContext, participantId: number): Promise<ParticipantOverview> {
      const scope = await participantFor(auth, participantId);
      const [allowed, stats] = await Promise.all([
        participants
          .allowedDevices(auth, scope.teamId)
          .then((devices) => devices.map((device) => device.brand_name)),
        readings.stats(scope.teamId, scope.id),
      ]);
      const brands = await Promise.all(
        allowed.map(async (brand) => ({
          brand,
          metrics: await Promise.all(
            stats
              .filter((stat) => stat.brand === brand)
              .map(async (stat) => {
                const [last] = stat.latest
                  ? await readings.read(
                      {
                        teamId: scope.teamId,
                        participantId: scope.id,
                        brand,
                        metricKeys: [stat.metricKey],
                        from: stat.latest,
                        to: new Date(stat.latest.getTime() + 1),
                      },
                      { limit: 1 },
                    )
                  : [];
                return {
                  metricKey: stat.metricKey,
                  rows: stat.rows,
                  earliest: stat.earliest?.toISOString() ?? null,
                  latest: stat.latest?.toISOString() ?? null,
                  latestValue: last?.value ?? null,
                };
              }),
          ),
        })),
      );
      return { participantId: scope.id, brands };
    },
  };
}

export type DeviceDataService = ReturnType<typeof createDeviceDataService>;
