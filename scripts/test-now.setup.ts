// Vitest setup file (provider-simulators, server and web projects): `TEST_NOW=2026-01-31T23:59:50Z` starts every
// test file's clock at that instant (it then runs on at real speed), so a test whose outcome
// depends on the real time of day, week or month can be caught and replayed on purpose:
// midnight UTC, a month end, a DST change. Only `Date` moves (`new Date()`, `Date.now()`,
// and what reads them: the in-process simulators, PGlite's now()); a PostgreSQL server and
// child processes keep the real time, so use it with the PGlite pass. Without TEST_NOW this
// file does nothing.
const target = process.env.TEST_NOW;
if (target) {
  const RealDate = Date;
  const at = RealDate.parse(target);
  if (Number.isNaN(at)) throw new Error(`TEST_NOW is not a date: ${target}`);
  const offset = at - RealDate.now();
  class ShiftedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...(args as [string]));
    }
    static override now(): number {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = ShiftedDate as DateConstructor;
}
