import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type SimulatedAccount, ageOn, findAccount } from '../common/accounts';
import { civilMsOfDate, localDateOf, utcOffsetSeconds } from '../common/civil-time';
import type { SimulatedClock } from '../common/clock';
import { type FaultController, applyTransportFault, isTransportFault } from '../common/faults';
import type { Grant, OAuthStore } from '../common/oauth';
import { decodePageToken, encodePageToken } from '../common/page-token';
import type { FixedWindowRateLimiter } from '../common/rate-limit';
import type { GoogleCallLog } from './call-log';
import type { DataEdits } from './data-edits';
import { routeConfig } from '../common/server';
import { trackerSyncedUntil, wearableModel } from '../common/wearable-model';
import { type Operation, canRead, findDataType, hasAnyHealthScope } from './catalog';
import { type GoogleErrorBody, googleErrors, sendGoogleError } from './errors';
import { dateObject, duration, timestamp } from './json';
import { getDataPoint, listDataPoints, parsePageSize } from './list';
import type { PointContext } from './points';
import { dailyRollUp, rollUp } from './rollups';

/**
 * The Health API surface under /v4 (and /v4beta): dataPoints list / reconcile / rollUp /
 * dailyRollUp / get, identity, profile, settings and pairedDevices. Every request passes the
 * same gate: bearer token → injected faults → 300 requests/user/minute → linked account →
 * `users/{me|healthUserId}` → scope.
 */

export interface GoogleApiDeps {
  clock: SimulatedClock;
  oauth: OAuthStore;
  faults: FaultController;
  limiter: FixedWindowRateLimiter;
  /** The simulator's own count of calls per account (control API `/__control/calls`). */
  calls?: GoogleCallLog;
  /** Edits of generated points (control API `/__control/data-edits`). */
  edits?: DataEdits;
}

interface Caller {
  account: SimulatedAccount;
  grant: Grant;
  ctx: PointContext;
}

export function registerGoogleApiRoutes(app: FastifyInstance, deps: GoogleApiDeps): void {
  const config = routeConfig('api');
  for (const version of ['v4', 'v4beta']) {
    const base = `/${version}/users/:user`;

    app.get(`${base}/identity`, { config }, (request, reply) =>
      handle(deps, request, reply, 'users.getIdentity', (caller) => {
        if (!hasAnyHealthScope(caller.grant.scopes))
          return googleErrors.scopeInsufficient('users.getIdentity');
        return {
          name: 'users/me/identity',
          healthUserId: caller.account.healthUserId,
          legacyUserId: caller.account.fitbitUserId,
        };
      }),
    );

    app.get(`${base}/profile`, { config }, (request, reply) =>
      handle(deps, request, reply, 'users.getProfile', (caller) => {
        if (!canRead(caller.grant.scopes, 'profile'))
          return googleErrors.scopeInsufficient('users.getProfile');
        const account = caller.account;
        const today = localDateOf(account.timeZone, deps.clock.nowMs());
        // Stride lengths need an activity scope as well (facts §9).
        const stride = canRead(caller.grant.scopes, 'activity_and_fitness');
        return {
          name: 'users/me/profile',
          age: ageOn(account, today),
          membershipStartDate: dateObject(account.memberSince),
          ...(stride && {
            autoRunningStrideLengthMm: Math.round(account.heightCm * 6.5),
            autoWalkingStrideLengthMm: Math.round(account.heightCm * 4.15),
          }),
        };
      }),
    );

    app.get(`${base}/settings`, { config }, (request, reply) =>
      handle(deps, request, reply, 'users.getSettings', (caller) => {
        if (!canRead(caller.grant.scopes, 'settings'))
          return googleErrors.scopeInsufficient('users.getSettings');
        const account = caller.account;
        const us = account.timeZone.startsWith('America/');
        return {
          name: 'users/me/settings',
          autoStrideEnabled: true,
          distanceUnit: us ? 'DISTANCE_UNIT_MILES' : 'DISTANCE_UNIT_KILOMETERS',
          glucoseUnit: 'MG_DL',
          heightUnit: us ? 'INCHES' : 'CENTIMETERS',
          swimUnit: us ? 'YARDS' : 'METERS',
          temperatureUnit: us ? 'FAHRENHEIT' : 'CELSIUS',
          waterUnit: us ? 'FL_OZ' : 'ML',
          weightUnit: us ? 'POUNDS' : account.timeZone === 'Europe/London' ? 'STONE' : 'KILOGRAMS',
          languageLocale: us
            ? 'en_US'
            : account.timeZone === 'Europe/London'
              ? 'en_GB'
              : account.timeZone === 'Asia/Tokyo'
                ? 'ja_JP'
                : 'de_DE',
          foodLanguageCode: us ? 'en_US' : 'en_GB',
          strideLengthRunningType: 'AUTO',
          strideLengthWalkingType: 'AUTO',
          timeZone: account.timeZone,
          utcOffset: duration(utcOffsetSeconds(account.timeZone, deps.clock.nowMs())),
        };
      }),
    );

    app.get(`${base}/pairedDevices`, { config }, (request, reply) =>
      handle(deps, request, reply, 'users.pairedDevices.list', (caller) => {
        if (!canRead(caller.grant.scopes, 'settings'))
          return googleErrors.scopeInsufficient('users.pairedDevices.list');
        const query = request.query as Record<string, string | undefined>;
        const pageSize = parsePageSize(query.pageSize ?? query.page_size, 5, 100);
        if (typeof pageSize !== 'number') return pageSize.error;
        const devices = pairedDevices(caller, deps.clock.nowMs());
        const fingerprint = `pairedDevices|${caller.account.id}`;
        const token = query.pageToken ?? query.page_token;
        let offset = 0;
        if (token) {
          const decoded = decodePageToken(token, fingerprint);
          if (typeof decoded !== 'number') return googleErrors.invalidPageToken();
          offset = decoded;
        }
        const page = devices.slice(offset, offset + pageSize);
        if (page.length === 0) return {};
        return {
          pairedDevices: page,
          ...(offset + pageSize < devices.length && {
            nextPageToken: encodePageToken(offset + pageSize, fingerprint),
          }),
        };
      }),
    );

    app.get(`${base}/pairedDevices/:deviceId`, { config }, (request, reply) =>
      handle(deps, request, reply, 'users.pairedDevices.get', (caller) => {
        if (!canRead(caller.grant.scopes, 'settings'))
          return googleErrors.scopeInsufficient('users.pairedDevices.get');
        const { deviceId } = request.params as { deviceId: string };
        const device = pairedDevices(caller, deps.clock.nowMs()).find((d) =>
          String(d.name).endsWith(`/${deviceId}`),
        );
        return device ?? googleErrors.notFound();
      }),
    );

    // `dataPoints`, `dataPoints:reconcile`, `dataPoints:rollUp`, `dataPoints:dailyRollUp`.
    app.get(`${base}/dataTypes/:dataType/:method`, { config }, (request, reply) => {
      const { dataType, method } = request.params as { dataType: string; method: string };
      const operation: Operation | undefined =
        method === 'dataPoints'
          ? 'list'
          : method === 'dataPoints:reconcile'
            ? 'reconcile'
            : undefined;
      return dataTypeRequest(deps, request, reply, dataType, operation, (spec, caller, userId) => {
        const query = request.query as Record<string, string | undefined>;
        return listDataPoints(
          spec,
          caller.ctx,
          {
            filter: query.filter,
            pageSize: query.pageSize ?? query.page_size,
            pageToken: query.pageToken ?? query.page_token,
            dataSourceFamily: query.dataSourceFamily ?? query.data_source_family,
          },
          operation === 'reconcile' ? 'reconcile' : 'list',
          userId,
        );
      });
    });

    app.post(`${base}/dataTypes/:dataType/:method`, { config }, (request, reply) => {
      const { dataType, method } = request.params as { dataType: string; method: string };
      const operation: Operation | undefined =
        method === 'dataPoints:rollUp'
          ? 'rollUp'
          : method === 'dataPoints:dailyRollUp'
            ? 'dailyRollUp'
            : undefined;
      return dataTypeRequest(deps, request, reply, dataType, operation, (spec, caller, userId) =>
        operation === 'rollUp'
          ? rollUp(spec, caller.ctx, request.body, userId)
          : dailyRollUp(spec, caller.ctx, request.body, userId),
      );
    });

    app.get(`${base}/dataTypes/:dataType/dataPoints/:id`, { config }, (request, reply) => {
      const { dataType, id } = request.params as { dataType: string; id: string };
      return dataTypeRequest(deps, request, reply, dataType, 'get', (spec, caller, userId) =>
        getDataPoint(spec, caller.ctx, id, userId),
      );
    });
  }
}

/** The shared gate, then the handler; handlers return a body or a Google error. */
async function handle(
  deps: GoogleApiDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  method: string,
  handler: (caller: Caller, userId: string) => unknown,
) {
  const caller = await authenticate(deps, request, reply, method);
  if (!caller) return reply;
  const { user } = request.params as { user: string };
  if (user !== 'me' && user !== caller.account.healthUserId)
    return sendGoogleError(reply, googleErrors.permissionDenied());
  const result = handler(caller, caller.account.healthUserId);
  if (isGoogleError(result)) return sendGoogleError(reply, result);
  return reply.send(result);
}

async function dataTypeRequest(
  deps: GoogleApiDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  dataType: string,
  operation: Operation | undefined,
  run: (
    spec: NonNullable<ReturnType<typeof findDataType>>,
    caller: Caller,
    userId: string,
  ) => { body: Record<string, unknown> } | { error: GoogleErrorBody },
) {
  const method = `users.dataTypes.dataPoints.${operation ?? 'unknown'}`;
  return handle(deps, request, reply, method, (caller, userId) => {
    if (operation === undefined) return googleErrors.notFound();
    const spec = findDataType(dataType);
    if (!spec) return googleErrors.invalidDataType(dataType);
    if (!spec.operations.includes(operation))
      return googleErrors.unsupportedAction(spec.id, operation);
    if (!canRead(caller.grant.scopes, spec.scope)) return googleErrors.scopeInsufficient(method);
    const result = run(spec, caller, userId);
    return 'error' in result ? result.error : result.body;
  });
}

/** Bearer token, faults, rate limit and ACCOUNT_NOT_LINKED, in that order. */
async function authenticate(
  deps: GoogleApiDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  method: string,
): Promise<Caller | undefined> {
  const header = request.headers.authorization;
  const queryToken = (request.query as Record<string, string | undefined>).access_token;
  const token =
    header && /^bearer\s+/i.test(header) ? header.replace(/^bearer\s+/i, '').trim() : queryToken;
  if (!token) {
    await sendGoogleError(reply, googleErrors.credentialsMissing(method));
    return undefined;
  }
  const found = deps.oauth.accessToken(token);
  if (!found || found.state !== 'valid') {
    await sendGoogleError(reply, googleErrors.invalidCredentials(), {
      'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"',
    });
    return undefined;
  }
  const account = findAccount(found.grant.accountId);
  if (!account) {
    await sendGoogleError(reply, googleErrors.invalidCredentials());
    return undefined;
  }
  found.record.firstUsedAt ??= deps.clock.nowMs();

  const path = request.url.split('?')[0]!;
  const fault = deps.faults.take('api', request.url, account.id);
  if (fault) {
    deps.calls?.record(account.id, path, deps.clock.nowMs(), `fault:${fault.kind}`);
    if (isTransportFault(fault)) {
      if (await applyTransportFault(fault, request, reply)) return undefined;
    } else {
      let body: GoogleErrorBody;
      if (fault.kind === 'expired-token') {
        found.record.expiresAt = deps.clock.nowMs();
        body = googleErrors.invalidCredentials();
      } else if (fault.kind === 'revoked-token') {
        deps.oauth.revokeGrant(found.grant.id);
        body = googleErrors.invalidCredentials();
      } else if (fault.kind === 'rate-limit') {
        body = googleErrors.rateLimited(account.healthUserId);
      } else if (fault.kind === 'account-not-linked') {
        body = googleErrors.accountNotLinked();
      } else {
        body = googleErrors.serverError(fault.status ?? 500);
      }
      const headers: Record<string, string> =
        body.error.code === 401
          ? {
              'www-authenticate':
                'Bearer realm="https://accounts.google.com/", error="invalid_token"',
            }
          : {};
      await sendGoogleError(reply, body, headers);
      return undefined;
    }
  }

  const now = deps.clock.nowMs();
  const limited = deps.limiter.hit(account.id, now).limited;
  deps.calls?.record(account.id, path, now, limited ? 'over-quota' : 'ok');
  if (limited) {
    await sendGoogleError(reply, googleErrors.rateLimited(account.healthUserId));
    return undefined;
  }
  if (!account.googleHealthLinked) {
    await sendGoogleError(reply, googleErrors.accountNotLinked());
    return undefined;
  }
  return {
    account,
    grant: found.grant,
    ctx: {
      account,
      model: wearableModel(account),
      trackerCutoff: trackerSyncedUntil(account, now),
      nowMs: now,
      ...(deps.edits && { edit: deps.edits.apply.bind(null, account.id) }),
    },
  };
}

function pairedDevices(caller: Caller, nowMs: number): Array<Record<string, unknown>> {
  const { account } = caller;
  const devices: Array<Record<string, unknown>> = [];
  const battery = (level: number) =>
    level === 0 ? 'Empty' : level < 25 ? 'Low' : level < 60 ? 'Medium' : 'High';
  devices.push({
    name: `users/${account.healthUserId}/pairedDevices/${account.tracker.id}`,
    deviceType: 'TRACKER',
    deviceVersion: account.tracker.model,
    batteryLevel: account.tracker.batteryLevel,
    batteryStatus: battery(account.tracker.batteryLevel),
    lastSyncTime: timestamp(trackerSyncedUntil(account, nowMs)),
    macAddress: account.tracker.mac,
    features: account.tracker.features,
  });
  if (account.scale) {
    const model = wearableModel(account);
    let lastSync = civilMsOfDate(account.memberSince);
    for (let back = 0; back < 30; back++) {
      const date = localDateOf(account.timeZone, nowMs - back * 86_400_000);
      const weighIn = model.weighIn(date);
      if (weighIn && weighIn.utc <= nowMs) {
        lastSync = weighIn.utc + 40_000;
        break;
      }
    }
    devices.push({
      name: `users/${account.healthUserId}/pairedDevices/${account.scale.id}`,
      deviceType: 'SCALE',
      deviceVersion: account.scale.model,
      batteryLevel: account.scale.batteryLevel,
      batteryStatus: battery(account.scale.batteryLevel),
      lastSyncTime: timestamp(lastSync),
      macAddress: account.scale.mac,
      features: account.scale.features,
    });
  }
  return devices;
}

function isGoogleError(value: unknown): value is GoogleErrorBody {
  if (typeof value !== 'object' || value === null || !('error' in value)) return false;
  const error = (value as { error: unknown }).error;
  return typeof error === 'object' && error !== null && 'status' in error && 'code' in error;
}
