import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { FaultError, faultSpecSchema } from './faults';
import { routeConfig } from './server';
import type { ProviderSimulatorControl, SimulatorControl } from './types';

/**
 * The `/__control` HTTP API: the programmatic SimulatorControl exposed over HTTP so tests in
 * another process (and people poking with curl) can force faults and move the clock. It
 * exists only on simulators, never on TrialPulse, and is exempt from faults and rate limits.
 *
 * | Route | Body | Answer |
 * |---|---|---|
 * | GET /__control | – | name, now, faults, accounts (+ the simulator's `state`) |
 * | GET /__control/accounts | – | { accounts } |
 * | POST /__control/clock/advance | { ms?, seconds?, minutes?, hours?, days? } | { now } |
 * | POST /__control/clock/set | { time } (ISO or epoch ms) | { now } |
 * | GET /__control/faults | – | { faults } |
 * | POST /__control/faults | FaultSpec | 201 { fault } |
 * | DELETE /__control/faults | – | 204 |
 * | POST /__control/tokens/expire | { accountId?, token? } | { count } |
 * | POST /__control/tokens/revoke | { accountId?, token? } | { count } |
 * | POST /__control/tokens/issue | { accountId, clientId?, scope? } | token response (Omron, Dexcom) |
 * | POST /__control/rate-limits/reset | – | 204 |
 * | POST /__control/rate-limits/usage | { used, key? } | 204 (Omron, Dexcom) |
 * | POST /__control/reset | – | 204 |
 *
 * The routes live in their own scope, whose error handler answers `{ error }` with 400 for
 * invalid bodies and controls a simulator refuses, so a provider's error shape never applies.
 */
export function registerControlRoutes(
  app: FastifyInstance,
  name: string,
  control: SimulatorControl<unknown> &
    Partial<Pick<ProviderSimulatorControl, 'issueTokens' | 'setRateLimitUsage'>>,
  options: ControlRouteOptions = {},
): void {
  const config = routeConfig('control');
  void app.register(async (scope) => {
    scope.setErrorHandler((error, _request, reply) => {
      if (error instanceof z.ZodError)
        return reply.code(400).send({ error: z.prettifyError(error) });
      if (error instanceof FaultError || error instanceof RangeError)
        return reply.code(400).send({ error: error.message });
      const status = (error as { statusCode?: number }).statusCode ?? 500;
      return reply.code(status).send({ error: (error as Error).message });
    });

    scope.get('/__control', { config }, async () => ({
      name,
      now: control.now().toISOString(),
      frozenClock: control.clock.frozen,
      faults: control.faults(),
      accounts: control.accounts(),
      ...options.state?.(),
    }));

    scope.get('/__control/accounts', { config }, async () => ({ accounts: control.accounts() }));

    scope.post('/__control/clock/advance', { config }, async (request, reply) => {
      const body = parseBody(advanceSchema, request.body, reply);
      if (!body) return reply;
      return { now: control.advanceClock(durationToMs(body)).toISOString() };
    });

    scope.post('/__control/clock/set', { config }, async (request, reply) => {
      const body = parseBody(setClockSchema, request.body, reply);
      if (!body) return reply;
      return { now: control.setClock(body.time).toISOString() };
    });

    scope.get('/__control/faults', { config }, async () => ({ faults: control.faults() }));

    scope.post('/__control/faults', { config }, async (request, reply) => {
      const body = parseBody(faultSpecSchema, request.body, reply);
      if (!body) return reply;
      return reply.code(201).send({ fault: control.injectFault(body) });
    });

    scope.delete('/__control/faults', { config }, async (_request, reply) => {
      control.clearFaults();
      return reply.code(204).send();
    });

    scope.post('/__control/tokens/expire', { config }, async (request, reply) => {
      const body = parseBody(tokenFilterSchema, request.body ?? {}, reply);
      if (!body) return reply;
      return { count: control.expireAccessTokens(body) };
    });

    scope.post('/__control/tokens/revoke', { config }, async (request, reply) => {
      const body = parseBody(tokenFilterSchema, request.body ?? {}, reply);
      if (!body) return reply;
      return { count: control.revokeTokens(body) };
    });

    const { issueTokens, setRateLimitUsage } = control;
    if (issueTokens) {
      scope.post('/__control/tokens/issue', { config }, async (request, reply) => {
        const body = parseBody(issueSchema, request.body, reply);
        if (!body) return reply;
        return issueTokens.call(control, body);
      });
    }

    scope.post('/__control/rate-limits/reset', { config }, async (_request, reply) => {
      control.resetRateLimits();
      return reply.code(204).send();
    });

    if (setRateLimitUsage) {
      scope.post('/__control/rate-limits/usage', { config }, async (request, reply) => {
        const body = parseBody(rateLimitUsageSchema, request.body, reply);
        if (!body) return reply;
        setRateLimitUsage.call(control, body.used, body.key);
        return reply.code(204).send();
      });
    }

    scope.post('/__control/reset', { config }, async (_request, reply) => {
      control.reset();
      return reply.code(204).send();
    });

    options.more?.(scope);
  });
}

export interface ControlRouteOptions {
  /** The simulator's own state, added to GET /__control. */
  state?: () => Record<string, unknown>;
  /** Registers the simulator's own control routes in the same scope. */
  more?: (scope: FastifyInstance) => void;
}

/** Validates a control body; on failure answers 400 and returns undefined. */
export function parseBody<T>(
  schema: z.ZodType<T>,
  body: unknown,
  reply: FastifyReply,
): T | undefined {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  void reply.code(400).send({ error: z.prettifyError(parsed.error) });
  return undefined;
}

export type DurationInput = z.infer<typeof advanceSchema>;

/** Milliseconds of a `{ ms?, seconds?, minutes?, hours?, days? }` duration. */
export function durationToMs(by: DurationInput): number {
  return (
    (by.ms ?? 0) +
    (by.seconds ?? 0) * 1000 +
    (by.minutes ?? 0) * 60_000 +
    (by.hours ?? 0) * 3_600_000 +
    (by.days ?? 0) * 86_400_000
  );
}

const advanceSchema = z.strictObject({
  ms: z.number().optional(),
  seconds: z.number().optional(),
  minutes: z.number().optional(),
  hours: z.number().optional(),
  days: z.number().optional(),
});

const setClockSchema = z.strictObject({ time: z.union([z.string().min(1), z.number()]) });

const tokenFilterSchema = z.strictObject({
  accountId: z.string().min(1).optional(),
  token: z.string().min(1).optional(),
});

const issueSchema = z.strictObject({
  accountId: z.string(),
  clientId: z.string().optional(),
  scope: z.string().optional(),
});

const rateLimitUsageSchema = z.strictObject({
  used: z.number().int().min(0),
  key: z.string().optional(),
});
