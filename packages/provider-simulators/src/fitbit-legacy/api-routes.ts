import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findAccount } from '../common/accounts';
import { localDateOf } from '../common/civil-time';
import type { SimulatedClock } from '../common/clock';
import { type FaultController, applyTransportFault, isTransportFault } from '../common/faults';
import type { OAuthStore } from '../common/oauth';
import type { FixedWindowRateLimiter, RateLimitResult } from '../common/rate-limit';
import { requestBaseUrl, routeConfig } from '../common/server';
import { trackerSyncedUntil, wearableModel } from '../common/wearable-model';
import { type FitbitErrorBody, fitbitErrors, sendFitbitError } from './errors';
import { endGraceWindow } from './oauth-routes';
import { activityResources } from './resources/activities';
import { bodyResources } from './resources/body';
import type { FitbitCaller, FitbitResource } from './resources/context';
import { healthMetricResources } from './resources/health-metrics';
import { heartResources } from './resources/heart';
import { nutritionResources } from './resources/nutrition';
import { sleepResources } from './resources/sleep';
import { userResources } from './resources/user';
import { unitSystemOf } from './units';

/**
 * The data API: GET /1/user/{user-id}/… and /1.2/user/{user-id}/sleep/…. Each request:
 * bearer token (401 expired_token / invalid_token) → counted against 150 requests per user
 * and app per clock hour, with the three Fitbit-Rate-Limit-* headers on every answer →
 * injected faults → 429 when over → user id `-` or the token's own → scope → resource.
 */

export const FITBIT_REQUESTS_PER_HOUR = 150;

export interface FitbitApiDeps {
  clock: SimulatedClock;
  oauth: OAuthStore;
  faults: FaultController;
  limiter: FixedWindowRateLimiter;
}

const RESOURCES: FitbitResource[] = [
  ...userResources,
  ...heartResources,
  ...activityResources,
  ...sleepResources,
  ...bodyResources,
  ...nutritionResources,
  ...healthMetricResources,
];

export function registerFitbitApiRoutes(app: FastifyInstance, deps: FitbitApiDeps): void {
  const config = routeConfig('api');
  for (const version of ['1', '1.2'] as const) {
    app.get(`/${version}/user/:userId/*`, { config }, (request, reply) =>
      handleRequest(deps, version, request, reply),
    );
  }
}

/** Fitbit-Rate-Limit-* headers; Reset is seconds until the top of the hour (simulated clock). */
export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  return {
    'fitbit-rate-limit-limit': String(result.limit),
    'fitbit-rate-limit-remaining': String(result.remaining),
    'fitbit-rate-limit-reset': String(Math.ceil(result.resetInMs / 1000)),
  };
}

async function handleRequest(
  deps: FitbitApiDeps,
  version: '1' | '1.2',
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const header = request.headers.authorization;
  if (!header || !/^bearer\s+\S/i.test(header))
    return sendFitbitError(reply, 401, fitbitErrors.missingAuthorization());
  const token = header.replace(/^bearer\s+/i, '').trim();
  const found = deps.oauth.accessToken(token);
  if (!found || found.state === 'revoked')
    return sendFitbitError(reply, 401, fitbitErrors.invalidToken(token));
  if (found.state === 'expired')
    return sendFitbitError(reply, 401, fitbitErrors.expiredToken(token));
  const account = findAccount(found.grant.accountId);
  if (!account) return sendFitbitError(reply, 401, fitbitErrors.invalidToken(token));
  if (found.record.firstUsedAt === null) {
    found.record.firstUsedAt = deps.clock.nowMs();
    // The first use of a refreshed pair ends the old refresh token's grace window.
    endGraceWindow(deps.oauth, found.record.parentRefreshToken);
  }

  const now = deps.clock.nowMs();
  const rate = deps.limiter.hit(`${account.id}|${found.grant.clientId}`, now);
  const headers = rateLimitHeaders(rate);
  const tooMany = () =>
    sendFitbitError(reply, 429, fitbitErrors.tooManyRequests(), {
      ...headers,
      'retry-after': headers['fitbit-rate-limit-reset'] ?? '3600',
    });

  const fault = deps.faults.take('api', request.url, account.id);
  if (fault) {
    if (isTransportFault(fault)) {
      if (await applyTransportFault(fault, request, reply)) return reply;
    } else if (fault.kind === 'expired-token') {
      found.record.expiresAt = now;
      return sendFitbitError(reply, 401, fitbitErrors.expiredToken(token));
    } else if (fault.kind === 'revoked-token') {
      deps.oauth.revokeGrant(found.grant.id);
      return sendFitbitError(reply, 401, fitbitErrors.invalidToken(token));
    } else if (fault.kind === 'rate-limit') {
      return tooMany();
    } else {
      const status = fault.status ?? 500;
      return sendFitbitError(reply, status, fitbitErrors.system(status), headers);
    }
  }
  if (rate.limited) return tooMany();

  const { userId } = request.params as { userId: string };
  if (userId !== '-' && userId !== account.fitbitUserId) {
    return sendFitbitError(reply, 403, fitbitErrors.insufficientPermissions(), headers);
  }
  const path = (request.params as { '*': string })['*'];
  let match: RegExpExecArray | null = null;
  const resource = RESOURCES.find(
    (candidate) => candidate.version === version && (match = candidate.pattern.exec(path)),
  );
  if (!resource || !match) return sendFitbitError(reply, 404, fitbitErrors.notFound(), headers);
  if (!found.grant.scopes.includes(resource.scope)) {
    return sendFitbitError(reply, 403, fitbitErrors.insufficientScope(resource.scope), headers);
  }
  const caller: FitbitCaller = {
    account,
    model: wearableModel(account),
    units: unitSystemOf(request.headers['accept-language']),
    today: localDateOf(account.timeZone, now),
    nowMs: now,
    trackerCutoff: trackerSyncedUntil(account, now),
    baseUrl: requestBaseUrl(request),
    query: request.query as Record<string, string | undefined>,
  };
  const result = resource.handle(caller, match);
  if ('error' in result)
    return sendFitbitError(reply, result.status, result.error as FitbitErrorBody, headers);
  return reply.headers(headers).send(result.body);
}
