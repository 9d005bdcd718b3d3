/**
 * Omron Partner API simulator: IdentityServer-style OAuth 2.0 / OpenID Connect, the
 * /api/measurement endpoint with deterministic blood-pressure, weight and activity data,
 * upload notifications, a rate limit, and a control API for forcing faults in tests.
 * See README.md in this folder.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { createSimulatedClock, type SimulatedClock } from '../common/clock';
import { FaultController, type FaultKind } from '../common/faults';
import type {
  ListenOptions,
  OAuthClientConfig,
  RunningSimulator,
  SimulatorOptions,
} from '../common/types';
import { OMRON_ACCOUNTS } from './accounts';
import { DEFAULT_OMRON_SCOPE, type OmronContext } from './context';
import { createOmronData, OMRON_TYPES, type OmronType } from './data';
import { apiError, respondToOmronFault } from './errors';
import { signIdToken } from './id-token';
import { registerMeasurementRoute } from './measurement-route';
import { createNotifier, type NotificationDelivery } from './notifications';
import { registerOmronOAuthRoutes } from './oauth-routes';
import { registerControlRoutes, type ProviderSimulatorControl } from '../signed-token-kit/control';
import { installFaultHooks } from '../signed-token-kit/fault-hook';
import { createAuthorizationStore, registerFormParser } from '../signed-token-kit/oauth';
import { createWindowCounter } from '../signed-token-kit/rate-limit';
import { SIGNED_TOKEN_FAULT_KINDS, startBuilt } from '../signed-token-kit/server';
import { HOUR_MS } from '../signed-token-kit/time-zone';
import { createTokenStore } from '../signed-token-kit/tokens';

export { OMRON_ACCOUNTS, type OmronAccount } from './accounts';
export type { OmronType } from './data';
export type { NotificationDelivery } from './notifications';

export type OmronSimulatorOptions = SimulatorOptions & {
  /** Key of the self-verifying tokens; keep it stable so stored tokens survive restarts. */
  tokenSecret?: string;
  /** `iss` of ID tokens. Default: the origin each request was sent to. */
  issuer?: string;
  /** Default 3600 (IdentityServer's default; Omron's is not public). */
  accessTokenTtlSeconds?: number;
  /** Default 30 days; every refresh rotates the token and starts a new period. */
  refreshTokenTtlSeconds?: number;
  /** Measurement calls per client per clock hour. Default 10,000 (invented: Omron publishes none). */
  rateLimitPerHour?: number;
  /** The partner's notification URI; can also be set through the control API. */
  notificationUri?: string;
  /** How often (real ms) the clock is checked for new uploads between control calls. Default 15 s. */
  notificationCheckIntervalMs?: number;
};

export type OmronSimulatorControl = ProviderSimulatorControl & {
  setNotificationUri(uri: string | null): void;
  /** Sends a notification for the account now, new data or not. */
  triggerNotification(accountId: string, type?: OmronType): Promise<NotificationDelivery>;
  /** Resolves once every queued notification was delivered; returns the delivery log. */
  notificationsSettled(): Promise<NotificationDelivery[]>;
};

export type RunningOmronSimulator = Omit<RunningSimulator, 'control'> & {
  control: OmronSimulatorControl;
  endpoints: {
    authorization: string;
    token: string;
    revocation: string;
    measurement: string;
    discovery: string;
  };
};

export const DEFAULT_OMRON_CLIENT: OAuthClientConfig = {
  clientId: 'trialpulse-demo-omron',
  clientSecret: 'trialpulse-demo-omron-secret',
};

export const OMRON_FAULT_KINDS: FaultKind[] = SIGNED_TOKEN_FAULT_KINDS;

/** Builds the Omron simulator app without listening (e.g. for `app.inject`). */
export async function createOmronSimulator(
  options: OmronSimulatorOptions = {},
): Promise<FastifyInstance> {
  return buildOmronSimulator(options).app;
}

/**
 * Builds and starts the Omron simulator. Port 0 (default) picks a free port; host defaults
 * to 127.0.0.1.
 */
export async function startOmronSimulator(
  options: OmronSimulatorOptions & ListenOptions = {},
): Promise<RunningOmronSimulator> {
  return startBuilt('omron', buildOmronSimulator(options), options, (baseUrl) => ({
    authorization: `${baseUrl}/connect/authorize`,
    token: `${baseUrl}/connect/token`,
    revocation: `${baseUrl}/connect/revocation`,
    measurement: `${baseUrl}/api/measurement`,
    discovery: `${baseUrl}/.well-known/openid-configuration`,
  }));
}

function buildOmronSimulator(options: OmronSimulatorOptions) {
  const clock: SimulatedClock =
    options.clock ??
    createSimulatedClock({ start: options.startTime, frozen: options.frozenClock });
  const clients = options.clients ?? [DEFAULT_OMRON_CLIENT];
  const accounts = OMRON_ACCOUNTS;
  let baseUrl: string | undefined;
  const tokens = createTokenStore({
    secret: options.tokenSecret ?? 'trialpulse-omron-simulator',
    clock,
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 3600,
    refreshTokenTtlSeconds: options.refreshTokenTtlSeconds ?? 30 * 24 * 3600,
    accessClaims: (grant) => ({
      iss: options.issuer ?? baseUrl ?? 'omron-simulator',
      aud: 'omronapi',
      sub: grant.accountId,
      scope: grant.scope.split(' '),
      idp: 'local',
      amr: ['pwd'],
    }),
  });
  const data = createOmronData();
  const faults = new FaultController(OMRON_FAULT_KINDS);
  const rateLimit = createWindowCounter({
    limit: options.rateLimitPerHour ?? 10_000,
    windowMs: HOUR_MS,
    clock,
  });
  const authorizations = createAuthorizationStore({ clock, codeTtlSeconds: 300 });
  const notifier = createNotifier({
    clock,
    data,
    accounts,
    linkedAccounts: () => tokens.linkedAccounts(),
    uri: options.notificationUri,
    checkIntervalMs: options.notificationCheckIntervalMs ?? 15_000,
  });

  const ctx: OmronContext = {
    clock,
    faults,
    accounts,
    clients,
    tokens,
    authorizations,
    data,
    rateLimit,
    idTokenTtlSeconds: 300,
    issuerFor: (request) =>
      options.issuer ??
      (request ? `${request.protocol}://${request.host}` : (baseUrl ?? 'omron-simulator')),
    tokenResponse(issued, issuer, nonce) {
      const scopes = issued.grant.scope.split(' ');
      const body: Record<string, unknown> = {};
      if (scopes.includes('openid')) {
        const iat = Math.floor(clock.nowMs() / 1000);
        body.id_token = signIdToken({
          iss: issuer,
          aud: issued.grant.clientId,
          sub: issued.grant.accountId,
          iat,
          nbf: iat,
          exp: iat + ctx.idTokenTtlSeconds,
          auth_time: iat,
          idp: 'local',
          amr: ['pwd'],
          ...(nonce ? { nonce } : {}),
        });
      }
      body.access_token = issued.accessToken;
      body.expires_in = issued.expiresIn;
      body.token_type = 'Bearer';
      // Refresh tokens only with offline_access, as OpenID Connect providers do.
      if (scopes.includes('offline_access')) body.refresh_token = issued.refreshToken;
      body.scope = issued.grant.scope;
      return body;
    },
  };

  // forceCloseConnections: a pending slow fault never keeps close() waiting.
  const app = Fastify({ logger: options.logger ?? false, forceCloseConnections: true });
  registerFormParser(app);
  installFaultHooks(
    app,
    faults,
    (path) => {
      if (path.startsWith('/__control')) return 'control';
      if (path.startsWith('/api/')) return 'api';
      if (path === '/connect/token') return 'token';
      if (path === '/connect/revocation') return 'revoke';
      if (path.startsWith('/connect/authorize')) return 'authorize';
      return 'other';
    },
    respondToOmronFault,
  );
  app.setErrorHandler((error, _request, reply) => {
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    return apiError(
      reply,
      status,
      status >= 500 ? 'Internal Server Error' : (error as Error).message,
    );
  });
  app.setNotFoundHandler((_request, reply) => apiError(reply, 404, 'Not Found'));
  registerOmronOAuthRoutes(app, ctx);
  registerMeasurementRoute(app, ctx);

  const control: OmronSimulatorControl = {
    clock,
    now: () => clock.now(),
    advanceClock(ms) {
      const now = clock.advance(ms);
      notifier.checkNow();
      return now;
    },
    setClock(time) {
      const now = clock.set(time);
      notifier.checkNow();
      return now;
    },
    injectFault: (spec) => faults.inject(spec),
    faults: () => faults.list(),
    clearFaults: () => faults.clear(),
    expireAccessTokens: (filter) => tokens.expireAccessTokens(filter),
    revokeTokens: (filter) => tokens.revokeGrants(filter),
    resetRateLimits: () => rateLimit.reset(),
    issueTokens({ accountId, clientId, scope }) {
      if (!accounts.some((a) => a.id === accountId))
        throw new RangeError(`Unknown Omron account: ${accountId}`);
      const client = clients.find((c) => c.clientId === (clientId ?? clients[0]?.clientId));
      if (!client) throw new RangeError(`Unknown client: ${clientId}`);
      const issued = tokens.issue({
        accountId,
        clientId: client.clientId,
        scope: scope ?? DEFAULT_OMRON_SCOPE,
      });
      return ctx.tokenResponse(issued, ctx.issuerFor());
    },
    setRateLimitUsage(used, key) {
      rateLimit.setUsed(key ?? clients[0]?.clientId ?? '', used);
    },
    accounts: () => accounts.map((a) => ({ id: a.id, name: a.name, description: a.description })),
    setNotificationUri: (uri) => notifier.setUri(uri),
    triggerNotification(accountId, type) {
      if (!accounts.some((a) => a.id === accountId))
        throw new RangeError(`Unknown Omron account: ${accountId}`);
      return notifier.trigger(accountId, type);
    },
    notificationsSettled: () => notifier.settled(),
    reset() {
      clock.reset();
      faults.clear();
      tokens.reset();
      rateLimit.reset();
      authorizations.reset();
      notifier.reset();
    },
  };

  registerControlRoutes(
    app,
    'omron',
    control,
    () => ({
      notificationUri: notifier.uri,
      linkedAccounts: tokens.linkedAccounts(),
      rateLimitPerHour: rateLimit.limit,
    }),
    (scope) => {
      scope.put('/__control/notifications', async (request) => {
        const body = z.strictObject({ uri: z.url().nullable() }).parse(request.body);
        notifier.setUri(body.uri);
        return { uri: body.uri };
      });
      scope.get('/__control/notifications', async () => ({
        uri: notifier.uri,
        deliveries: await notifier.settled(),
      }));
      scope.post('/__control/notifications/trigger', async (request) => {
        const body = z
          .strictObject({ accountId: z.string(), type: z.enum(OMRON_TYPES).optional() })
          .parse(request.body);
        return control.triggerNotification(body.accountId, body.type);
      });
    },
  );
  app.addHook('onClose', async () => notifier.close());

  return {
    app,
    control,
    setBaseUrl: (url: string) => {
      baseUrl = url;
    },
  };
}
