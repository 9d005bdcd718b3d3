import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompletenessGrid, CompletenessStrips } from '@trialpulse/shared';
import { createManualClock } from '../../lib/clock';
import { createStaffUser, createTeam, signIn, type TestClient } from '../../test/fixtures';
import { createTestApp, type TestApp } from '../../test/test-app';
import { addParticipant, createTrial } from '../participants/test-support';
import { readingsServiceFor } from '../sync/test-support';
import { heartRateMinutes } from './reading-generators';
import { addConnection } from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const TOKYO = 9 * 60; // UTC+9, no daylight saving
const HONOLULU = -10 * 60; // UTC−10, no daylight saving

/**
 * The grid's columns end at the trial's local today (issue 28, decision 0185), not at UTC's:
 * checked with the clock just after and just before midnight UTC, for a trial whose
 * participant lives far east of UTC (Tokyo) and one far west (Honolulu).
 */
describe(`completeness grid: columns end at the trial's local today (${MODE})`, () => {
  let ctx: TestApp;
  let admin: TestClient;
  let signInAgain: () => Promise<TestClient>;
  let clock: ReturnType<typeof createManualClock>;
  const trials = { tokyo: 0, honolulu: 0 };
  const participants = { tokyo: 0, honolulu: 0 };

  beforeAll(async () => {
    clock = createManualClock(new Date('2026-06-15T12:00:00Z'));
    ctx = await createTestApp({ clock });
    const db = ctx.database.db;
    const team = await createTeam(db, { maxTrials: 10, maxParticipants: 100, hiddenFields: [] });
    const adminUser = await createStaffUser(db, { role: 'Admin', teamId: team.id });
    signInAgain = () => signIn(ctx.app, db, adminUser);
    admin = await signInAgain();
    const readings = readingsServiceFor(db, () => clock.now());
    for (const [key, offset] of [
      ['tokyo', TOKYO],
      ['honolulu', HONOLULU],
    ] as const) {
      trials[key] = (await createTrial(db, admin, [])).id;
      participants[key] = (await addParticipant(admin, { trialId: trials[key] })).participantId;
      const owner = { participantId: participants[key], teamId: team.id };
      await addConnection(db, {
        ...owner,
        brand: 'Fitbit',
        authorizedAt: new Date('2026-06-01T00:00:00Z'),
      });
      // Worn on 14 June from 08:00 local: their offset is what decides their today.
      const start = new Date(Date.parse('2026-06-14T08:00:00Z') - offset * 60_000);
      await readings.store(heartRateMinutes(owner, start, 600, offset));
    }
  });
  afterAll(async () => {
    await ctx?.close();
  });

  /** The clock moved to `at`, and a fresh session (the earlier one has expired by then). */
  const moveClockTo = async (at: string) => {
    clock.set(new Date(at));
    admin = await signInAgain();
  };
  const grid = async (trialId: number) => {
    const response = await admin.get(`/api/trials/${trialId}/completeness?days=14`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as CompletenessGrid;
  };
  const strips = async (trialId: number, participantId: number) => {
    const response = await admin.get(
      `/api/trials/${trialId}/completeness/strips?participantIds=${participantId}`,
    );
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as CompletenessStrips;
  };

  it('ends on Tokyo’s new day just before midnight UTC, its today in progress', async () => {
    // 23:30 UTC on 15 June is 08:30 on 16 June in Tokyo.
    await moveClockTo('2026-06-15T23:30:00Z');
    const data = await grid(trials.tokyo);
    expect(data.days.at(-1)).toBe('2026-06-16');
    expect(data.days[0]).toBe('2026-06-03');
    const row = data.rows[0]!;
    expect(row.states.at(-1)).toBe('in_progress');
    // 15 June, a whole day gone by in Tokyo without wear, counts against them.
    expect(row.states[data.days.indexOf('2026-06-15')]).toBe('missing');
    expect(row.states[data.days.indexOf('2026-06-14')]).toBe('valid');
    const strip = await strips(trials.tokyo, participants.tokyo);
    expect(strip.days.at(-1)).toBe('2026-06-16');
  });

  it('does not start Honolulu’s next day just after midnight UTC', async () => {
    // 00:30 UTC on 16 June is 14:30 on 15 June in Honolulu.
    await moveClockTo('2026-06-16T00:30:00Z');
    const data = await grid(trials.honolulu);
    expect(data.days.at(-1)).toBe('2026-06-15');
    expect(data.days).not.toContain('2026-06-16');
    const row = data.rows[0]!;
    expect(row.states.at(-1)).toBe('in_progress');
    expect(row.states[data.days.indexOf('2026-06-14')]).toBe('valid');
    const strip = await strips(trials.honolulu, participants.honolulu);
    expect(strip.days.at(-1)).toBe('2026-06-15');
  });

  it('ends on UTC’s today for a trial without readings', async () => {
    await moveClockTo('2026-06-16T00:30:00Z');
    const empty = (await createTrial(ctx.database.db, admin, [])).id;
    await addParticipant(admin, { trialId: empty });
    expect((await grid(empty)).days.at(-1)).toBe('2026-06-16');
  });
});
