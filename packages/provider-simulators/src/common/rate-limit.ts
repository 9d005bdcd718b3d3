/**
 * Fixed-window request counters that follow the simulated clock, so a test can use up a
 * quota and then move the clock past the window boundary instead of waiting.
 */

export interface RateLimitResult {
  limit: number;
  /** Requests counted in the current window, this one included. */
  count: number;
  remaining: number;
  /** Milliseconds until the window resets. */
  resetInMs: number;
  /** The same, in whole seconds rounded up (for Retry-After style headers). */
  resetSeconds: number;
  limited: boolean;
}

export class FixedWindowRateLimiter {
  private counters = new Map<string, { window: number; count: number }>();

  /**
   * @param limit requests allowed per window
   * @param windowMs window length; windows are aligned to the epoch, so an hour window
   *   resets at the top of each clock hour (as Fitbit's does)
   */
  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Counts one request for `key` at `nowMs` and says whether it is over the limit. */
  hit(key: string, nowMs: number): RateLimitResult {
    const window = Math.floor(nowMs / this.windowMs);
    let counter = this.counters.get(key);
    if (!counter || counter.window !== window) {
      counter = { window, count: 0 };
      this.counters.set(key, counter);
    }
    counter.count++;
    return this.result(counter.count, window, nowMs);
  }

  /** The current state for `key` without counting a request. */
  peek(key: string, nowMs: number): RateLimitResult {
    const window = Math.floor(nowMs / this.windowMs);
    const counter = this.counters.get(key);
    return this.result(counter && counter.window === window ? counter.count : 0, window, nowMs);
  }

  /** Sets how many requests `key` has already made in the current window (control API). */
  setCount(key: string, count: number, nowMs: number): void {
    this.counters.set(key, { window: Math.floor(nowMs / this.windowMs), count });
  }

  reset(): void {
    this.counters = new Map();
  }

  private result(count: number, window: number, nowMs: number): RateLimitResult {
    const resetInMs = (window + 1) * this.windowMs - nowMs;
    return {
      limit: this.limit,
      count,
      remaining: Math.max(0, this.limit - count),
      resetInMs,
      resetSeconds: Math.ceil(resetInMs / 1000),
      limited: count > this.limit,
    };
  }
}
