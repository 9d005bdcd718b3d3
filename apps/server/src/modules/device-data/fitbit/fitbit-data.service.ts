import { DEVICE_ERROR_REASONS } from '@trialpulse/shared';
import {
  FITBIT_ACTIVITY_SERIES,
  FITBIT_DATA_MESSAGES,
  FITBIT_DATA_REASONS,
  datesBetween,
  parseFitbitResourcePath,
  type FitbitResourceRequest,
} from '@trialpulse/shared/device-data/fitbit-resource-path';
import type { FitbitActivitySeriesResponse } from '@trialpulse/shared/device-data/fitbit-shapes';
import type { Clock } from '../../../lib/clock';
import { AppError } from '../../../lib/errors';
import type { Meta } from '../../../lib/request-meta';
import type { AccessService } from '../../access/access.service';
import type { AuthContext } from '../../auth/session-context';
import { ProviderError, ProviderRateLimitedError, ProviderRequestError } from '../../devices/core/provider-errors';
import type { DeviceConnectionsService } from '../../devices/device-connections.service';
import type { DailyRollupPoint, GoogleHealthClient } from '../../devices/fitbit/google-health.client';
import type { FitbitLegacyClient } from '../../devices/fitbit/fitbit-legacy.client';
import type { ReadingsService } from '../../sync/readings.service';
import type { FitbitDataRepository } from './fitbit-data.repository';
import { GOOGLE_SERIES, isEmptySeries, seriesFromLegacy, seriesFromReadings, seriesFromRollups } from './fitbit-data.translator';

const DAY_MS = 86_400_000;

const fail = (status: number, message: string, options: { cause?: unknown; reason?: string } = {}) =>
  new AppError(status, message, { displayToUser: true, ...options });

/**
 * GET /api/getFitbitServerParticipantData (device-data spec §7): a participant's Fitbit data
 * in the legacy Fitbit Web API's shapes. Stored readings answer when sync covers the range;
 * otherwise the connection's upstream does (Google Health translated, or the legacy API),
 * with the token refreshed and the call retried once when it has expired (decision 0060).
 */
export function createFitbitDataService(deps: {
  access: Pick<AccessService, 'requireParticipant'>;
  connections: Pick<DeviceConnectionsService, 'withConnection'>;
  repository: FitbitDataRepository;
  readings: Pick<ReadingsService, 'covers' | 'read'>;
  clock: Clock;
}) {
  const { access, connections, repository, readings, clock } = deps;

  async function checkEmail(auth: AuthContext, teamId: number, participantId: number, email: string) {
    // A team that hides emails gives its staff no email to send: the segment is not
    // compared then, so the call cannot be used to guess one (decision 0061).
    if (auth.user.hiddenFields.includes('email')) return;
    const stored = await repository.emailOf(teamId, participantId);
    if (stored !== null && stored !== email.trim().toLowerCase()) throw fail(400, FITBIT_DATA_MESSAGES.badRequest);
  }

  async function live(
    auth: AuthContext,
    ref: { id: number; teamId: number },
    request: FitbitResourceRequest,
    meta: Meta,
  ): Promise<FitbitActivitySeriesResponse> {
    return connections.withConnection(ref.teamId, ref.id, 'Fitbit', { userId: auth.userId }, meta, async (client, token) => {
      if (client.upstream === 'fitbit-legacy') {
        const body = await (client as FitbitLegacyClient).getResource(
          token,
          `/1/user/-/activities/${request.resource}/date/${request.start}/${request.end}.json`,
        );
        const series = seriesFromLegacy(request, body);
        if (!series) throw fail(502, FITBIT_DATA_MESSAGES.couldNotGetData, { reason: FITBIT_DATA_REASONS.upstreamFailed });
        return series;
      }
      const google = client as GoogleHealthClient;
      const { dataType, maxDays } = GOOGLE_SERIES[request.resource];
      const dates = datesBetween(request.start, request.end);
      const points: DailyRollupPoint[] = [];
      // Rollups span at most maxDays: ask in consecutive chunks, ends exclusive.
      for (let index = 0; index < dates.length; index += maxDays) {
        const first = dates[index]!;
        const endExclusive = new Date(Date.parse(`${dates[Math.min(index + maxDays, dates.length) - 1]}T00:00:00Z`) + DAY_MS)
          .toISOString()
          .slice(0, 10);
        points.push(...(await google.dailyRollUp(token, dataType, first, endExclusive)));
      }
      return seriesFromRollups(request, points);
    });
  }

  return {
    async get(auth: AuthContext, participantId: number, email: string, resourcePath: string, meta: Meta) {
      const ref = await access.requireParticipant(auth, participantId, 'data.view');
      await checkEmail(auth, ref.teamId, ref.id, email);
      const parsed = parseFitbitResourcePath(resourcePath, clock.now().toISOString().slice(0, 10));
      if (!parsed.ok) throw fail(400, FITBIT_DATA_MESSAGES[parsed.error]);
      const { request } = parsed;
      const metricKey = FITBIT_ACTIVITY_SERIES[request.resource];
      const from = new Date(`${request.start}T00:00:00Z`);
      const to = new Date(Date.parse(`${request.end}T00:00:00Z`) + DAY_MS);
      const scope = { teamId: ref.teamId, participantId: ref.id };

      let series: FitbitActivitySeriesResponse;
      if (await readings.covers({ ...scope, brand: 'Fitbit', metricKey, from, to })) {
        series = seriesFromReadings(request, await readings.read({ ...scope, brand: 'Fitbit', metricKeys: [metricKey], from, to }));
      } else {
        try {
          series = await live(auth, ref, request, meta);
        } catch (error) {
          throw toDataError(error);
        }
      }
      if (isEmptySeries(series)) throw fail(404, FITBIT_DATA_MESSAGES.noData, { reason: FITBIT_DATA_REASONS.noData });
      return series;
    },
  };
}

/** Provider failures as the spec's Fitbit data errors (device-data spec §8). */
function toDataError(error: unknown): unknown {
  if (error instanceof AppError) {
    if (error.reason === DEVICE_ERROR_REASONS.refreshFailed) {
      return new AppError(502, FITBIT_DATA_MESSAGES.refreshFailed, { displayToUser: true, reason: error.reason, cause: error });
    }
    return error;
  }
  if (error instanceof ProviderRateLimitedError) return fail(429, FITBIT_DATA_MESSAGES.tooManyRequests, { cause: error, reason: FITBIT_DATA_REASONS.rateLimited });
  if (error instanceof ProviderRequestError) return fail(400, FITBIT_DATA_MESSAGES.badRequest, { cause: error });
  if (error instanceof ProviderError) return fail(502, FITBIT_DATA_MESSAGES.couldNotGetData, { cause: error, reason: FITBIT_DATA_REASONS.upstreamFailed });
  return error;
}

export type FitbitDataService = ReturnType<typeof createFitbitDataService>;
