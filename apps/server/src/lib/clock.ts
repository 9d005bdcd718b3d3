/** The current time, injectable so lockout, expiry and lifetimes can be tested. */
export type Clock = { now(): Date };

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until moved (tests). */
export function createManualClock(
  start: Date = new Date(),
): Clock & { advance(ms: number): void; set(at: Date): void } {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (ms) => {
      current += ms;
    },
    set: (at) => {
      current = at.getTime();
    },
  };
}
