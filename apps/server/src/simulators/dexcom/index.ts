/**
 * Dexcom API v3 simulator (sandbox style): OAuth 2.0 under /v2/oauth2 with rotating refresh
 * tokens, the v3 data endpoints with deterministic CGM data for SandboxUser1…7, the 30-day
 * window, 60,000 calls per app per hour, and a control API for forcing faults in tests.
 * See README.md in this folder.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { createSimulatedClock, type SimulatedClock } from '../common/clock';
import { FaultController, type FaultKind } from '../common/faults';
import type {
  ListenOptions,
  OAuthClientConfig,
  RunningSimulator,
  SimulatorOptions,
} from '../common/types';
import { DEXCOM_ACCOUNTS } from './accounts';
import type { DexcomContext } from './context';
import { createDexcomData } from './data';
import { registerDexcomDataRoutes } from './data-routes';
import { dexcomError, respondToDexcomFault } from './errors';
import { DEXCOM_SCOPE, registerDexcomOAuthRoutes, tokenBody } from './oauth-routes';
import { dexcomUserId } from './user-id';
import { registerControlRoutes, type ProviderSimulatorControl } from '../signed-token-kit/control';
import { installFaultHooks } from '../signed-token-kit/fault-hook';
import { createAuthorizationStore, registerFormParser } from '../signed-token-kit/oauth';
import { createWindowCounter } from '../signed-token-kit/rate-limit';
import { SIGNED_TOKEN_FAULT_KINDS, startBuilt } from '../signed-token-kit/server';
import { HOUR_MS, MINUTE_MS } from '../signed-token-kit/time-zone';
import { createTokenStore } from '../signed-token-kit/tokens';

export { DEXCOM_ACCOUNTS, type DexcomAccount } from './accounts';
export { dexcomUserId } from './user-id';

export type DexcomSimulatorOptions = SimulatorOptions & {
  /** Key of the self-verifying tokens; keep it stable so stored tokens survive restarts. */
  tokenSecret?: string;
  /** `iss`/`aud` of access tokens. Default: the simulator's base URL once listening. */
  issuer?: string;
  /** Default 7200 (Dexcom's). */
  accessTokenTtlSeconds?: number;
  /** Default one year; every refresh rotates the token. */
  refreshTokenTtlSeconds?: number;
  /** Calls per app per clock hour. Default 60,000 (Dexcom's). */
  rateLimitPerHour?: number;
  /** How far the API lags behind uploads. Default 60 minutes (the US delay is 1–3 h). */
  dataDelayMinutes?: number;
};

export type DexcomSimulatorControl = ProviderSimulatorControl;

export type RunningDexcomSimulator = Omit<RunningSimulator, 'control'> & {
  control: DexcomSimulatorControl;
  endpoints: { authorization: string; token: string; api: string };
};

export const DEFAULT_DEXCOM_CLIENT: OAuthClientConfig = {
  clientId: 'trialpulse-demo-dexcom',
  clientSecret: 'trialpulse-demo-dexcom-secret',
};

export const DEXCOM_FAULT_KINDS: FaultKind[] = SIGNED_TOKEN_FAULT_KINDS;

/** Builds the Dexcom simulator app without listening (e.g. for `app.inject`). */
export async function createDexcomSimulator(
  options: DexcomSimulatorOptions = {},
): Promise<FastifyInstance> {
  return buildDexcomSimulator(options).app;
}

/**
 * Builds and starts the Dexcom simulator. Port 0 (default) picks a free port; host defaults
 * to 127.0.0.1.
 */
export async function startDexcomSimulator(
  options: DexcomSimulatorOptions & ListenOptions = {},
): Promise<RunningDexcomSimulator> {
  return startBuilt('dexcom', buildDexcomSimulator(options), options, (baseUrl) => ({
    authorization: `${baseUrl}/v2/oauth2/login`,
    token: `${baseUrl}/v2/oauth2/token`,
    api: `${baseUrl}/v3/users/self`,
  }));
}

function buildDexcomSimulator(options: DexcomSimulatorOptions) {
  const clock: SimulatedClock =
    options.clock ??
    createSimulatedClock({ start: options.startTime, frozen: options.frozenClock });
  const clients = options.clients ?? [DEFAULT_DEXCOM_CLIENT];
  const accounts = DEXCOM_ACCOUNTS;
  let baseUrl: string | undefined;
  const tokens = createTokenStore({
    secret: options.tokenSecret ?? 'trialpulse-dexcom-simulator',
    clock,
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 7200,
    refreshTokenTtlSeconds: options.refreshTokenTtlSeconds ?? 365 * 24 * 3600,
    // The claims of a decoded sandbox token.
    accessClaims: (grant) => {
      const issuer = options.issuer ?? baseUrl ?? 'https://sandbox-api.dexcom.com';
      return {
        iss: issuer,
        aud: issuer,
        sub: dexcomUserId(grant.accountId, grant.clientId),
        scope: ['egv', 'calibration', 'device', 'event', 'statistics', 'offline_access'],
      };
    },
  });
  const ctx: DexcomContext = {
    clock,
    faults: new FaultController(DEXCOM_FAULT_KINDS),
    accounts,
    clients,
    tokens,
    authorizations: createAuthorizationStore({ clock, codeTtlSeconds: 600 }),
    data: createDexcomData({ delayMs: (options.dataDelayMinutes ?? 60) * MINUTE_MS }),
    rateLimit: createWindowCounter({
      limit: options.rateLimitPerHour ?? 60_000,
      windowMs: HOUR_MS,
      clock,
    }),
  };

  // forceCloseConnections: a pending slow fault never keeps close() waiting.
  const app = Fastify({ logger: options.logger ?? false, forceCloseConnections: true });
  registerFormParser(app);
  installFaultHooks(
    app,
    ctx.faults,
    (path) => {
      if (path.startsWith('/__control')) return 'control';
      if (path.startsWith('/v3/')) return 'api';
      if (path === '/v2/oauth2/token') return 'token';
      if (path.startsWith('/v2/oauth2/login')) return 'authorize';
      return 'other';
    },
    respondToDexcomFault,
  );
  app.setErrorHandler((error, _request, reply) => {
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    return status >= 500
      ? dexcomError(reply, status, 'server_error', 'Internal Server Error')
      : dexcomError(reply, status, 'invalid_request', (error as Error).message);
  });
  app.setNotFoundHandler((_request, reply) =>
    dexcomError(reply, 404, 'not_found', 'Resource not found'),
  );
  registerDexcomOAuthRoutes(app, ctx);
  registerDexcomDataRoutes(app, ctx);

  const control: DexcomSimulatorControl = {
    clock,
    now: () => clock.now(),
    advanceClock: (ms) => clock.advance(ms),
    setClock: (time) => clock.set(time),
    injectFault: (spec) => ctx.faults.inject(spec),
    faults: () => ctx.faults.list(),
    clearFaults: () => ctx.faults.clear(),
    expireAccessTokens: (filter) => tokens.expireAccessTokens(filter),
    revokeTokens: (filter) => tokens.revokeGrants(filter),
    resetRateLimits: () => ctx.rateLimit.reset(),
    issueTokens({ accountId, clientId, scope }) {
      if (!accounts.some((a) => a.id === accountId))
        throw new RangeError(`Unknown Dexcom account: ${accountId}`);
      const client = clients.find((c) => c.clientId === (clientId ?? clients[0]?.clientId));
      if (!client) throw new RangeError(`Unknown client: ${clientId}`);
      return tokenBody(
        tokens.issue({ accountId, clientId: client.clientId, scope: scope ?? DEXCOM_SCOPE }),
      );
    },
    setRateLimitUsage(used, key) {
      ctx.rateLimit.setUsed(key ?? clients[0]?.clientId ?? '', used);
    },
    accounts: () => accounts.map((a) => ({ id: a.id, name: a.id, description: a.description })),
    reset() {
      clock.reset();
      ctx.faults.clear();
      tokens.reset();
      ctx.rateLimit.reset();
      ctx.authorizations.reset();
    },
  };
  registerControlRoutes(app, 'dexcom', control, () => ({
    linkedAccounts: tokens.linkedAccounts(),
    rateLimitPerHour: ctx.rateLimit.limit,
  }));

  return {
    app,
    control,
    setBaseUrl: (url: string) => {
      baseUrl = url;
    },
  };
}
