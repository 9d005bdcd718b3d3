import type { AccountSummary } from './accounts';
import type { SimulatedClock } from './clock';
import type { FaultController } from './faults';
import type { OAuthStore } from './oauth';
import type { FixedWindowRateLimiter } from './rate-limit';
import type { SimulatorControl } from './types';

export interface ControlDependencies {
  clock: SimulatedClock;
  oauth: OAuthStore;
  faults: FaultController;
  rateLimiters: FixedWindowRateLimiter[];
  accounts: () => AccountSummary[];
  /** Extra state a simulator drops on reset(). */
  onReset?: () => void;
}

/** The SimulatorControl every simulator exposes, built from its stores. */
export function createSimulatorControl(deps: ControlDependencies): SimulatorControl {
  return {
    clock: deps.clock,
    now: () => deps.clock.now(),
    advanceClock: (ms) => deps.clock.advance(ms),
    setClock: (time) => deps.clock.set(time),
    injectFault: (fault) => deps.faults.inject(fault),
    faults: () => deps.faults.list(),
    clearFaults: () => deps.faults.clear(),
    expireAccessTokens: (filter) => deps.oauth.expireMatching(filter),
    revokeTokens: (filter) => deps.oauth.revokeMatching(filter),
    resetRateLimits: () => deps.rateLimiters.forEach((limiter) => limiter.reset()),
    reset: () => {
      deps.oauth.reset();
      deps.faults.clear();
      deps.rateLimiters.forEach((limiter) => limiter.reset());
      // A shared clock is reset for every simulator that uses it.
      deps.clock.reset();
      deps.onReset?.();
    },
    accounts: deps.accounts,
  };
}
