/**
 * Dexcom v3 data endpoints: GET /v3/users/self/{egvs,events,calibrations,alerts,devices,
 * dataRange}. Dates are UTC `YYYY-MM-DDThh:mm:ss` without an offset, compared with
 * systemTime (start inclusive, end exclusive), and a window may span at most 30 days.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DexcomContext } from './context';
import type { RangeResource } from './data';
import { deviceRecords } from './devices';
import { dexcomError, respondToDexcomFault, tooManyRequests, unauthorized } from './errors';
import { applyFault } from '../common/faults';
import { DAY_MS } from '../common/civil-time';
import type { GrantInfo } from '../common/signed-tokens';
import { dexcomUserId } from './user-id';

export const MAX_WINDOW_DAYS = 30;

const RECORD_TYPES: Record<RangeResource, string> = {
  egvs: 'egv',
  events: 'event',
  calibrations: 'calibration',
  alerts: 'alert',
};

type Query = Record<string, string | undefined>;

export function registerDexcomDataRoutes(app: FastifyInstance, ctx: DexcomContext) {
  for (const resource of Object.keys(RECORD_TYPES) as RangeResource[]) {
    app.get(`/v3/users/self/${resource}`, async (request, reply) => {
      const grant = await gate(ctx, request, reply);
      if (!grant) return reply;
      const window = parseWindow(request.query as Query, true);
      if ('error' in window) return dexcomError(reply, 400, 'invalid_request', window.error);
      const account = accountOf(ctx, grant);
      return {
        recordType: RECORD_TYPES[resource],
        recordVersion: '3.0',
        userId: dexcomUserId(grant.accountId, grant.clientId),
        records: ctx.data.range(account, resource, window.start, window.end, ctx.clock.nowMs()),
      };
    });
  }

  app.get('/v3/users/self/devices', async (request, reply) => {
    const grant = await gate(ctx, request, reply);
    if (!grant) return reply;
    // Dates are optional here, but when sent they must be valid (Tidepool always sends them).
    const window = parseWindow(request.query as Query, false);
    if ('error' in window) return dexcomError(reply, 400, 'invalid_request', window.error);
    return {
      recordType: 'device',
      recordVersion: '3.0',
      userId: dexcomUserId(grant.accountId, grant.clientId),
      records: deviceRecords(accountOf(ctx, grant), ctx.data, ctx.clock.nowMs()),
    };
  });

  app.get('/v3/users/self/dataRange', async (request, reply) => {
    const grant = await gate(ctx, request, reply);
    if (!grant) return reply;
    const { lastSyncTime } = request.query as Query;
    let since: number | undefined;
    if (lastSyncTime !== undefined) {
      // Unlike startDate/endDate, lastSyncTime must carry a time-zone offset.
      if (
        !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/.test(lastSyncTime)
      ) {
        return dexcomError(
          reply,
          400,
          'invalid_request',
          'lastSyncTime must be an ISO 8601 time with a time-zone offset',
        );
      }
      since = Date.parse(lastSyncTime);
      if (!Number.isFinite(since))
        return dexcomError(reply, 400, 'invalid_request', 'Invalid lastSyncTime');
    }
    const account = accountOf(ctx, grant);
    const now = ctx.clock.nowMs();
    const body: Record<string, unknown> = {
      recordType: 'dataRange',
      recordVersion: '3.0',
      userId: dexcomUserId(grant.accountId, grant.clientId),
    };
    for (const resource of ['calibrations', 'egvs', 'events'] as const) {
      const bounds = ctx.data.bounds(account, resource, now, since);
      if (bounds) {
        body[resource] = {
          start: {
            systemTime: bounds.start.record.systemTime,
            displayTime: bounds.start.record.displayTime,
          },
          end: {
            systemTime: bounds.end.record.systemTime,
            displayTime: bounds.end.record.displayTime,
          },
        };
      }
    }
    return body;
  });
}

/** Authentication, forced faults and the per-app hourly limit, in that order. */
async function gate(
  ctx: DexcomContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<GrantInfo | undefined> {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!match?.[1]) {
    unauthorized(reply, 'missing');
    return undefined;
  }
  const checked = ctx.tokens.checkAccess(match[1]);
  if (!checked.ok) {
    unauthorized(reply, checked.reason === 'expired' ? 'expired' : 'invalid');
    return undefined;
  }
  if (
    await applyFault(
      ctx.faults,
      'api',
      request,
      reply,
      respondToDexcomFault,
      checked.grant.accountId,
    )
  )
    return undefined;
  const hit = ctx.rateLimit.hit(checked.grant.clientId, ctx.clock.nowMs());
  if (hit.limited) {
    tooManyRequests(reply, hit.resetSeconds, hit.limit);
    return undefined;
  }
  return checked.grant;
}

function accountOf(ctx: DexcomContext, grant: GrantInfo) {
  const account = ctx.accounts.find((a) => a.id === grant.accountId);
  if (!account) throw new Error(`Unknown account in token: ${grant.accountId}`);
  return account;
}

function parseWindow(
  query: Query,
  required: boolean,
): { start: number; end: number } | { error: string } {
  const { startDate, endDate } = query;
  if (startDate === undefined && endDate === undefined && !required) return { start: 0, end: 0 };
  if (!startDate || !endDate) return { error: 'startDate and endDate are required' };
  const start = parseDexcomDate(startDate);
  if (start === null)
    return { error: `Invalid startDate '${startDate}': expected YYYY-MM-DDThh:mm:ss (UTC)` };
  const end = parseDexcomDate(endDate);
  if (end === null)
    return { error: `Invalid endDate '${endDate}': expected YYYY-MM-DDThh:mm:ss (UTC)` };
  if (end <= start) return { error: 'endDate must be after startDate' };
  if (end - start > MAX_WINDOW_DAYS * DAY_MS) {
    return { error: `The date range may span at most ${MAX_WINDOW_DAYS} days` };
  }
  return { start, end };
}

function parseDexcomDate(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(text)) return null;
  const ms = Date.parse(`${text}Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 19) === text ? ms : null;
}
