import {
  FITBIT_DATA_MESSAGES,
  datesBetween,
  parseFitbitResourcePath,
} from '@trialpulse/shared/device-data/fitbit-resource-path';
import type { Clock } from '../../lib/clock';
import { AppError } from '../../lib/errors';
import type { Meta } from '../../lib/request-meta';
import type { AccessService } from '../../modules/access/access.service';
import type { AuthContext } from '../../modules/auth/session-context';
import type { DeviceConnectionsService } from '../../modules/devices/device-connections.service';
import type { FitbitLegacyClient } from '../fitbit-legacy/fitbit-legacy.client';
import type { DailyRollupPoint, GoogleHealthClient } from '../google-health/google-health.client';
import * as fitbitData from './fitbit-data';
import { toFitbitDataError } from './fitbit-data.service';

const { GOOGLE_SERIES } = fitbitData;

const DAY_MS = 86_400_000;

/** A legacy resource path as the data page builds it: plain segments, no traversal, `.json`. */
const LEGACY_PATH =
  /^(?:[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\/){1,8}[A-Za-z0-9_:-]+(?:\.[A-Za-z0-9_-]+)*\.json$/;

export type FitbitRawAnswer = {
  upstream: 'google-health' | 'fitbit-legacy';
  /** What was asked of the upstream: the legacy path, or Google's data type and days. */
  request: string;
  answer: unknown;
};

const fail = (
  status: number,
  message: string,
  options: { cause?: unknown; reason?: string } = {},
) => new AppError(status, message, { displayToUser: true, ...options });

/**
 * /FitbitParticipantDataRaw (Sys_Admin): the upstream's own answer for a data page query,
 * fetched now and not translated — a legacy connection gets the legacy path as asked
 * (`/1/user/-/…`, sleep `/1.2/user/-/…`), a Google Health connection the `dailyRollUp`
 * points of the query's data type (the call the data page's live path makes).
 * @throws AppError 404 (another team, unseen trial), 400 (path), 409 (not linked),
 * 429 'Too Many Requests', 502 (upstream or refresh failure).
 */
export function createFitbitRawService(deps: {
  access: Pick<AccessService, 'requireParticipant'>;
  connections: Pick<DeviceConnectionsService, 'withConnection'>;
  clock: Clock;
}) {
  const { access, connections, clock } = deps;
  return {
    async get(
      auth: AuthContext,
      participantId: number,
      resourcePath: string,
      meta: Meta,
    ): Promise<FitbitRawAnswer> {
      const ref = await access.requireParticipant(auth, participantId, 'data.viewRaw');
      const path = resourcePath.replace(/^\/+/, '');
      if (path === '' || path.length > 300 || !LEGACY_PATH.test(path))
        throw fail(400, FITBIT_DATA_MESSAGES.badRequest);
      try {
        return await connections.withConnection(
          ref.teamId,
          ref.id,
          'Fitbit',
          { userId: auth.userId },
          meta,
          async (client, token) => {
            if (client.upstream === 'fitbit-legacy') {
              const request = `/${path.startsWith('sleep/') ? '1.2' : '1'}/user/-/${path}`;
              return {
                upstream: 'fitbit-legacy',
                request,
                answer: await (client as FitbitLegacyClient).getResource(token, request),
              };
            }
            const parsed = parseFitbitResourcePath(path, clock.now().toISOString().slice(0, 10));
            if (!parsed.ok) throw fail(400, FITBIT_DATA_MESSAGES[parsed.error]);
            // Google Health's own answer is shown for the daily series (its dailyRollUp);
            // the other paths have no one upstream call to show.
            const series = parsed.request;
            if (series.kind !== 'activities-series')
              throw fail(400, FITBIT_DATA_MESSAGES.badRequest);
            const { dataType, maxDays } = GOOGLE_SERIES[series.resource];
            const dates = datesBetween(series.start, series.end);
            const points: DailyRollupPoint[] = [];
            for (let index = 0; index < dates.length; index += maxDays) {
              const last = dates[Math.min(index + maxDays, dates.length) - 1]!;
              const endExclusive = new Date(Date.parse(`${last}T00:00:00Z`) + DAY_MS)
                .toISOString()
                .slice(0, 10);
              points.push(
                ...(await (client as GoogleHealthClient).dailyRollUp(
                  token,
                  dataType,
                  dates[index]!,
                  endExclusive,
                )),
              );
            }
            return {
              upstream: 'google-health',
              request: `dataTypes/${dataType}/dataPoints:dailyRollUp ${series.start}..${series.end}`,
              answer: points,
            };
          },
        );
      } catch (error) {
        // The data page's errors, as getFitbitServerParticipantData answers them.
        throw toFitbitDataError(error);
      }
    },
  };
}

export type FitbitRawService = ReturnType<typeof createFitbitRawService>;
