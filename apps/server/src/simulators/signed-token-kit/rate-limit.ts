/**
 * Fixed-window request counters on the simulator clock, e.g. "60,000 per app per clock
 * hour". Windows are aligned to multiples of the window length, so advancing the clock past
 * the top of the hour resets them.
 */
import type { SimulatedClock } from '../common/clock';

export type RateLimitHit = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
};

export function createWindowCounter(options: {
  limit: number;
  windowMs: number;
  clock: SimulatedClock;
}) {
  const counts = new Map<string, { window: number; used: number }>();
  let limit = options.limit;

  const windowOf = (now: number) => Math.floor(now / options.windowMs);

  function usage(key: string) {
    const now = options.clock.nowMs();
    const window = windowOf(now);
    let entry = counts.get(key);
    if (!entry || entry.window !== window) counts.set(key, (entry = { window, used: 0 }));
    return { entry, now, window };
  }

  function hit(key: string): RateLimitHit {
    const { entry, now, window } = usage(key);
    const resetSeconds = Math.ceil(((window + 1) * options.windowMs - now) / 1000);
    if (entry.used >= limit) return { allowed: false, limit, remaining: 0, resetSeconds };
    entry.used++;
    return { allowed: true, limit, remaining: limit - entry.used, resetSeconds };
  }

  return {
    hit,
    /** Sets how many calls the key has already made in the current window. */
    setUsed(key: string, used: number) {
      usage(key).entry.used = used;
    },
    used: (key: string) => usage(key).entry.used,
    setLimit(value: number) {
      limit = value;
    },
    get limit() {
      return limit;
    },
    reset: () => counts.clear(),
  };
}

export type WindowCounter = ReturnType<typeof createWindowCounter>;
