import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATE_MESSAGES } from '@trialpulse/shared';
import { createManualClock } from '../../lib/clock';
import { createStaffUser, createTeam, signIn, type TestClient } from '../../test/fixtures';
import { createTestApp, type TestApp } from '../../test/test-app';
import { addParticipant, createTrial } from '../participants/test-support';
import { createParticipants } from '../sync/test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const NOW = new Date('2026-06-15T12:00:00Z');

/**
 * The adherence CSV streams its rows: a failure while it streams must end that response
 * (the spec's error body while nothing was sent yet), never escape as an uncaught
 * exception that stops the server. Bad dates are refused before anything runs.
 */
describe(`adherence CSV errors (${MODE})`, () => {
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
      expect(response.json()).toMatchObject({
        message: 'An error occurred.',
        displayToUser: false,
        errors: null,
      });
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
      expect(response.json()).toMatchObject({
        reason: 'VALIDATION_ERROR',
        message: DATE_MESSAGES.date,
        displayToUser: true,
      });
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(escaped).toEqual([]);
  });

  it('cuts the response of a failure after the first rows were sent, logs it, and keeps serving', async () => {
    const db = ctx.database.db;
    // 201 participants: the second chunk of 200 is queried after the first chunk's rows went out.
    const { teamId, trialId: bigTrial, participantIds } = await createParticipants(db, 201);
    const admin = await signIn(ctx.app, db, await createStaffUser(db, { role: 'Admin', teamId }));
    const last = participantIds.at(-1)!; // the last code: alone in the second chunk
    await db.execute(sql`INSERT INTO device_reading_days (participant_id, team_id, metric_key, day, readings, minutes, value_sum, first_at, last_at)
      VALUES (${last}, ${teamId}, 'steps', '2026-06-10', 1, 1, 100, '2026-06-10T08:00:00Z', '2026-06-10T08:00:00Z')`);
    // The day aggregates fail for that participant only: a database error mid-stream.
    await db.execute(
      sql.raw(`CREATE FUNCTION tp_fail_for(id integer) RETURNS boolean LANGUAGE plpgsql STABLE COST 10000 AS $$
      BEGIN IF id = ${last} THEN RAISE EXCEPTION 'failing mid-stream'; END IF; RETURN true; END $$`),
    );
    await db.execute(sql`ALTER TABLE device_reading_days RENAME TO device_reading_days_real`);
    await db.execute(
      sql`CREATE VIEW device_reading_days AS SELECT * FROM device_reading_days_real WHERE tp_fail_for(participant_id)`,
    );
    let outcome: { statusCode?: number; body?: string; error?: unknown };
    try {
      outcome = await admin
        .get(`/api/trials/${bigTrial}/completeness/adherence.csv?from=2026-06-10&to=2026-06-10`)
        .then(
          (response) => ({ statusCode: response.statusCode, body: response.body }),
          (error: unknown) => ({ error }),
        );
    } finally {
      await db.execute(sql`DROP VIEW device_reading_days`);
      await db.execute(sql`ALTER TABLE device_reading_days_real RENAME TO device_reading_days`);
      await db.execute(sql`DROP FUNCTION tp_fail_for(integer)`);
    }
    // The headers and the first chunk were sent: the response is cut, never completed.
    if (outcome.error === undefined) {
      expect(outcome.statusCode).toBe(200);
      expect(outcome.body!.trim().split('\n').length).toBeLessThan(1 + 201);
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(escaped).toEqual([]);
    expect(
      ctx
        .logLines()
        .some(
          (line) =>
            line.includes('adherence CSV failed while streaming') &&
            line.includes('failing mid-stream'),
        ),
    ).toBe(true);
    const again = await admin.get(
      `/api/trials/${bigTrial}/completeness/adherence.csv?from=2026-06-10&to=2026-06-10`,
    );
    expect(again.statusCode, again.body).toBe(200);
    expect(again.body.trim().split('\n')).toHaveLength(1 + 201);
  });
});
