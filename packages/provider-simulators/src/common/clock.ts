/**
 * The simulated clock. Everything time-dependent in a simulator (token expiry, rate-limit
 * windows, "now" for generated data, the Fitbit shutdown date) reads this clock, so tests can
 * move time forward instead of waiting.
 */
export interface SimulatedClock {
  /** Current simulated time. */
  now(): Date;
  nowMs(): number;
  /** Moves the clock forward (or back, with a negative value) and returns the new time. */
  advance(ms: number): Date;
  /** Jumps to the given time and returns it. */
  set(time: Date | string | number): Date;
  /** Returns to the time the clock was created with (a running clock restarts from it). */
  reset(): void;
  /** True when the clock only moves through advance()/set(); false when it follows wall time. */
  readonly frozen: boolean;
}

export interface SimulatedClockOptions {
  /** Start time; defaults to the current wall-clock time. */
  start?: Date | string | number;
  /**
   * Whether time stands still between advance()/set() calls. Defaults to true when a start
   * time is given (tests want exact times) and false otherwise (demo mode follows real time).
   */
  frozen?: boolean;
}

/** Creates a clock; several simulators may share one instance to stay in step. */
export function createSimulatedClock(options: SimulatedClockOptions = {}): SimulatedClock {
  const frozen = options.frozen ?? options.start !== undefined;
  const startMs = options.start === undefined ? Date.now() : toMs(options.start);
  // A frozen clock stores the simulated time itself; a running one stores its offset from
  // the wall clock, so it keeps ticking between calls.
  let value = frozen ? startMs : startMs - Date.now();
  const nowMs = () => (frozen ? value : Date.now() + value);
  return {
    frozen,
    nowMs,
    now: () => new Date(nowMs()),
    advance(ms) {
      if (!Number.isFinite(ms)) throw new RangeError('advance() needs a finite number of ms');
      value += ms;
      return new Date(nowMs());
    },
    set(time) {
      const target = toMs(time);
      value = frozen ? target : target - Date.now();
      return new Date(nowMs());
    },
    reset() {
      value = frozen ? startMs : startMs - Date.now();
    },
  };
}

/** Parses a Date, an ISO string or epoch milliseconds; throws RangeError when invalid. */
export function toMs(time: Date | string | number): number {
  const ms =
    time instanceof Date ? time.getTime() : typeof time === 'number' ? time : Date.parse(time);
  if (!Number.isFinite(ms)) throw new RangeError(`Invalid time: ${String(time)}`);
  return ms;
}
