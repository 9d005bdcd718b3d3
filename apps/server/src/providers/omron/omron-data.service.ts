import {
  DEVICE_DATA_MESSAGES,
  OMRON_MESSAGES,
  type OmronDataResponse,
  type omronQuerySchema,
} from '@trialpulse/shared/device-data/device-data.schemas';
import type { z } from 'zod';
import { AppError } from '../../lib/errors';
import type { Meta } from '../../lib/request-meta';
import type { AuthContext } from '../../modules/auth/session-context';
import type { ReadingInput, StoredReading } from '../../modules/sync/readings.service';
import { dedupeReadings, type BrandDataContext } from '../data-calls';
import {
  OMRON_METRICS,
  fetchOmron,
  omronReadingsOf,
  presentBloodPressure,
  presentWeight,
  selectLikeOmron,
} from './omron-data';
import type { OmronClient } from './omron.client';

export type OmronQueryInput = z.output<typeof omronQuerySchema>;

/** Omron filters on the local date: the earliest instant of a local day is 14 hours before its UTC start. */
const EARLIEST_OFFSET_MS = 14 * 3_600_000;
/** A `since` later than today in the earliest time zone is in the future for everyone. */
const LATEST_OFFSET_MS = 14 * 3_600_000;

const OMRON = { brand: 'Omron', failed: DEVICE_DATA_MESSAGES.omronFailed } as const;

/**
 * The Omron data calls (device-data §7, decision 0055): blood pressure or weight answered from
 * stored readings when the sync covers the range, else live from Omron; both paths turn
 * Omron's measurements into readings and readings into the answer with the same functions
 * (`omron-data.ts`).
 */
export function createOmronDataCalls(context: BrandDataContext) {
  const { participantFor, live, readings, clock } = context;

  const fetchFor = (query: OmronQueryInput) => (client: unknown, token: string) =>
    fetchOmron(client as OmronClient, token, {
      category: query.queryStr,
      since: query.since,
      sortOrder: query.sortOrder,
      limit: query.limit,
    });

  return {
    /** The spec's Omron answer; 400 when `since` is in the future for every time zone. */
    async data(
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
        const measurements = await live(auth, scope, OMRON, meta, fetchFor(query));
        rows = dedupeReadings(omronReadingsOf(owner, measurements));
      }
      const source = stored ? 'stored' : 'live';
      const selection = { since: query.since, sortOrder: query.sortOrder, limit: query.limit };
      return query.queryStr === 'bloodpressure'
        ? { source, bloodPressure: selectLikeOmron(presentBloodPressure(rows), selection) }
        : { source, weight: selectLikeOmron(presentWeight(rows), selection) };
    },

    /** Sys_Admin raw page: Omron's own answer for a query, as the client received it. */
    async raw(auth: AuthContext, participantId: number, query: OmronQueryInput, meta: Meta) {
      const scope = await participantFor(auth, participantId, 'data.viewRaw');
      return live(auth, scope, OMRON, meta, fetchFor(query));
    },
  };
}

export type OmronDataCalls = ReturnType<typeof createOmronDataCalls>;
