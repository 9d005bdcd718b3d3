/**
 * Makes `Date` run on from `instant` (as TEST_NOW does for a whole run, scripts/test-now.setup.ts)
 * and returns the function that puts the previous `Date` back. For a file whose outcome depends
 * on the calendar day, not only on the hour: the provider simulators' accounts are worn on some
 * days and not on others, and those in-process simulators, PGlite's now() and the product all
 * read `Date`. Timers keep the real time.
 */
export function runDateFrom(instant: string): () => void {
  const PreviousDate = Date;
  const offset = PreviousDate.parse(instant) - PreviousDate.now();
  if (Number.isNaN(offset)) throw new Error(`not an instant: ${instant}`);
  class DateFromInstant extends PreviousDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(PreviousDate.now() + offset);
      else super(...(args as [string]));
    }
    static override now(): number {
      return PreviousDate.now() + offset;
    }
  }
  globalThis.Date = DateFromInstant as DateConstructor;
  return () => {
    globalThis.Date = PreviousDate;
  };
}
