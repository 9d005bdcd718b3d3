/**
 * Dexcom API v3 simulator (sandbox style): OAuth 2.0 under /v2/oauth2 with rotating refresh
 * tokens, the v3 data endpoints with deterministic CGM data for SandboxUser1…7, the 30-day
 * window, 60,000 calls per app per hour, and a control API for forcing faults in tests.
 * See README.md in this folder.
 */
import type { FastifyInstance } from 'fastify';
import { MINUTE_MS } from '../common/civil-time';
import type { FaultKind } from '../common/faults';
import {
  createSignedTokenProvider,
  SIGNED_TOKEN_FAULT_KINDS,
  startSignedTokenProvider,
  type SignedTokenProviderOptions,
} from '../common/signed-token-provider';
import { registerControlRoutes } from '../common/control-routes';
import type {
  ListenOptions,
  OAuthClientConfig,
  ProviderSimulatorControl,
  RunningSimulator,
} from '../common/types';
import { DEXCOM_ACCOUNTS } from './accounts';
import type { DexcomContext } from './context';
import { createDexcomData } from './data';
import { registerDexcomDataRoutes } from './data-routes';
import { dexcomError, respondToDexcomFault } from './errors';
import { DEXCOM_SCOPE, registerDexcomOAuthRoutes, tokenBody } from './oauth-routes';
import { dexcomUserId } from './user-id';

export { DEXCOM_ACCOUNTS, type DexcomAccount } from './accounts';
export { dexcomUserId } from './user-id';

/**
 * Defaults: access tokens 7200 s (Dexcom's), refresh tokens one year, 60,000 calls per app
 * per clock hour (Dexcom's).
 */
export type DexcomSimulatorOptions = SignedTokenProviderOptions & {
  /** `iss`/`aud` of access tokens. Default: the simulator's base URL once listening. */
  issuer?: string;
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
  return startSignedTokenProvider('dexcom', buildDexcomSimulator(options), options, (baseUrl) => ({
    authorization: `${baseUrl}/v2/oauth2/login`,
    token: `${baseUrl}/v2/oauth2/token`,
    api: `${baseUrl}/v3/users/self`,
  }));
}

function buildDexcomSimulator(options: DexcomSimulatorOptions) {
  const provider = createSignedTokenProvider('Dexcom', options, {
    defaults: {
      client: DEFAULT_DEXCOM_CLIENT,
      tokenSecret: 'trialpulse-dexcom-simulator',
      accessTokenTtlSeconds: 7200,
      refreshTokenTtlSeconds: 365 * 24 * 3600,
      rateLimitPerHour: 60_000,
      codeTtlSeconds: 600,
      scope: DEXCOM_SCOPE,
    },
    accounts: DEXCOM_ACCOUNTS.map((a) => ({ id: a.id, name: a.id, description: a.description })),
    // The claims of a decoded sandbox token.
    accessClaims: (grant, baseUrl) => {
      const issuer = options.issuer ?? baseUrl ?? 'https://sandbox-api.dexcom.com';
      return {
        iss: issuer,
        aud: issuer,
        sub: dexcomUserId(grant.accountId, grant.clientId),
        scope: ['egv', 'calibration', 'device', 'event', 'statistics', 'offline_access'],
      };
    },
    classify: (path) => {
      if (path.startsWith('/__control')) return 'control';
      if (path.startsWith('/v3/')) return 'api';
      if (path === '/v2/oauth2/token') return 'token';
      if (path.startsWith('/v2/oauth2/login')) return 'authorize';
      return 'other';
    },
    respondToFault: respondToDexcomFault,
    tokenBody,
  });
  const { app, control } = provider;
  const ctx: DexcomContext = {
    clock: provider.clock,
    faults: provider.faults,
    accounts: DEXCOM_ACCOUNTS,
    clients: provider.clients,
    tokens: provider.tokens,
    authorizations: provider.authorizations,
    data: createDexcomData({ delayMs: (options.dataDelayMinutes ?? 60) * MINUTE_MS }),
    rateLimit: provider.rateLimit,
  };

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
  registerControlRoutes(app, 'dexcom', control, { state: provider.state });

  return { app, control, setBaseUrl: provider.setBaseUrl };
}
