import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';

/**
 * Fault injection. A test queues a fault; the next matching request(s) get it. Transport
 * faults (slow, dropped connection, truncated JSON) are carried out here; faults with a body
 * (429, 5xx, expired token, …) are rendered by each simulator in its provider's shape.
 */

export const FAULT_KINDS = [
  'expired-token',
  'revoked-token',
  'invalid-grant',
  'rate-limit',
  'server-error',
  'slow',
  'drop-connection',
  'truncated-json',
  'account-not-linked',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * Where a fault applies: `api` = data endpoints, `token` = token endpoint, `revoke` = revoke
 * endpoint, `authorize` = consent page, `any` = all of them (never the control API).
 */
export const FAULT_TARGETS = ['api', 'token', 'revoke', 'authorize', 'any'] as const;
export type FaultTarget = (typeof FAULT_TARGETS)[number];
export type RouteKind = Exclude<FaultTarget, 'any'> | 'control' | 'other';

export const faultSpecSchema = z.strictObject({
  kind: z.enum(FAULT_KINDS),
  /** Default: `token` for invalid-grant, `api` for everything else. */
  target: z.enum(FAULT_TARGETS).optional(),
  /** How many matching requests get the fault; default 1. `'always'` until cleared. */
  times: z.union([z.number().int().positive(), z.literal('always')]).optional(),
  /** Only requests whose path contains this text. */
  pathIncludes: z.string().min(1).optional(),
  /** Let this many matching requests through first (a failure on page 2 of a list). */
  after: z.number().int().positive().optional(),
  /** Only data requests made with a token of this simulated account. */
  accountId: z.string().min(1).optional(),
  /** HTTP status for `server-error` (500–599, default 500). */
  status: z.number().int().min(500).max(599).optional(),
  /** Delay for `slow`, in real milliseconds (default 1500, at most 60000). */
  delayMs: z.number().int().min(0).max(60_000).optional(),
});
export type FaultSpec = z.input<typeof faultSpecSchema>;

export interface InjectedFault {
  id: string;
  kind: FaultKind;
  target: FaultTarget;
  /** Requests still to be affected; null = until cleared. */
  remaining: number | null;
  /** Matching requests still to let through before the fault applies. */
  after?: number;
  pathIncludes?: string;
  accountId?: string;
  status?: number;
  delayMs?: number;
}

/** Which fault kinds make sense on which route kind (a 401 token fault on /token would not). */
const KIND_TARGETS: Record<FaultKind, readonly FaultTarget[]> = {
  'expired-token': ['api'],
  'revoked-token': ['api'],
  'account-not-linked': ['api'],
  'invalid-grant': ['token'],
  'rate-limit': FAULT_TARGETS,
  'server-error': FAULT_TARGETS,
  slow: FAULT_TARGETS,
  'drop-connection': FAULT_TARGETS,
  'truncated-json': FAULT_TARGETS,
};

export class FaultError extends Error {
  override name = 'FaultError';
}

/** Holds the queued faults of one simulator. */
export class FaultController {
  private queue: InjectedFault[] = [];
  private counter = 0;

  constructor(private readonly supported: readonly FaultKind[]) {}

  /** Validates and queues a fault; throws FaultError when the simulator cannot produce it. */
  inject(input: FaultSpec): InjectedFault {
    const parsed = faultSpecSchema.safeParse(input);
    if (!parsed.success) throw new FaultError(z.prettifyError(parsed.error));
    const spec = parsed.data;
    if (!this.supported.includes(spec.kind)) {
      throw new FaultError(`This simulator does not support the fault '${spec.kind}'.`);
    }
    const target = spec.target ?? (spec.kind === 'invalid-grant' ? 'token' : 'api');
    if (!KIND_TARGETS[spec.kind].includes(target)) {
      throw new FaultError(`The fault '${spec.kind}' cannot target '${target}'.`);
    }
    const fault: InjectedFault = {
      id: `fault-${++this.counter}`,
      kind: spec.kind,
      target,
      remaining: spec.times === 'always' ? null : (spec.times ?? 1),
      ...(spec.pathIncludes !== undefined && { pathIncludes: spec.pathIncludes }),
      ...(spec.after !== undefined && { after: spec.after }),
      ...(spec.accountId !== undefined && { accountId: spec.accountId }),
      ...(spec.kind === 'server-error' && { status: spec.status ?? 500 }),
      ...(spec.kind === 'slow' && { delayMs: spec.delayMs ?? 1500 }),
    };
    this.queue.push(fault);
    return { ...fault };
  }

  list(): InjectedFault[] {
    return this.queue.map((fault) => ({ ...fault }));
  }

  clear(): void {
    this.queue = [];
  }

  /**
   * Finds the oldest fault matching this request and uses up one of its repetitions.
   * `accountId` is known only on data routes after authentication.
   */
  take(route: RouteKind, path: string, accountId?: string): InjectedFault | undefined {
    if (route === 'control' || route === 'other') return undefined;
    const index = this.queue.findIndex(
      (fault) =>
        (fault.target === route || fault.target === 'any') &&
        (fault.pathIncludes === undefined || path.includes(fault.pathIncludes)) &&
        (fault.accountId === undefined || fault.accountId === accountId),
    );
    const fault = this.queue[index];
    if (!fault) return undefined;
    if (fault.after) {
      fault.after -= 1;
      return undefined;
    }
    if (fault.remaining !== null) {
      fault.remaining -= 1;
      if (fault.remaining <= 0) this.queue.splice(index, 1);
    }
    return { ...fault };
  }
}

/**
 * Carries out a transport fault. Returns true when the request has been dealt with (the
 * connection was dropped); for `slow` and `truncated-json` the request then goes on normally.
 */
export async function applyTransportFault(
  fault: InjectedFault,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  if (fault.kind === 'slow') {
    await new Promise((resolve) => setTimeout(resolve, fault.delayMs ?? 1500));
    return false;
  }
  if (fault.kind === 'truncated-json') {
    truncatedRequests.add(request);
    return false;
  }
  if (fault.kind === 'drop-connection') {
    // Hijack so Fastify does not try to answer on a destroyed socket.
    reply.hijack();
    request.raw.socket.destroy();
    return true;
  }
  return false;
}

/** True for faults that applyTransportFault() handles (the rest need a provider body). */
export function isTransportFault(fault: InjectedFault): boolean {
  return (
    fault.kind === 'slow' || fault.kind === 'truncated-json' || fault.kind === 'drop-connection'
  );
}

/** Renders a fault that has a body (429, 5xx, expired token, …) in the provider's error shape. */
export type FaultResponder = (fault: InjectedFault, reply: FastifyReply) => FastifyReply;

/**
 * Takes and applies the first matching fault. Returns true when the request has been
 * answered (or its connection dropped) and the handler must stop.
 */
export async function applyFault(
  faults: FaultController,
  route: RouteKind,
  request: FastifyRequest,
  reply: FastifyReply,
  respond: FaultResponder,
  accountId?: string,
): Promise<boolean> {
  const path = request.url.split('?')[0] ?? '';
  const fault = faults.take(route, path, accountId);
  if (!fault) return false;
  if (isTransportFault(fault)) return applyTransportFault(fault, request, reply);
  respond(fault, reply);
  return true;
}

/**
 * Applies faults to the OAuth routes (authorize, token, revoke) before routing, classified
 * by path. Data routes (`api`) are left to their handler, which applies faults after
 * authentication so a fault can target one account.
 */
export function installOAuthFaultHook(
  app: FastifyInstance,
  faults: FaultController,
  classify: (path: string) => RouteKind,
  respond: FaultResponder,
): void {
  app.addHook('onRequest', async (request, reply) => {
    const route = classify(request.url.split('?')[0] ?? '');
    if (route === 'api' || route === 'control' || route === 'other') return;
    if (await applyFault(faults, route, request, reply, respond)) return reply;
  });
}

/**
 * Installs the hook that cuts the body of a request marked by a `truncated-json` fault in
 * half. The status and headers stay as they were and Content-Length matches the cut body,
 * so the HTTP exchange completes and only JSON parsing fails, as with a proxy that cut a
 * response short.
 */
export function installTruncationHook(app: FastifyInstance): void {
  app.addHook('onSend', async (request, _reply, payload) => {
    if (!truncatedRequests.has(request)) return payload;
    truncatedRequests.delete(request);
    if (typeof payload === 'string')
      return payload.slice(0, Math.max(1, Math.floor(payload.length / 2)));
    if (Buffer.isBuffer(payload))
      return payload.subarray(0, Math.max(1, Math.floor(payload.length / 2)));
    return payload;
  });
}

const truncatedRequests = new WeakSet<FastifyRequest>();
