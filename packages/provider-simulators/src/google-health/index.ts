import type { FastifyError, FastifyInstance } from 'fastify';
import { SIMULATED_ACCOUNTS, summarizeAccount } from '../common/accounts';
import { createSimulatorControl } from '../common/control';
import { registerControlRoutes } from '../common/control-routes';
import { FaultController } from '../common/faults';
import { OAuthStore } from '../common/oauth';
import { FixedWindowRateLimiter } from '../common/rate-limit';
import { createSimulatorApp, listenSimulator, resolveClock } from '../common/server';
import type {
  ListenOptions,
  RunningSimulator,
  SimulatorControl,
  SimulatorOptions,
} from '../common/types';
import { registerGoogleApiRoutes } from './api-routes';
import { registerGoogleWebhooks } from './webhooks';
import { createGoogleCallLog } from './call-log';
import { createDataEdits } from './data-edits';
import { googleErrors, sendGoogleError } from './errors';
import { registerGoogleOAuthRoutes } from './oauth-routes';

/**
 * Google Health API simulator (the successor of the Fitbit Web API). One server plays
 * accounts.google.com (consent page), oauth2.googleapis.com (token, revoke) and
 * health.googleapis.com (/v4 data), so a client needs only its base URL. See README.md.
 */

export const GOOGLE_HEALTH_SIMULATOR_NAME = 'google-health';

export const DEFAULT_GOOGLE_CLIENT = {
  clientId: 'trialpulse-demo-google',
  clientSecret: 'trialpulse-demo-google-secret',
} as const;

/** Google allows 300 requests per user per minute (facts §11). */
export const GOOGLE_USER_REQUESTS_PER_MINUTE = 300;

export interface GoogleHealthSimulatorOptions extends SimulatorOptions {
  /**
   * OAuth consent screen publishing status. 'testing' adds `refresh_token_expires_in:
   * 604799` and expires refresh tokens after 7 days, as Google does for apps in testing.
   * Default 'production'.
   */
  publishingStatus?: 'production' | 'testing';
  /** How often webhook subscribers are notified of new data (default 60 s of real time). */
  webhookCheckIntervalMs?: number;
}

/** Paths relative to the simulator's base URL, for client configuration. */
export const GOOGLE_HEALTH_PATHS = {
  authorize: '/o/oauth2/v2/auth',
  token: '/token',
  revoke: '/revoke',
  discovery: '/.well-known/openid-configuration',
  api: '/v4',
} as const;

/** Builds the simulator app without listening (use app.inject or listen yourself). */
export async function createGoogleHealthSimulator(
  options: GoogleHealthSimulatorOptions = {},
): Promise<FastifyInstance> {
  return (await buildGoogleHealthSimulator(options)).app;
}

/** Starts the simulator on a port (default: a free one) and returns its base URL and controls. */
export async function startGoogleHealthSimulator(
  options: GoogleHealthSimulatorOptions & ListenOptions = {},
): Promise<RunningSimulator> {
  const { app, control } = await buildGoogleHealthSimulator(options);
  return listenSimulator(GOOGLE_HEALTH_SIMULATOR_NAME, app, control, options);
}

async function buildGoogleHealthSimulator(
  options: GoogleHealthSimulatorOptions,
): Promise<{ app: FastifyInstance; control: SimulatorControl }> {
  const clock = resolveClock(options);
  const oauth = new OAuthStore(clock, options.clients ?? [DEFAULT_GOOGLE_CLIENT]);
  const faults = new FaultController([
    'expired-token',
    'revoked-token',
    'invalid-grant',
    'rate-limit',
    'server-error',
    'slow',
    'drop-connection',
    'truncated-json',
    'account-not-linked',
  ]);
  const limiter = new FixedWindowRateLimiter(GOOGLE_USER_REQUESTS_PER_MINUTE, 60_000);
  const calls = createGoogleCallLog(GOOGLE_USER_REQUESTS_PER_MINUTE);
  const edits = createDataEdits();
  const control = createSimulatorControl({
    clock,
    oauth,
    faults,
    rateLimiters: [limiter],
    accounts: () => SIMULATED_ACCOUNTS.map(summarizeAccount),
    onReset: () => {
      calls.reset();
      edits.reset();
    },
  });

  const app = createSimulatorApp(options);
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error.statusCode === 400 || error.statusCode === 415 || error instanceof SyntaxError) {
      return sendGoogleError(
        reply,
        googleErrors.invalidArgument(`Invalid JSON payload received. ${error.message}`),
      );
    }
    if (error.statusCode === 413)
      return sendGoogleError(reply, googleErrors.invalidArgument('Request payload too large.'));
    return sendGoogleError(reply, googleErrors.serverError(500));
  });
  app.setNotFoundHandler((_request, reply) => sendGoogleError(reply, googleErrors.notFound()));

  registerGoogleOAuthRoutes(app, {
    clock,
    oauth,
    faults,
    publishingStatus: options.publishingStatus ?? 'production',
  });
  registerGoogleApiRoutes(app, { clock, oauth, faults, limiter, calls, edits });
  calls.registerRoutes(app);
  edits.registerRoutes(app);
  registerGoogleWebhooks(app, {
    clock,
    oauth,
    ...(options.webhookCheckIntervalMs !== undefined && {
      checkIntervalMs: options.webhookCheckIntervalMs,
    }),
  });
  registerControlRoutes(app, GOOGLE_HEALTH_SIMULATOR_NAME, control);
  await app.ready();
  return { app, control };
}
