// Vitest setup file (provider-simulators, server and web projects): `TEST_NOW=2026-01-31T23:59:50Z` starts every
// test file's clock at that instant (it then runs on at real speed), so a test whose outcome
// depends on the real time of day, week or month can be caught and replayed on purpose:
// midnight UTC, a month end, a DST change. Only `Date` moves (`new Date()`, `Date.now()`,
// and what reads them: the in-process simulators, PGlite's now()); a PostgreSQL server and
// child processes keep the real time, so use it with the PGlite pass. Without TEST_NOW this
// file does nothing.
import { afterAll } from 'vitest';
import { runDateFrom } from '../apps/server/src/test/date-from';

const target = process.env.TEST_NOW;
if (target) {
  if (Number.isNaN(Date.parse(target))) throw new Error(`TEST_NOW is not a date: ${target}`);
  // Put back at the file's end: a worker runs many files in one module graph (isolate: false),
  // and each would otherwise wrap the previous file's clock again.
  afterAll(runDateFrom(target));
}
