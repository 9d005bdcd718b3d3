import { type DeviceBrandName, type ListQuery } from '@trialpulse/shared';
import {
  DEVICE_DATA_ERROR_REASONS,
  DEVICE_DATA_MESSAGES,
  OMRON_MESSAGES,
  parseDexcomQuery,
  type DexcomDataResponse,
  type OmronDataResponse,
  type ParticipantOverview,
  type StoredReadingRow,
  type omronQuerySchema,
} from '@trialpulse/shared/device-data/device-data.schemas';
import type { z } from 'zod';
import type { Clock } from '../../lib/clock';
import { AppError } from '../../lib/errors';
import type { Meta } from '../../lib/request-meta';
import type { AuthContext } from '../auth/session-context';
import type { DeviceConnectionsService } from '../devices/device-connections.service';
import { dexcomData, omronData, type DexcomClient, type OmronClient } from '../../providers';
import type { UpstreamClient } from '../devices/core/provider-registry';
import {
  ProviderRateLimitedError,
  ProviderUnavailableError,
} from '../devices/core/provider-errors';
import type { ReadingInput, ReadingsService, StoredReading } from '../sync/readings.service';
import type { AccessService } from '../access/access.service';
import type { ParticipantsService } from '../participants/participants.service';
import type { DeviceDataRepository, readingsList } from './device-data.repository';

// Each brand's one converter (provider answer → readings, the sync's too) and presenter.
const { dexcomMetricsOf, dexcomReadingsOf, fetchDexcom, presentDexcom } = dexcomData;
const {
  OMRON_METRICS,
  fetchOmron,
  omronReadingsOf,
  presentBloodPressure,
  presentWeight,
  selectLikeOmron,
} = omronData;

type OmronQueryInput = z.output<typeof omronQuerySchema>;

/** Omron filters on the local date: the earliest instant of a local day is 14 hours before its UTC start. */
const EARLIEST_OFFSET_MS = 14 * 3_600_000;
/** A `since` later than today in the earliest time zone is in the future for everyone. */
const LATEST_OFFSET_MS = 14 * 3_600_000;

/** A provider failure as the spec's texts: 429 Too Many Requests, else a 502 the page shows. */
function providerDataError(brand: 'Omron' | 'Dexcom', error: unknown): unknown {
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
  return new AppError(
    502,
    brand === 'Omron' ? DEVICE_DATA_MESSAGES.omronFailed : DEVICE_DATA_MESSAGES.dexcomFailed,
    {
      displayToUser: true,
      reason: DEVICE_DATA_ERROR_REASONS.providerFailed,
      cause: error,
    },
  );
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

/** Last one wins per key, as the write path de-duplicates: a live answer then equals a stored one. */
function dedupe(rows: readonly ReadingInput[]): ReadingInput[] {
  const unique = new Map<string, ReadingInput>();
  for (const row of rows) unique.set(`${row.metricKey}|${row.recordedAt.getTime()}`, row);
  return [...unique.values()];
}

/**
 * The device data calls (device-data §7): answered from stored readings when the sync
 * covers the range (`ReadingsService.covers`), otherwise live from the provider through the
 * stored connection (refreshed and retried through the single-flight refresh). Both paths
 * turn provider records into readings and readings into the answer with the same code.
 */
export function createDeviceDataService(deps: {
  access: Pick<AccessService, 'requireParticipant'>;
  participants: Pick<ParticipantsService, 'allowedDevices'>;
  connections: Pick<DeviceConnectionsService, 'withConnection'>;
  readings: ReadingsService;
  repository: DeviceDataRepository;
  clock: Clock;
}) {
  const { access, participants, connections, readings, repository, clock } = deps;

  /** Every call asks the access module first: role, team, trial visibility (404, never 403). */
  const participantFor = async (
    auth: AuthContext,
    participantId: number,
    action: 'data.view' | 'data.viewRaw' = 'data.view',
  ) => {
    const ref = await access.requireParticipant(auth, participantId, action);
    return { id: ref.id, teamId: ref.teamId };
  };

  /** Runs a provider call on the participant's connection of the brand. */
  async function live<T>(
    auth: AuthContext,
    scope: { id: number; teamId: number },
    brand: 'Omron' | 'Dexcom',
    meta: Meta,
    call: (client: UpstreamClient, accessToken: string) => Promise<T>,
  ): Promise<T> {
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
      throw providerDataError(brand, error);
    }
  }

  async function omronData(
    auth: AuthContext,
    participantId: number,
    query: OmronQueryInput,
    meta: Meta,
    options: { allowStored?: boolean } = {},
  ): Promise<OmronDataResponse> {
    const scope = await participantFor(auth, participantId);
    const now = clock.now();
    if (Date.parse(`${query.since}T00:00:00Z`) - LATEST_OFFSET_MS > now.getTime()) {
      throw AppError.badRequest(OMRON_MESSAGES.sinceInFuture, [
        { field: 'since', message: OMRON_MESSAGES.sinceInFuture },
      ]);
    }
    const metricKeys = OMRON_METRICS[query.queryStr];
    const from = new Date(Date.parse(`${query.since}T00:00:00Z`) - EARLIEST_OFFSET_MS);
    const owner = { participantId: scope.id, teamId: scope.teamId };
    const stored =
      options.allowStored !== false &&
      (await readings.covers({
        teamId: scope.teamId,
        participantId: scope.id,
        brand: 'Omron',
        metricKey: metricKeys[0]!,
        from,
        to: now,
      }));
    let rows: Array<ReadingInput | StoredReading>;
    if (stored) {
      rows = await readings.read({
        teamId: scope.teamId,
        participantId: scope.id,
        brand: 'Omron',
        metricKeys,
        from,
        to: new Date(now.getTime() + 86_400_000),
      });
    } else {
      const measurements = await live(auth, scope, 'Omron', meta, (client, token) =>
        fetchOmron(client as OmronClient, token, {
          category: query.queryStr,
          since: query.since,
          sortOrder: query.sortOrder,
          limit: query.limit,
        }),
      );
      rows = dedupe(omronReadingsOf(owner, measurements));
    }
    const source = stored ? 'stored' : 'live';
    const selection = { since: query.since, sortOrder: query.sortOrder, limit: query.limit };
    return query.queryStr === 'bloodpressure'
      ? { source, bloodPressure: selectLikeOmron(presentBloodPressure(rows), selection) }
      : { source, weight: selectLikeOmron(presentWeight(rows), selection) };
  }

  async function dexcomData(
    auth: AuthContext,
    participantId: number,
    queryText: string,
    meta: Meta,
    options: { allowStored?: boolean } = {},
  ): Promise<DexcomDataResponse> {
    const scope = await participantFor(auth, participantId);
    const parsed = parseDexcomQuery(queryText);
    if (!parsed.ok)
      throw AppError.badRequest(parsed.message, [{ field: 'query', message: parsed.message }]);
    const query = parsed.query;
    const metricKeys = dexcomMetricsOf(query);
    let stored = options.allowStored !== false;
    for (const metricKey of metricKeys) {
      if (!stored) break;
      // egv_trend_rate is written with egv; its coverage is egv's.
      if (metricKey === 'egv_trend_rate') continue;
      stored = await readings.covers({
        teamId: scope.teamId,
        participantId: scope.id,
        brand: 'Dexcom',
        metricKey,
        from: query.start,
        to: query.end,
      });
    }
    if (stored) {
      const rows = await readings.read({
        teamId: scope.teamId,
        participantId: scope.id,
        brand: 'Dexcom',
        metricKeys,
        from: query.start,
        to: query.end,
      });
      return presentDexcom(rows, query, 'stored');
    }
    const records = await live(auth, scope, 'Dexcom', meta, (client, token) =>
      fetchDexcom(client as DexcomClient, token, query),
    );
    return presentDexcom(
      dedupe(dexcomReadingsOf({ participantId: scope.id, teamId: scope.teamId }, records)),
      query,
      'live',
    );
  }

  return {
    omronData,
    dexcomData,

    /** Sys_Admin raw page: Omron's own answer for a query, as the client received it. */
    async omronRaw(auth: AuthContext, participantId: number, query: OmronQueryInput, meta: Meta) {
      const scope = await participantFor(auth, participantId, 'data.viewRaw');
      return live(auth, scope, 'Omron', meta, (client, token) =>
        fetchOmron(client as OmronClient, token, {
          category: query.queryStr,
          since: query.since,
          sortOrder: query.sortOrder,
          limit: query.limit,
        }),
      );
    },

    /** Sys_Admin raw page: Dexcom's own records for a query, as the client received them. */
    async dexcomRaw(auth: AuthContext, participantId: number, queryText: string, meta: Meta) {
      const scope = await participantFor(auth, participantId, 'data.viewRaw');
      const parsed = parseDexcomQuery(queryText);
      if (!parsed.ok)
        throw AppError.badRequest(parsed.message, [{ field: 'query', message: parsed.message }]);
      return live(auth, scope, 'Dexcom', meta, (client, token) =>
        fetchDexcom(client as DexcomClient, token, parsed.query),
      );
    },

    /** One page of the participant's stored readings of a brand, with provenance. */
    async storedReadings(
      auth: AuthContext,
      participantId: number,
      brand: DeviceBrandName,
      query: ListQuery<keyof typeof readingsList.sortable>,
      filter: { metricKeys?: string[]; from?: Date; to?: Date },
    ): Promise<{ rows: StoredReadingRow[]; total: number }> {
      const scope = await participantFor(auth, participantId);
      // Without a page the whole history could come back: a table always pages.
      const paged = query.page ? query : { ...query, page: { index: 0, size: 50 } };
      const page = await repository.page(
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
