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
export interface RunningSimulator<Control extends SimulatorControl = SimulatorControl> {
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

/** Programmatic controls shared by all simulators (mirrored by the `/__control` routes). */
export interface SimulatorControl {
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
  accounts(): AccountSummary[];
}
