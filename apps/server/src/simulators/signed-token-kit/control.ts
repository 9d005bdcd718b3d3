/**
 * The control surface of a simulator, both as methods on `RunningSimulator.control` and as
 * JSON routes under `/__control`. It follows common/types `SimulatorControl` (same method
 * names and fault specs as the other simulators) and exists only on the simulators, never
 * on TrialPulse itself.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { FaultError, faultSpecSchema } from '../common/faults';
import type { SimulatorControl, TokenFilter } from '../common/types';
import { DAY_MS, HOUR_MS, MINUTE_MS } from './time-zone';

export type ProviderAccountSummary = { id: string; name: string; description: string };

export type ProviderSimulatorControl = Omit<SimulatorControl, 'accounts'> & {
  accounts(): ProviderAccountSummary[];
  /** Mints a token response for an account without the browser flow (demo seeding, tests). */
  issueTokens(input: {
    accountId: string;
    clientId?: string;
    scope?: string;
  }): Record<string, unknown>;
  /** Sets how many calls were already counted in the current rate-limit window. */
  setRateLimitUsage(used: number, key?: string): void;
};

export type DurationInput = {
  ms?: number;
  seconds?: number;
  minutes?: number;
  hours?: number;
  days?: number;
};

export function durationToMs(by: DurationInput): number {
  return (
    (by.ms ?? 0) +
    (by.seconds ?? 0) * 1000 +
    (by.minutes ?? 0) * MINUTE_MS +
    (by.hours ?? 0) * HOUR_MS +
    (by.days ?? 0) * DAY_MS
  );
}

const durationSchema = z.strictObject({
  ms: z.number().optional(),
  seconds: z.number().optional(),
  minutes: z.number().optional(),
  hours: z.number().optional(),
  days: z.number().optional(),
});
const filterSchema = z.strictObject({
  accountId: z.string().min(1).optional(),
  token: z.string().min(1).optional(),
});
const issueSchema = z.strictObject({
  accountId: z.string(),
  clientId: z.string().optional(),
  scope: z.string().optional(),
});
const rateLimitSchema = z.strictObject({
  used: z.number().int().min(0),
  key: z.string().optional(),
});
const setClockSchema = z.strictObject({ time: z.union([z.string().min(1), z.number()]) });

/**
 * Registers `/__control/*` with the same routes and answers as common/control-routes (so all
 * simulators share one control API), plus `tokens/issue` and `rate-limits/usage`. `extra`
 * adds provider state to GET /__control; `more` registers provider routes in the same scope.
 * Own copy because common's `SimulatorControl.accounts()` is typed to the Fitbit accounts.
 */
export function registerControlRoutes(
  app: FastifyInstance,
  name: string,
  control: ProviderSimulatorControl,
  extra: () => Record<string, unknown> = () => ({}),
  more?: (scope: FastifyInstance) => void,
) {
  // Encapsulated, so this error handler never answers for provider routes.
  void app.register(async (scope) => {
    scope.setErrorHandler((error, _request, reply) => {
      if (error instanceof z.ZodError)
        return reply.code(400).send({ error: z.prettifyError(error) });
      if (error instanceof FaultError || error instanceof RangeError) {
        return reply.code(400).send({ error: error.message });
      }
      const status = (error as { statusCode?: number }).statusCode ?? 500;
      return reply.code(status).send({ error: (error as Error).message });
    });

    scope.get('/__control', async () => ({
      name,
      now: control.now().toISOString(),
      frozenClock: control.clock.frozen,
      faults: control.faults(),
      accounts: control.accounts(),
      ...extra(),
    }));
    scope.get('/__control/accounts', async () => ({ accounts: control.accounts() }));
    scope.post('/__control/clock/advance', async (request) => ({
      now: control
        .advanceClock(durationToMs(durationSchema.parse(request.body ?? {})))
        .toISOString(),
    }));
    scope.post('/__control/clock/set', async (request) => ({
      now: control.setClock(setClockSchema.parse(request.body).time).toISOString(),
    }));
    scope.get('/__control/faults', async () => ({ faults: control.faults() }));
    scope.post('/__control/faults', async (request, reply) =>
      reply.code(201).send({ fault: control.injectFault(faultSpecSchema.parse(request.body)) }),
    );
    scope.delete('/__control/faults', async (_request, reply) => {
      control.clearFaults();
      return reply.code(204).send();
    });
    scope.post('/__control/tokens/expire', async (request) => ({
      count: control.expireAccessTokens(filterSchema.parse(request.body ?? {}) as TokenFilter),
    }));
    scope.post('/__control/tokens/revoke', async (request) => ({
      count: control.revokeTokens(filterSchema.parse(request.body ?? {}) as TokenFilter),
    }));
    scope.post('/__control/tokens/issue', async (request) =>
      control.issueTokens(issueSchema.parse(request.body)),
    );
    scope.post('/__control/rate-limits/reset', async (_request, reply) => {
      control.resetRateLimits();
      return reply.code(204).send();
    });
    scope.post('/__control/rate-limits/usage', async (request, reply) => {
      const body = rateLimitSchema.parse(request.body);
      control.setRateLimitUsage(body.used, body.key);
      return reply.code(204).send();
    });
    scope.post('/__control/reset', async (_request, reply) => {
      control.reset();
      return reply.code(204).send();
    });
    more?.(scope);
  });
}
