/**
 * Omron Partner API simulator: IdentityServer-style OAuth 2.0 / OpenID Connect, the
 * /api/measurement endpoint with deterministic blood-pressure, weight and activity data,
 * upload notifications, a rate limit, and a control API for forcing faults in tests.
 * See README.md in this folder.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { registerControlRoutes } from '../common/control-routes';
import type { FaultKind } from '../common/faults';
import {
  createSignedTokenProvider,
  SIGNED_TOKEN_FAULT_KINDS,
  startSignedTokenProvider,
  type SignedTokenProviderOptions,
} from '../common/signed-token-provider';
import type {
  ListenOptions,
  OAuthClientConfig,
  ProviderSimulatorControl,
  RunningSimulator,
} from '../common/types';
import { OMRON_ACCOUNTS } from './accounts';
import { DEFAULT_OMRON_SCOPE, type OmronContext } from './context';
import { createOmronData, OMRON_TYPES, type OmronType } from './data';
import { apiError, respondToOmronFault } from './errors';
import { signIdToken } from './id-token';
import { registerMeasurementRoute } from './measurement-route';
import { createNotifier, type NotificationDelivery } from './notifications';
import { registerOmronOAuthRoutes } from './oauth-routes';

export { OMRON_ACCOUNTS, type OmronAccount } from './accounts';
export type { OmronType } from './data';
export type { NotificationDelivery } from './notifications';

/**
 * Defaults: access tokens 3600 s (IdentityServer's default; Omron's is not public), refresh
 * tokens 30 days, 10,000 measurement calls per client per clock hour (invented: Omron
 * publishes none).
 */
export type OmronSimulatorOptions = SignedTokenProviderOptions & {
  /** `iss` of ID tokens. Default: the origin each request was sent to. */
  issuer?: string;
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
  return startSignedTokenProvider('omron', buildOmronSimulator(options), options, (baseUrl) => ({
    authorization: `${baseUrl}/connect/authorize`,
    token: `${baseUrl}/connect/token`,
    revocation: `${baseUrl}/connect/revocation`,
    measurement: `${baseUrl}/api/measurement`,
    discovery: `${baseUrl}/.well-known/openid-configuration`,
  }));
}

function buildOmronSimulator(options: OmronSimulatorOptions) {
  const provider = createSignedTokenProvider('Omron', options, {
    defaults: {
      client: DEFAULT_OMRON_CLIENT,
      tokenSecret: 'trialpulse-omron-simulator',
      accessTokenTtlSeconds: 3600,
      refreshTokenTtlSeconds: 30 * 24 * 3600,
      rateLimitPerHour: 10_000,
      codeTtlSeconds: 300,
      scope: DEFAULT_OMRON_SCOPE,
    },
    accounts: OMRON_ACCOUNTS.map((a) => ({ id: a.id, name: a.name, description: a.description })),
    accessClaims: (grant, baseUrl) => ({
      iss: options.issuer ?? baseUrl ?? 'omron-simulator',
      aud: 'omronapi',
      sub: grant.accountId,
      scope: grant.scope.split(' '),
      idp: 'local',
      amr: ['pwd'],
    }),
    classify: (path) => {
      if (path.startsWith('/__control')) return 'control';
      if (path.startsWith('/api/')) return 'api';
      if (path === '/connect/token') return 'token';
      if (path === '/connect/revocation') return 'revoke';
      if (path.startsWith('/connect/authorize')) return 'authorize';
      return 'other';
    },
    respondToFault: respondToOmronFault,
    tokenBody: (issued) => ctx.tokenResponse(issued, ctx.issuerFor()),
  });
  const { app, clock, tokens } = provider;
  const accounts = OMRON_ACCOUNTS;
  const data = createOmronData();
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
    faults: provider.faults,
    accounts,
    clients: provider.clients,
    tokens,
    authorizations: provider.authorizations,
    data,
    rateLimit: provider.rateLimit,
    idTokenTtlSeconds: 300,
    issuerFor: (request) =>
      options.issuer ??
      (request
        ? `${request.protocol}://${request.host}`
        : (provider.baseUrl() ?? 'omron-simulator')),
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

  const base = provider.control;
  const control: OmronSimulatorControl = {
    ...base,
    advanceClock(ms) {
      const now = base.advanceClock(ms);
      notifier.checkNow();
      return now;
    },
    setClock(time) {
      const now = base.setClock(time);
      notifier.checkNow();
      return now;
    },
    setNotificationUri: (uri) => notifier.setUri(uri),
    triggerNotification(accountId, type) {
      if (!accounts.some((a) => a.id === accountId))
        throw new RangeError(`Unknown Omron account: ${accountId}`);
      return notifier.trigger(accountId, type);
    },
    notificationsSettled: () => notifier.settled(),
    reset() {
      base.reset();
      notifier.reset();
    },
  };

  registerControlRoutes(app, 'omron', control, {
    state: () => ({ notificationUri: notifier.uri, ...provider.state() }),
    more: (scope) => {
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
  });
  app.addHook('onClose', async () => notifier.close());

  return { app, control, setBaseUrl: provider.setBaseUrl };
}
