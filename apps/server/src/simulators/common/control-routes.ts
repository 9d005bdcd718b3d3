import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { FaultError, faultSpecSchema } from './faults';
import { routeConfig } from './server';
import type { SimulatorControl } from './types';

/**
 * The `/__control` HTTP API: the programmatic SimulatorControl exposed over HTTP so tests in
 * another process (and people poking with curl) can force faults and move the clock. It
 * exists only on simulators, never on TrialPulse, and is exempt from faults and rate limits.
 *
 * | Route | Body | Answer |
 * |---|---|---|
 * | GET /__control | – | name, now, faults, accounts |
 * | GET /__control/accounts | – | { accounts } |
 * | POST /__control/clock/advance | { ms?, seconds?, minutes?, hours?, days? } | { now } |
 * | POST /__control/clock/set | { time } (ISO or epoch ms) | { now } |
 * | GET /__control/faults | – | { faults } |
 * | POST /__control/faults | FaultSpec | 201 { fault } |
 * | DELETE /__control/faults | – | 204 |
 * | POST /__control/tokens/expire | { accountId?, token? } | { count } |
 * | POST /__control/tokens/revoke | { accountId?, token? } | { count } |
 * | POST /__control/rate-limits/reset | – | 204 |
 * | POST /__control/reset | – | 204 |
 */
export function registerControlRoutes(
  app: FastifyInstance,
  name: string,
  control: SimulatorControl,
): void {
  const config = routeConfig('control');

  app.get('/__control', { config }, async () => ({
    name,
    now: control.now().toISOString(),
    frozenClock: control.clock.frozen,
    faults: control.faults(),
    accounts: control.accounts(),
  }));

  app.get('/__control/accounts', { config }, async () => ({ accounts: control.accounts() }));

  app.post('/__control/clock/advance', { config }, async (request, reply) => {
    const body = parseBody(advanceSchema, request.body, reply);
    if (!body) return reply;
    const ms =
      (body.ms ?? 0) +
      (body.seconds ?? 0) * 1000 +
      (body.minutes ?? 0) * 60_000 +
      (body.hours ?? 0) * 3_600_000 +
      (body.days ?? 0) * 86_400_000;
    return { now: control.advanceClock(ms).toISOString() };
  });

  app.post('/__control/clock/set', { config }, async (request, reply) => {
    const body = parseBody(setClockSchema, request.body, reply);
    if (!body) return reply;
    try {
      return { now: control.setClock(body.time).toISOString() };
    } catch (error) {
      return reply.code(400).send({ error: (error as Error).message });
    }
  });

  app.get('/__control/faults', { config }, async () => ({ faults: control.faults() }));

  app.post('/__control/faults', { config }, async (request, reply) => {
    const body = parseBody(faultSpecSchema, request.body, reply);
    if (!body) return reply;
    try {
      return reply.code(201).send({ fault: control.injectFault(body) });
    } catch (error) {
      if (error instanceof FaultError) return reply.code(400).send({ error: error.message });
      throw error;
    }
  });

  app.delete('/__control/faults', { config }, async (_request, reply) => {
    control.clearFaults();
    return reply.code(204).send();
  });

  app.post('/__control/tokens/expire', { config }, async (request, reply) => {
    const body = parseBody(tokenFilterSchema, request.body ?? {}, reply);
    if (!body) return reply;
    return { count: control.expireAccessTokens(body) };
  });

  app.post('/__control/tokens/revoke', { config }, async (request, reply) => {
    const body = parseBody(tokenFilterSchema, request.body ?? {}, reply);
    if (!body) return reply;
    return { count: control.revokeTokens(body) };
  });

  app.post('/__control/rate-limits/reset', { config }, async (_request, reply) => {
    control.resetRateLimits();
    return reply.code(204).send();
  });

  app.post('/__control/reset', { config }, async (_request, reply) => {
    control.reset();
    return reply.code(204).send();
  });
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
