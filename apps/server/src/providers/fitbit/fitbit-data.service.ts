import { DEVICE_ERROR_REASONS } from '@trialpulse/shared';
import {
  FITBIT_DATA_MESSAGES,
  FITBIT_DATA_REASONS,
  parseFitbitResourcePath,
  type FitbitResourceRequest,
} from '@trialpulse/shared/device-data/fitbit-resource-path';
import type { FitbitOverviewResponse } from '@trialpulse/shared/device-data/fitbit-shapes';
import type { Clock } from '../../lib/clock';
import { AppError } from '../../lib/errors';
import type { Meta } from '../../lib/request-meta';
import type { AccessService } from '../../modules/access/access.service';
import type { AuthContext } from '../../modules/auth/session-context';
import {
  ProviderError,
  ProviderRateLimitedError,
  ProviderRequestError,
} from '../../modules/devices/core/provider-errors';
import type { DeviceConnectionsService } from '../../modules/devices/device-connections.service';
import type { FitbitLegacyClient } from '../fitbit-legacy/fitbit-legacy.client';
import type { GoogleHealthClient } from '../google-health/google-health.client';
import * as fitbitData from './fitbit-data';
import type { FitbitFamily } from './fitbit-family';
import type { ReadingsService } from '../../modules/sync/readings.service';
import type { DeviceDataRepository } from '../../modules/device-data/device-data.repository';

// The Fitbit brand's presenters (provider answers and stored readings → the Fitbit shapes).
const {
  activityIntradayFamily,
  activityLogListFamily,
  activitySeriesFamily,
  bodyLogFamily,
  cardioScoreFamily,
  foodsLogFamily,
  foodsSeriesFamily,
  googleApi,
  heartIntradayFamily,
  heartSeriesFamily,
  sleepFamily,
  sleepListFamily,
  spo2Family,
} = fitbitData;

const fail = (
  status: number,
  message: string,
  options: { cause?: unknown; reason?: string } = {},
) => new AppError(status, message, { displayToUser: true, ...options });

/** Every kind but the overview, which is made of the others. */
type Kind = Exclude<FitbitResourceRequest['kind'], 'overview'>;
type FamilyRequest = Extract<FitbitResourceRequest, { kind: Kind }>;

/** The translator of each resource family (decision 0062). */
const FAMILIES: { [K in Kind]: FitbitFamily<Extract<FitbitResourceRequest, { kind: K }>> } = {
  'activities-series': activitySeriesFamily,
  'activities-intraday': activityIntradayFamily,
  'heart-series': heartSeriesFamily,
  'heart-intraday': heartIntradayFamily,
  'body-log': bodyLogFamily,
  sleep: sleepFamily,
  spo2: spo2Family,
  cardioscore: cardioScoreFamily,
  'foods-log': foodsLogFamily,
  'foods-series': foodsSeriesFamily,
  'activities-list': activityLogListFamily,
  'sleep-list': sleepListFamily,
};

const familyOf = <R extends FamilyRequest>(request: R) =>
  FAMILIES[request.kind] as unknown as FitbitFamily<R>;

/**
 * GET /api/getFitbitServerParticipantData (device-data spec §7): a participant's Fitbit data
 * in the legacy Fitbit Web API's shapes. Stored readings answer when sync covers the range
 * (for the families the store can answer); otherwise the connection's upstream does (Google
 * Health translated, or the legacy API), with the token refreshed and the call retried once
 * when it has expired (decisions 0060, 0062).
 */
export function createFitbitDataService(deps: {
  access: Pick<AccessService, 'requireParticipant'>;
  connections: Pick<DeviceConnectionsService, 'withConnection'>;
  repository: Pick<DeviceDataRepository, 'emailOf'>;
  readings: Pick<ReadingsService, 'covers' | 'read'>;
  clock: Clock;
}) {
  const { access, connections, repository, readings, clock } = deps;

  async function checkEmail(
    auth: AuthContext,
    teamId: number,
    participantId: number,
    email: string,
  ) {
    // A team that hides emails gives its staff no email to send: the segment is not
    // compared then, so the call cannot be used to guess one (decision 0061).
    if (auth.user.hiddenFields.includes('email')) return;
    const stored = await repository.emailOf(teamId, participantId);
    if (stored !== null && stored !== email.trim().toLowerCase())
      throw fail(400, FITBIT_DATA_MESSAGES.badRequest);
  }

  /** Stored readings, when the family can be answered from them and sync covers every metric. */
  async function fromStore<R extends FamilyRequest>(
    scope: { teamId: number; participantId: number },
    family: FitbitFamily<R>,
    request: R,
  ) {
    const wanted = family.stored?.(request);
    if (!wanted || !family.fromStore) return undefined;
    for (const metricKey of wanted.metricKeys) {
      if (
        !(await readings.covers({
          ...scope,
          brand: 'Fitbit',
          metricKey,
          ...(wanted.coverage?.[metricKey] ?? wanted),
        }))
      )
        return undefined;
    }
    return family.fromStore(
      request,
      await readings.read({
        ...scope,
        brand: 'Fitbit',
        metricKeys: [...wanted.metricKeys, ...(wanted.alsoRead ?? [])],
        from: wanted.from,
        to: wanted.to,
        ...(wanted.localDays && { localDays: wanted.localDays }),
      }),
    );
  }

  function live<R extends FamilyRequest>(
    auth: AuthContext,
    ref: { id: number; teamId: number },
    family: FitbitFamily<R>,
    request: R,
    meta: Meta,
  ) {
    return connections.withConnection(
      ref.teamId,
      ref.id,
      'Fitbit',
      { userId: auth.userId },
      meta,
      async (client, token) => {
        if (client.upstream === 'fitbit-legacy') {
          const body = await (client as FitbitLegacyClient).getResource(
            token,
            family.legacyPath(request),
          );
          // The legacy answer is passed through as sent, once it has the promised shape.
          if (!family.legacySchema.safeParse(body).success) {
            throw fail(502, FITBIT_DATA_MESSAGES.couldNotGetData, {
              reason: FITBIT_DATA_REASONS.upstreamFailed,
            });
          }
          return body;
        }
        return family.google(request, googleApi(client as GoogleHealthClient, token));
      },
    );
  }

  return {
    /**
     * The answer for one resource path.
     * `allowStored: false` asks the upstream even when stored readings cover the range (the
     * contract tests compare both answers).
     * @throws AppError 400 (path or email), 404 (no access, or no data), 409 (not authorised),
     *   429 'Too Many Requests', 502 (upstream or refresh failed).
     */
    async get(
      auth: AuthContext,
      participantId: number,
      email: string,
      resourcePath: string,
      meta: Meta,
      query: Record<string, string | undefined> = {},
      options: { allowStored?: boolean } = {},
    ) {
      const ref = await access.requireParticipant(auth, participantId, 'data.view');
      await checkEmail(auth, ref.teamId, ref.id, email);
      const parsed = parseFitbitResourcePath(
        resourcePath,
        clock.now().toISOString().slice(0, 10),
        query,
      );
      if (!parsed.ok) throw fail(400, FITBIT_DATA_MESSAGES[parsed.error]);
      const { request } = parsed;
      const answerOf = async <R extends FamilyRequest>(part: R) => {
        const family = familyOf(part);
        const stored =
          options.allowStored === false
            ? undefined
            : await fromStore({ teamId: ref.teamId, participantId: ref.id }, family, part);
        if (stored !== undefined) return { answer: stored, empty: family.isEmpty(stored) };
        try {
          const answer = await live(auth, ref, family, part, meta);
          return { answer, empty: family.isEmpty(answer) };
        } catch (error) {
          throw toFitbitDataError(error);
        }
      };

      let answer: unknown;
      let empty: boolean;
      if (request.kind === 'overview') {
        ({ answer, empty } = await overviewOf(request, answerOf));
      } else {
        ({ answer, empty } = await answerOf(request));
      }
      if (empty)
        throw fail(404, FITBIT_DATA_MESSAGES.noData, { reason: FITBIT_DATA_REASONS.noData });
      return answer as Record<string, unknown> | unknown[];
    },
  };
}

/**
 * The overview tiles' resources (steps, distance, floors, heart, sleep, weight) over one
 * range, each answered as its own path would be (stored or live) and merged; a part without
 * data is an empty list, and only an overview with no data at all is "no data" (decision 0062).
 */
async function overviewOf(
  request: Extract<FitbitResourceRequest, { kind: 'overview' }>,
  answerOf: (part: FamilyRequest) => Promise<{ answer: unknown; empty: boolean }>,
): Promise<{ answer: FitbitOverviewResponse; empty: boolean }> {
  const range = { start: request.start, end: request.end };
  const series = (resource: 'steps' | 'distance' | 'floors') =>
    answerOf({ kind: 'activities-series', resource, tracker: false, ...range });
  // One after another: the parts share the connection's rate limit and token refresh.
  const parts = [
    await series('steps'),
    await series('distance'),
    await series('floors'),
    await answerOf({ kind: 'heart-series', ...range }),
    await answerOf({ kind: 'sleep', single: false, ...range }),
    await answerOf({ kind: 'body-log', resource: 'weight', ...range }),
  ];
  const [steps, distance, floors, heart, sleep, weight] = parts.map(
    (part) => part.answer as Record<string, unknown>,
  );
  return {
    answer: {
      'activities-steps': steps!['activities-steps'] as FitbitOverviewResponse['activities-steps'],
      'activities-distance': distance![
        'activities-distance'
      ] as FitbitOverviewResponse['activities-distance'],
      'activities-floors': floors![
        'activities-floors'
      ] as FitbitOverviewResponse['activities-floors'],
      'activities-heart': heart!['activities-heart'] as FitbitOverviewResponse['activities-heart'],
      sleep: sleep!.sleep as FitbitOverviewResponse['sleep'],
      weight: weight!.weight as FitbitOverviewResponse['weight'],
    },
    empty: parts.every((part) => part.empty),
  };
}

/**
 * Provider failures as the spec's Fitbit data errors (device-data spec §8); the Sys_Admin raw
 * page's call answers with the same.
 */
export function toFitbitDataError(error: unknown): unknown {
  if (error instanceof AppError) {
    if (error.reason === DEVICE_ERROR_REASONS.refreshFailed) {
      return new AppError(502, FITBIT_DATA_MESSAGES.refreshFailed, {
        displayToUser: true,
        reason: error.reason,
        cause: error,
      });
    }
    return error;
  }
  if (error instanceof ProviderRateLimitedError)
    return fail(429, FITBIT_DATA_MESSAGES.tooManyRequests, {
      cause: error,
      reason: FITBIT_DATA_REASONS.rateLimited,
    });
  if (error instanceof ProviderRequestError)
    return fail(400, FITBIT_DATA_MESSAGES.badRequest, { cause: error });
  if (error instanceof ProviderError)
    return fail(502, FITBIT_DATA_MESSAGES.couldNotGetData, {
      cause: error,
      reason: FITBIT_DATA_REASONS.upstreamFailed,
    });
  return error;
}

export type FitbitDataService = ReturnType<typeof createFitbitDataService>;
