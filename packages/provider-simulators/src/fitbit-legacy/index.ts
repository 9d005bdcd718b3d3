import type { FastifyError, FastifyInstance } from 'fastify';
import { SIMULATED_ACCOUNTS, summarizeAccount } from '../common/accounts';
import { renderErrorPage } from '../common/authorize-page';
import { toMs } from '../common/clock';
import { createSimulatorControl } from '../common/control';
import { parseBody, registerControlRoutes } from '../common/control-routes';
import { FaultController } from '../common/faults';
import { OAuthStore, randomHex } from '../common/oauth';
import { FixedWindowRateLimiter } from '../common/rate-limit';
import {
  createSimulatorApp,
  listenSimulator,
  resolveClock,
  routeConfig,
  routeKindOf,
} from '../common/server';
import type {
  ListenOptions,
  RunningSimulator,
  SimulatorControl,
  SimulatorOptions,
} from '../common/types';
import { z } from 'zod';
import { FITBIT_REQUESTS_PER_HOUR, registerFitbitApiRoutes } from './api-routes';
import { fitbitErrors, sendFitbitError } from './errors';
import { registerFitbitOAuthRoutes } from './oauth-routes';

/**
 * Legacy Fitbit Web API simulator: www.fitbit.com/oauth2/authorize, api.fitbit.com/oauth2/*
 * and the /1 and /1.2 data API on one server. After the configurable shutdown date every
 * endpoint answers 410 Gone, as Google announced for 2026-11-02. See README.md.
 */

export const FITBIT_LEGACY_SIMULATOR_NAME = 'fitbit-legacy';

/** Google's announced shutdown of the Fitbit Web API and its OAuth endpoints (facts §1). */
export const FITBIT_SHUTDOWN_AT = '2026-11-02T08:00:00Z';

/** A confidential ("server") client: Basic authentication on token and revoke. */
export const DEFAULT_FITBIT_CLIENT = {
  clientId: 'trialpulse-demo-fitbit',
  clientSecret: 'trialpulse-demo-fitbit-secret',
} as const;

/** A public ("client") app: no secret, client_id in the body, PKCE required. */
export const DEFAULT_FITBIT_PUBLIC_CLIENT = { clientId: 'trialpulse-demo-fitbit-public' } as const;

export const FITBIT_LEGACY_PATHS = {
  authorize: '/oauth2/authorize',
  token: '/oauth2/token',
  revoke: '/oauth2/revoke',
  introspect: '/1.1/oauth2/introspect',
  api: '/1/user/-',
  sleepApi: '/1.2/user/-',
} as const;

export interface FitbitLegacySimulatorOptions extends SimulatorOptions {
  /**
   * From this instant every endpoint answers 410 Gone. Default FITBIT_SHUTDOWN_AT;
   * null keeps the API running forever. Note that the default is already in the past
   * for a simulator running on today's wall clock.
   */
  shutdownAt?: Date | string | number | null;
}

export interface FitbitSimulatorControl extends SimulatorControl {
  shutdownAt(): Date | null;
  /** Moves (or with null removes) the shutdown date. */
  setShutdownAt(time: Date | string | number | null): void;
}

export async function createFitbitLegacySimulator(
  options: FitbitLegacySimulatorOptions = {},
): Promise<FastifyInstance> {
  return (await buildFitbitLegacySimulator(options)).app;
}

export async function startFitbitLegacySimulator(
  options: FitbitLegacySimulatorOptions & ListenOptions = {},
): Promise<RunningSimulator<FitbitSimulatorControl>> {
  const { app, control } = await buildFitbitLegacySimulator(options);
  return listenSimulator(FITBIT_LEGACY_SIMULATOR_NAME, app, control, options);
}

async function buildFitbitLegacySimulator(
  options: FitbitLegacySimulatorOptions,
): Promise<{ app: FastifyInstance; control: FitbitSimulatorControl }> {
  const clock = resolveClock(options);
  const oauth = new OAuthStore(
    clock,
    options.clients ?? [DEFAULT_FITBIT_CLIENT, DEFAULT_FITBIT_PUBLIC_CLIENT],
  );
  const faults = new FaultController([
    'expired-token',
    'revoked-token',
    'invalid-grant',
    'rate-limit',
    'server-error',
    'slow',
    'drop-connection',
    'truncated-json',
  ]);
  const limiter = new FixedWindowRateLimiter(FITBIT_REQUESTS_PER_HOUR, 3_600_000);
  const initialShutdown =
    options.shutdownAt === undefined
      ? toMs(FITBIT_SHUTDOWN_AT)
      : options.shutdownAt === null
        ? null
        : toMs(options.shutdownAt);
  let shutdownAt = initialShutdown;
  const control: FitbitSimulatorControl = {
    ...createSimulatorControl({
      clock,
      oauth,
      faults,
      rateLimiters: [limiter],
      accounts: () => SIMULATED_ACCOUNTS.map(summarizeAccount),
      onReset: () => {
        shutdownAt = initialShutdown;
      },
    }),
    shutdownAt: () => (shutdownAt === null ? null : new Date(shutdownAt)),
    setShutdownAt: (time) => {
      shutdownAt = time === null ? null : toMs(time);
    },
  };

  const app = createSimulatorApp(options);
  app.addHook('onRequest', async (request, reply) => {
    if (shutdownAt === null || clock.nowMs() < shutdownAt) return;
    const kind = routeKindOf(request);
    if (kind === 'control') return;
    if (kind === 'authorize') {
      return reply
        .code(410)
        .type('text/html; charset=utf-8')
        .send(
          renderErrorPage(
            'Fitbit',
            '#00b0b9',
            '410 Gone',
            'Fitbit OAuth has been shut down. Use Google sign-in for the Google Health API.',
          ),
        );
    }
    return sendFitbitError(reply, 410, fitbitErrors.gone());
  });
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return sendFitbitError(reply, status, fitbitErrors.validation('n/a', error.message));
    }
    return sendFitbitError(reply, 500, fitbitErrors.system(500));
  });
  app.setNotFoundHandler((_request, reply) => sendFitbitError(reply, 404, fitbitErrors.notFound()));

  registerFitbitOAuthRoutes(app, { clock, oauth, faults, jwtSecret: randomHex(32) });
  registerFitbitApiRoutes(app, { clock, oauth, faults, limiter });
  registerControlRoutes(app, FITBIT_LEGACY_SIMULATOR_NAME, control);
  app.post('/__control/shutdown', { config: routeConfig('control') }, async (request, reply) => {
    const body = parseBody(
      z.strictObject({ at: z.union([z.string().min(1), z.number(), z.null()]) }),
      request.body,
      reply,
    );
    if (!body) return reply;
    try {
      control.setShutdownAt(body.at);
    } catch (error) {
      return reply.code(400).send({ error: (error as Error).message });
    }
    return { shutdownAt: control.shutdownAt()?.toISOString() ?? null };
  });
  await app.ready();
  return { app, control };
}
