import {
  DEVICE_DATA_MESSAGES,
  parseDexcomQuery,
  type DexcomDataResponse,
} from '@trialpulse/shared/device-data/device-data.schemas';
import { AppError } from '../../lib/errors';
import type { Meta } from '../../lib/request-meta';
import type { AuthContext } from '../../modules/auth/session-context';
import { dedupeReadings, type BrandDataContext } from '../data-calls';
import { dexcomMetricsOf, dexcomReadingsOf, fetchDexcom, presentDexcom } from './dexcom-data';
import type { DexcomClient } from './dexcom.client';

const DEXCOM = { brand: 'Dexcom', failed: DEVICE_DATA_MESSAGES.dexcomFailed } as const;

/** The query segment as Dexcom's records call takes it; 400 with the spec's text when malformed. */
function parsedQuery(queryText: string) {
  const parsed = parseDexcomQuery(queryText);
  if (!parsed.ok)
    throw AppError.badRequest(parsed.message, [{ field: 'query', message: parsed.message }]);
  return parsed.query;
}

/**
 * The Dexcom data calls (device-data §7, decision 0055): egvs, events, calibrations and
 * devices answered from stored readings when the sync covers every record type asked, else
 * live from Dexcom; both paths turn Dexcom's records into readings and readings into the
 * answer with the same functions (`dexcom-data.ts`).
 */
export function createDexcomDataCalls(context: BrandDataContext) {
  const { participantFor, live, readings } = context;

  return {
    /** The spec's Dexcom answer for one URL-encoded query segment. */
    async data(
      auth: AuthContext,
      participantId: number,
      queryText: string,
      meta: Meta,
      options: { allowStored?: boolean } = {},
    ): Promise<DexcomDataResponse> {
      const scope = await participantFor(auth, participantId);
      const query = parsedQuery(queryText);
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
      const records = await live(auth, scope, DEXCOM, meta, (client, token) =>
        fetchDexcom(client as DexcomClient, token, query),
      );
      return presentDexcom(
        dedupeReadings(
          dexcomReadingsOf({ participantId: scope.id, teamId: scope.teamId }, records),
        ),
        query,
        'live',
      );
    },

    /** Sys_Admin raw page: Dexcom's own records for a query, as the client received them. */
    async raw(auth: AuthContext, participantId: number, queryText: string, meta: Meta) {
      const scope = await participantFor(auth, participantId, 'data.viewRaw');
      const query = parsedQuery(queryText);
      return live(auth, scope, DEXCOM, meta, (client, token) =>
        fetchDexcom(client as DexcomClient, token, query),
      );
    },
  };
}

export type DexcomDataCalls = ReturnType<typeof createDexcomDataCalls>;
