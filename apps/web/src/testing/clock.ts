import { vi } from 'vitest';

/**
 * Local noon of 2026-11-20: the "now" of tests whose expectations depend on today's date
 * or year. Hours from any midnight in every time zone's local time, so a test that runs a
 * few seconds cannot see the day change.
 */
export const TEST_NOW = new Date(2026, 10, 20, 12, 0, 0);

/**
 * Starts `Date` (only `Date`: timers, promises and Testing Library's waits stay real) at
 * `at`, from where it runs on at real speed. Undo with `vi.useRealTimers()` in `afterEach`.
 */
export function freezeDateAt(at: Date = TEST_NOW): void {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(at);
}
