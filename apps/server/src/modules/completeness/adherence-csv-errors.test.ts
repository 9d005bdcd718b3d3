import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATE_MESSAGES } from '@trialpulse/shared';
import { createManualClock } from '../../lib/clock';
import { createStaffUser, createTeam, signIn, type TestClient } from '../../test/fixtures';
import { createTestApp, type TestApp } from '../../test/test-app';
import { addParticipant, createTrial } from '../participants/test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const NOW = new Date('2026-06-15T12:00:00Z');

/**
 * The adherence CSV streams its rows: a failure while it streams must end that response
 * (the spec's error body while nothing was sent yet), never escape as an uncaught
 * exception that stops the server. Bad dates are refused before anything runs.
 */
describe(`adherence CSV errors (${MODE})`, { timeout: 60_000 }, () => {
  let ctx: TestApp;
  let viewer: TestClient;
  let trialId: number;
  const escaped: unknown[] = [];
  const onEscape = (error: unknown) => escaped.push(error);

  beforeAll(async () => {
    ctx = await createTestApp({ clock: createManualClock(NOW) });
    const db = ctx.database.db;
    const team = await createTeam(db, { maxTrials: 10, maxParticipants: 100, hiddenFields: [] });
    const adminUser = await createStaffUser(db, { role: 'Admin', teamId: team.id });
    const viewerUser = await createStaffUser(db, { role: 'Viewer', teamId: team.id });
    const admin = await signIn(ctx.app, db, adminUser);
    viewer = await signIn(ctx.app, db, viewerUser);
    trialId = (await createTrial(db, admin, [viewerUser.email])).id;
    await addParticipant(admin, { trialId });
    process.on('uncaughtException', onEscape);
    process.on('unhandledRejection', onEscape);
  });

  afterAll(async () => {
    process.off('uncaughtException', onEscape);
    process.off('unhandledRejection', onEscape);
    await ctx?.close();
  });

  const csv = (from: string, to: string) =>
    viewer.get(`/api/trials/${trialId}/completeness/adherence.csv?from=${from}&to=${to}`);

  it('answers a database failure while the CSV streams with the error body, and keeps serving', async () => {
    const db = ctx.database.db;
    // The per-day aggregates the CSV streams from are gone: its first chunk's query fails.
    await db.execute(sql`ALTER TABLE device_reading_days RENAME TO device_reading_days_away`);
    try {
      const response = await csv('2026-06-10', '2026-06-12');
      expect(response.statusCode, response.body).toBe(500);
      expect(response.headers['content-type']).toContain('application/json');
      expect(response.headers['content-disposition']).toBeUndefined();
      expect(response.json()).toMatchObject({ message: 'An error occurred.', displayToUser: false, errors: null });
    } finally {
      await db.execute(sql`ALTER TABLE device_reading_days_away RENAME TO device_reading_days`);
    }
    // Nothing escaped to the process, and the server still answers.
    await new Promise((resolve) => setImmediate(resolve));
    expect(escaped).toEqual([]);
    const again = await csv('2026-06-10', '2026-06-12');
    expect(again.statusCode, again.body).toBe(200);
    expect(again.body.trim().split('\n')).toHaveLength(1 + 3);
  });

  it('refuses dates outside the calendar or its years (0000, 9999-12-31, Feb 30) with the 400 error body', async () => {
    for (const [from, to] of [
      ['0000-01-01', '0000-01-02'],
      ['9999-12-30', '9999-12-31'],
      ['2026-02-28', '2026-02-30'],
      ['2026-02-30', '2026-03-02'],
    ] as const) {
      const response = await csv(from, to);
      expect([from, to, response.statusCode]).toEqual([from, to, 400]);
      expect(response.json()).toMatchObject({ reason: 'VALIDATION_ERROR', message: DATE_MESSAGES.date, displayToUser: true });
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(escaped).toEqual([]);
  });
});
