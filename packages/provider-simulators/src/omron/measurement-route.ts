/**
 * POST /api/measurement: Omron's single data endpoint. Form fields `since` (local date,
 * required), `type`, `limit`, `sortOrder`, `includeHourlyActivity` and a pagination key;
 * the answer is the `{status:0,result:{...}}` envelope with one list per type.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OmronContext } from './context';
import {
  compareGenerated,
  hourlyActivity,
  OMRON_TYPES,
  type ActivityRecord,
  type Generated,
  type OmronType,
} from './data';
import { apiError, respondToOmronFault, tooManyRequests, unauthorized } from './errors';
import { applyFault } from '../common/faults';
import { formValues } from '../common/oauth';
import type { GrantInfo } from '../common/signed-tokens';
import { parseDay } from '../common/civil-time';

/** JSON keys of the result lists, per `type` value. */
export const RESULT_KEYS: Record<OmronType, 'bloodPressure' | 'weight' | 'activity'> = {
  bloodpressure: 'bloodPressure',
  weight: 'weight',
  activity: 'activity',
};

type Cursor = Partial<Record<OmronType, [number, number] | 'done'>>;

export function registerMeasurementRoute(app: FastifyInstance, ctx: OmronContext) {
  app.post('/api/measurement', async (request, reply) => {
    const grant = authorize(ctx, request, reply);
    if (!grant) return reply;
    if (await applyFault(ctx.faults, 'api', request, reply, respondToOmronFault, grant.accountId))
      return reply;
    const hit = ctx.rateLimit.hit(grant.clientId, ctx.clock.nowMs());
    if (hit.limited) return tooManyRequests(reply, hit.resetSeconds);

    const form = formValues(request.body);
    if (!form.since) return apiError(reply, 400, 'The since parameter is required (yyyy-MM-dd).');
    const sinceDay = parseDay(form.since);
    if (sinceDay === null) return apiError(reply, 400, `Invalid since date: ${form.since}`);

    let types: OmronType[] = [...OMRON_TYPES];
    if (form.type !== undefined && form.type !== '') {
      const type = form.type.toLowerCase() as OmronType;
      if (!OMRON_TYPES.includes(type)) return apiError(reply, 400, `Invalid type: ${form.type}`);
      types = [type];
    }
    const granted = grant.scope.split(' ');
    const allowed = types.filter((t) => granted.includes(t));
    if (form.type && allowed.length === 0) {
      return apiError(reply, 403, `The access token does not grant the ${form.type} scope.`);
    }

    let limit = 0;
    if (form.limit !== undefined && form.limit !== '') {
      if (!/^\d+$/.test(form.limit)) return apiError(reply, 400, `Invalid limit: ${form.limit}`);
      limit = Number(form.limit);
    }
    const order = (form.sortOrder ?? 'asc').toLowerCase();
    if (order !== 'asc' && order !== 'desc')
      return apiError(reply, 400, `Invalid sortOrder: ${form.sortOrder}`);
    const includeHourly = (form.includeHourlyActivity ?? 'false').toLowerCase() === 'true';

    const keyText =
      form.paginationKey ??
      form.nextPaginationKey ??
      (types.length === 1 ? form[`${types[0]}PaginationKey`] : undefined);
    const cursor = keyText ? decodeCursor(keyText, order) : {};
    if (cursor === null) return apiError(reply, 400, 'Invalid pagination key.');

    const account = ctx.accounts.find((a) => a.id === grant.accountId);
    if (!account) return apiError(reply, 404, 'User not found.');
    const visible = ctx.data.visibleSince(account, sinceDay, allowed, ctx.clock.nowMs());

    const result: Record<string, unknown> = {
      truncated: false,
      measurementCount: 0,
      nextPaginationKey: null,
    };
    const nextCursor: Cursor = {};
    let truncated = false;
    let count = 0;
    for (const type of types) {
      if (!allowed.includes(type)) {
        result[RESULT_KEYS[type]] = [];
        continue;
      }
      let items = visible[type];
      if (order === 'desc') items = [...items].reverse();
      const position = cursor[type];
      if (position === 'done') items = [];
      else if (position) items = items.filter((item) => isAfter(item, position, order));
      const page = limit > 0 ? items.slice(0, limit) : items;
      if (page.length < items.length) {
        truncated = true;
        const last = page[page.length - 1] as Generated;
        nextCursor[type] = [last.measuredAt, last.record.id];
      } else {
        nextCursor[type] = 'done';
      }
      count += page.length;
      result[RESULT_KEYS[type]] = page.map((item) =>
        includeHourly && type === 'activity'
          ? { ...item.record, hourlyActivity: hourlyActivity(item.record as ActivityRecord) }
          : item.record,
      );
    }
    result.truncated = truncated;
    result.measurementCount = count;
    result.nextPaginationKey = truncated ? encodeCursor(nextCursor, order) : null;
    return reply.send({ status: 0, result });
  });
}

/** Checks the Bearer token; on failure sends the 401 and returns undefined. */
export function authorize(
  ctx: OmronContext,
  request: FastifyRequest,
  reply: FastifyReply,
): GrantInfo | undefined {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match?.[1]) {
    unauthorized(reply, 'missing');
    return undefined;
  }
  const checked = ctx.tokens.checkAccess(match[1]);
  if (!checked.ok) {
    unauthorized(reply, checked.reason === 'expired' ? 'expired' : 'invalid');
    return undefined;
  }
  return checked.grant;
}

function isAfter(
  item: Generated,
  [measuredAt, id]: [number, number],
  order: 'asc' | 'desc',
): boolean {
  const cmp = compareGenerated(item, { measuredAt, record: { id } } as Generated);
  return order === 'asc' ? cmp > 0 : cmp < 0;
}

function encodeCursor(cursor: Cursor, order: string): string {
  return Buffer.from(JSON.stringify({ o: order, p: cursor })).toString('base64url');
}

function decodeCursor(text: string, order: string): Cursor | null {
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as {
      o?: string;
      p?: Cursor;
    };
    if (parsed.o !== order || !parsed.p || typeof parsed.p !== 'object') return null;
    return parsed.p;
  } catch {
    return null;
  }
}
