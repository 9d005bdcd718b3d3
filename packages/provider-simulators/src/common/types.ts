import type { FastifyInstance } from 'fastify';
import type { SimulatedClock } from './clock';
import type { InjectedFault, FaultSpec } from './faults';
import type { AccountSummary } from './accounts';

/** An OAuth client registered with a simulator (what a developer console would hold). */
export interface OAuthClientConfig {
  clientId: string;
  /** Omit for a public client (PKCE, no secret). */
  clientSecret?: string;
  /**
   * Allowed redirect URIs. An entry may contain `*` wildcards, e.g. `http://localhost:*`
   * allows any port and path on localhost. Defaults to any `http://localhost:*` and
   * `http://127.0.0.1:*` callback.
   */
  redirectUris?: string[];
}

/** Options every simulator accepts. */
export interface SimulatorOptions {
  /** Share one clock between simulators, or let each create its own from startTime. */
  clock?: SimulatedClock;
  /** Start of the simulator's own clock (ignored when `clock` is given); default: now. */
  startTime?: Date | string | number;
  /**
   * Whether the own clock stands still between control calls. Default: frozen when
   * startTime is given (tests), running with wall time otherwise (demo).
   */
  frozenClock?: boolean;
  /** Registered OAuth clients; each simulator has a demo client by default. */
  clients?: OAuthClientConfig[];
  /** Fastify request logging (off by default so test output stays quiet). */
  logger?: boolean;
}

/** A simulator listening on a port. */
export interface RunningSimulator<Control extends SimulatorControl<unknown> = SimulatorControl> {
  name: string;
  /** e.g. `http://127.0.0.1:54321`; every provider URL is relative to it. */
  baseUrl: string;
  close(): Promise<void>;
  /** The same controls as the `/__control` HTTP API, for in-process callers. */
  control: Control;
  app: FastifyInstance;
}

export interface ListenOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

/** Which tokens a control call affects; no filter means every token. */
export interface TokenFilter {
  /** Simulated account id, e.g. `ava-thompson`. */
  accountId?: string;
  /** One access or refresh token. */
  token?: string;
}

/**
 * Programmatic controls shared by all simulators (mirrored by the `/__control` routes).
 * `Account` is what `accounts()` lists: the Fitbit/Google people, or a provider's own.
 */
export interface SimulatorControl<Account = AccountSummary> {
  readonly clock: SimulatedClock;
  now(): Date;
  advanceClock(ms: number): Date;
  setClock(time: Date | string | number): Date;
  /** Queues a fault; it affects the next matching request(s). */
  injectFault(fault: FaultSpec): InjectedFault;
  faults(): InjectedFault[];
  clearFaults(): void;
  /** Makes matching access tokens expired now; returns how many were affected. */
  expireAccessTokens(filter?: TokenFilter): number;
  /** Revokes matching grants (all their tokens), as a user would in account settings. */
  revokeTokens(filter?: TokenFilter): number;
  resetRateLimits(): void;
  /** Drops tokens, faults and rate-limit counters and resets the clock. */
  reset(): void;
  accounts(): Account[];
}

/** A simulated account as the Omron and Dexcom control APIs list it. */
export interface ProviderAccountSummary {
  id: string;
  name: string;
  description: string;
}

/** The controls of the signed-token providers (Omron, Dexcom): two more than the common ones. */
export interface ProviderSimulatorControl extends SimulatorControl<ProviderAccountSummary> {
  /** Mints a token response for an account without the browser flow (demo seeding, tests). */
  issueTokens(input: {
    accountId: string;
    clientId?: string;
    scope?: string;
  }): Record<string, unknown>;
  /** Sets how many calls were already counted in the current rate-limit window. */
  setRateLimitUsage(used: number, key?: string): void;
}
