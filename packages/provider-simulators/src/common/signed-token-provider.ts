/**
 * What the signed-token providers (Omron, Dexcom) share beyond the other building blocks:
 * their store of consent requests and authorization codes, their fault kinds, and the
 * assembly of a simulator — clock, self-verifying tokens (signed-tokens.ts), faults, hourly
 * rate limit, the Fastify app with the OAuth fault hook, and the control object — which each
 * provider's index.ts completes with its own routes, error shapes and extra controls.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { SimulatedClock } from './clock';
import { HOUR_MS } from './civil-time';
import {
  FaultController,
  installOAuthFaultHook,
  type FaultKind,
  type FaultResponder,
  type RouteKind,
} from './faults';
import { FixedWindowRateLimiter } from './rate-limit';
import { createSimulatorApp, listenSimulator, resolveClock } from './server';
import {
  createTokenStore,
  type GrantInfo,
  type IssuedTokens,
  type TokenStore,
} from './signed-tokens';
import type {
  ListenOptions,
  OAuthClientConfig,
  ProviderAccountSummary,
  ProviderSimulatorControl,
  SimulatorOptions,
} from './types';

/** Fault kinds the signed-token providers can produce (no ACCOUNT_NOT_LINKED: a Google Health state). */
export const SIGNED_TOKEN_FAULT_KINDS: FaultKind[] = [
  'expired-token',
  'revoked-token',
  'invalid-grant',
  'rate-limit',
  'server-error',
  'slow',
  'drop-connection',
  'truncated-json',
];

/** Options both signed-token providers accept. */
export type SignedTokenProviderOptions = SimulatorOptions & {
  /** Key of the self-verifying tokens; keep it stable so stored tokens survive restarts. */
  tokenSecret?: string;
  accessTokenTtlSeconds?: number;
  /** Every refresh rotates the refresh token and starts a new period. */
  refreshTokenTtlSeconds?: number;
  /** Calls per client per clock hour. */
  rateLimitPerHour?: number;
};

export type SignedTokenProviderSetup = {
  /** Defaults for the options a caller leaves out, and the provider's token lifetimes. */
  defaults: {
    client: OAuthClientConfig;
    tokenSecret: string;
    accessTokenTtlSeconds: number;
    refreshTokenTtlSeconds: number;
    rateLimitPerHour: number;
    codeTtlSeconds: number;
    /** Scope of tokens minted by the control API when none is asked for. */
    scope: string;
  };
  accounts: ProviderAccountSummary[];
  /** Extra claims of the access token JWT; `baseUrl` is known once the simulator listens. */
  accessClaims: (grant: GrantInfo, baseUrl: string | undefined) => Record<string, unknown>;
  /** Which fault target a path is (authorize, token and revoke faults apply before routing). */
  classify: (path: string) => RouteKind;
  respondToFault: FaultResponder;
  /** The provider's token endpoint body, for tokens minted by the control API. */
  tokenBody: (issued: IssuedTokens) => Record<string, unknown>;
};

export type SignedTokenProvider = {
  clock: SimulatedClock;
  clients: OAuthClientConfig[];
  tokens: TokenStore;
  faults: FaultController;
  rateLimit: FixedWindowRateLimiter;
  authorizations: AuthorizationStore;
  app: FastifyInstance;
  /** The base URL once listening (set by startSignedTokenProvider). */
  baseUrl(): string | undefined;
  setBaseUrl(url: string): void;
  control: ProviderSimulatorControl;
  /** Provider state for GET /__control. */
  state(): Record<string, unknown>;
};

/**
 * Builds the parts every signed-token provider has. The provider then sets its error and
 * not-found handlers, registers its routes, and registers the control routes with
 * `control` (extended with its own controls) and `state`.
 */
export function createSignedTokenProvider(
  name: string,
  options: SignedTokenProviderOptions,
  setup: SignedTokenProviderSetup,
): SignedTokenProvider {
  const { defaults } = setup;
  const clock = resolveClock(options);
  const clients = options.clients ?? [defaults.client];
  let baseUrl: string | undefined;
  const tokens = createTokenStore({
    secret: options.tokenSecret ?? defaults.tokenSecret,
    clock,
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? defaults.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: options.refreshTokenTtlSeconds ?? defaults.refreshTokenTtlSeconds,
    accessClaims: (grant) => setup.accessClaims(grant, baseUrl),
  });
  const faults = new FaultController(SIGNED_TOKEN_FAULT_KINDS);
  const rateLimit = new FixedWindowRateLimiter(
    options.rateLimitPerHour ?? defaults.rateLimitPerHour,
    HOUR_MS,
  );
  const authorizations = createAuthorizationStore({
    clock,
    codeTtlSeconds: defaults.codeTtlSeconds,
  });
  const app = createSimulatorApp(options);
  installOAuthFaultHook(app, faults, setup.classify, setup.respondToFault);

  const control: ProviderSimulatorControl = {
    clock,
    now: () => clock.now(),
    advanceClock: (ms) => clock.advance(ms),
    setClock: (time) => clock.set(time),
    injectFault: (spec) => faults.inject(spec),
    faults: () => faults.list(),
    clearFaults: () => faults.clear(),
    expireAccessTokens: (filter) => tokens.expireAccessTokens(filter),
    revokeTokens: (filter) => tokens.revokeGrants(filter),
    resetRateLimits: () => rateLimit.reset(),
    issueTokens({ accountId, clientId, scope }) {
      if (!setup.accounts.some((a) => a.id === accountId))
        throw new RangeError(`Unknown ${name} account: ${accountId}`);
      const client = clients.find((c) => c.clientId === (clientId ?? clients[0]?.clientId));
      if (!client) throw new RangeError(`Unknown client: ${clientId}`);
      return setup.tokenBody(
        tokens.issue({ accountId, clientId: client.clientId, scope: scope ?? defaults.scope }),
      );
    },
    setRateLimitUsage(used, key) {
      rateLimit.setCount(key ?? clients[0]?.clientId ?? '', used, clock.nowMs());
    },
    accounts: () => setup.accounts,
    reset() {
      clock.reset();
      faults.clear();
      tokens.reset();
      rateLimit.reset();
      authorizations.reset();
    },
  };

  return {
    clock,
    clients,
    tokens,
    faults,
    rateLimit,
    authorizations,
    app,
    baseUrl: () => baseUrl,
    setBaseUrl: (url) => {
      baseUrl = url;
    },
    control,
    state: () => ({ linkedAccounts: tokens.linkedAccounts(), rateLimitPerHour: rateLimit.limit }),
  };
}

/**
 * Listens (port 0, the default, picks a free port; host defaults to 127.0.0.1) and answers
 * the running simulator with its endpoint URLs on the chosen base URL.
 */
export async function startSignedTokenProvider<Control extends ProviderSimulatorControl, Endpoints>(
  name: string,
  built: { app: FastifyInstance; control: Control; setBaseUrl: (baseUrl: string) => void },
  options: ListenOptions,
  endpoints: (baseUrl: string) => Endpoints,
) {
  const running = await listenSimulator(name, built.app, built.control, options);
  built.setBaseUrl(running.baseUrl);
  return { ...running, endpoints: endpoints(running.baseUrl) };
}

export type AuthorizationRequest = {
  clientId: string;
  redirectUri: string;
  scope: string;
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: 'S256' | 'plain';
};

export type IssuedCode = AuthorizationRequest & { accountId: string; expiresAt: number };

export type AuthorizationStore = ReturnType<typeof createAuthorizationStore>;

/**
 * Consent requests waiting for the Allow/Deny form, and issued authorization codes. Both are
 * short-lived and single-use, and both expire on the simulator clock. (Google Health and
 * Fitbit keep theirs in OAuthStore with their stored tokens; these providers store no tokens.)
 */
export function createAuthorizationStore(options: {
  clock: SimulatedClock;
  codeTtlSeconds: number;
}) {
  const pending = new Map<string, { request: AuthorizationRequest; expiresAt: number }>();
  const codes = new Map<string, IssuedCode>();
  const pendingTtlMs = 30 * 60_000;

  function prune() {
    const now = options.clock.nowMs();
    for (const [id, entry] of pending) if (entry.expiresAt <= now) pending.delete(id);
    for (const [code, entry] of codes) if (entry.expiresAt <= now - HOUR_MS) codes.delete(code);
  }

  return {
    /** Stores a validated request; the consent form carries only the returned id. */
    addPending(request: AuthorizationRequest): string {
      prune();
      const id = randomUUID();
      pending.set(id, { request, expiresAt: options.clock.nowMs() + pendingTtlMs });
      return id;
    },
    takePending(id: string): AuthorizationRequest | undefined {
      const entry = pending.get(id);
      pending.delete(id);
      return entry && entry.expiresAt > options.clock.nowMs() ? entry.request : undefined;
    },
    issueCode(request: AuthorizationRequest, accountId: string): string {
      const code = randomBytes(32).toString('hex').toUpperCase();
      codes.set(code, {
        ...request,
        accountId,
        expiresAt: options.clock.nowMs() + options.codeTtlSeconds * 1000,
      });
      return code;
    },
    /** Single use: a code is gone after the first attempt, successful or not. */
    takeCode(code: string): IssuedCode | 'expired' | undefined {
      const entry = codes.get(code);
      codes.delete(code);
      if (!entry) return undefined;
      return entry.expiresAt > options.clock.nowMs() ? entry : 'expired';
    },
    reset() {
      pending.clear();
      codes.clear();
    },
  };
}
