import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pagedSchema, participantSchema, trialSchema } from '@trialpulse/shared';
import { participants, trials } from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient } from '../../test/fixtures';
import { signIn } from '../trials/test-support';
import { addParticipant, createTrial } from './test-support';

/**
 * The list totals the database keeps (decision 0202): `team_trial_totals` and
 * `trial_participant_totals`, maintained by triggers in the writing transaction, stay equal
 * to a count from scratch whatever writes them (the API, bulk SQL), however many run at once
 * (on PostgreSQL truly concurrently), and the list calls answer them as their totals.
 */
const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
let ctx: TestApp;
const db = () => ctx.database.db;
let teamId: number;
let admin: TestClient;
const trialsPage = pagedSchema(trialSchema);
const participantsPage = pagedSchema(participantSchema);

beforeAll(async () => {
  ctx = await createTestApp();
  teamId = (await createTeam(db(), { maxTrials: 100, maxParticipants: 5000, hiddenFields: [] })).id;
  admin = await signIn(ctx.app, db(), await createStaffUser(db(), { role: 'Admin', teamId }));
});

afterAll(async () => {
  await ctx?.close();
});

/** Every kept total against a count from scratch, and the list calls' totals against both. */
async function expectTotalsExact() {
  const kept = await db().execute<{ kind: string; id: number; n: number }>(sql`
    SELECT 'team' AS kind, team_id AS id, trials AS n FROM team_trial_totals
    UNION ALL SELECT 'trial', trial_id, participants FROM trial_participant_totals`);
  const counted = await db().execute<{ kind: string; id: number; n: number }>(sql`
    SELECT 'team' AS kind, team_id AS id, count(*)::int AS n FROM trials GROUP BY team_id
    UNION ALL SELECT 'trial', trial_id, count(*)::int FROM participants GROUP BY trial_id`);
  const nonZero = (rows: { kind: string; id: number; n: number }[]) =>
    Object.fromEntries(
      rows
        .filter((row) => Number(row.n) !== 0)
        .map((row) => [`${row.kind} ${row.id}`, Number(row.n)]),
    );
  expect(nonZero(kept.rows)).toEqual(nonZero(counted.rows));

  const teamTrials = await db()
    .select({ id: trials.id })
    .from(trials)
    .where(eq(trials.teamId, teamId));
  const listed = await admin.get('/api/userTrials?pageIndex=0&pageSize=10');
  expect(listed.statusCode, listed.body).toBe(200);
  expect(trialsPage.parse(listed.json()).total).toBe(teamTrials.length);
  for (const trial of teamTrials) {
    const [scratch] = await db()
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(participants)
      .where(eq(participants.trialId, trial.id));
    const page = await admin.get(`/api/trialParticipants/${trial.id}?pageIndex=0&pageSize=10`);
    expect(page.statusCode, page.body).toBe(200);
    expect(participantsPage.parse(page.json()).total, `trial ${trial.id}`).toBe(scratch!.n);
  }
}

describe(`list totals kept by the database (${MODE})`, () => {
  it('stay exact under concurrent adds and deletes of participants and trials through the API', async () => {
    const [first, second, third] = [
      await createTrial(db(), admin),
      await createTrial(db(), admin),
      await createTrial(db(), admin),
    ];
    const added = await Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        addParticipant(admin, {
          trialId: [first, second, third][index % 3]!.id,
          codeSuffix: String(100 + index),
        }),
      ),
    );
    await expectTotalsExact();

    // Deletes, adds, a new trial and a cascading trial deletion, all at once.
    const writes = await Promise.all([
      ...added
        .filter((_, index) => index % 3 !== 2 && index % 2 === 0)
        .map((participant) =>
          admin.request('DELETE', '/api/participant', { id: participant.participantId }),
        ),
      ...Array.from({ length: 9 }, (_, index) =>
        admin.post('/api/trialParticipants', {
          trialId: [first, second][index % 2]!.id,
          codeSuffix: String(200 + index),
          gender: 'none',
        }),
      ),
      admin.post('/api/userTrials', { trialNumber: `T-${process.pid}-new`, trialName: 'Added' }),
      admin.request('DELETE', '/api/userTrials', { trialId: third!.id, cascade: true }),
    ]);
    for (const write of writes) expect(write.statusCode, write.body).toBe(200);
    await expectTotalsExact();
  });

  it('stay exact under concurrent bulk inserts and deletes spanning many trials (SQL)', async () => {
    const bulkTrials = [
      await createTrial(db(), admin),
      await createTrial(db(), admin),
      await createTrial(db(), admin),
      await createTrial(db(), admin),
    ];
    const rowsOf = (batch: number) =>
      Array.from({ length: 40 }, (_, index) => {
        const trial = bulkTrials[(index + batch) % bulkTrials.length]!;
        const suffix = `${batch}${String(index).padStart(3, '0')}`;
        return {
          teamId,
          trialId: trial.id,
          participantCode: `${trial.trialCode}-${suffix}`,
          participantCodeSuffix: suffix,
        };
      });
    // Each batch in its own transaction, several at once (separate connections on PostgreSQL).
    await Promise.all(
      [1, 2, 3, 4, 5, 6].map((batch) => db().insert(participants).values(rowsOf(batch))),
    );
    await expectTotalsExact();

    const ids = (
      await db()
        .select({ id: participants.id })
        .from(participants)
        .where(
          inArray(
            participants.trialId,
            bulkTrials.map((trial) => trial.id),
          ),
        )
    ).map((row) => row.id);
    await Promise.all([
      // Every third row, across all four trials, in three concurrent deletes.
      ...[0, 1, 2].map((part) =>
        db()
          .delete(participants)
          .where(
            inArray(
              participants.id,
              ids.filter((_, index) => index % 9 === part * 3),
            ),
          ),
      ),
      db().insert(participants).values(rowsOf(7)),
      db().insert(participants).values(rowsOf(8)),
    ]);
    await expectTotalsExact();

    // A participant moved to another trial by hand: both totals follow.
    const [moved] = await db()
      .select()
      .from(participants)
      .where(eq(participants.trialId, bulkTrials[0]!.id))
      .limit(1);
    await db()
      .update(participants)
      .set({
        trialId: bulkTrials[1]!.id,
        participantCode: `${bulkTrials[1]!.trialCode}-${moved!.participantCodeSuffix}9`,
        participantCodeSuffix: `${moved!.participantCodeSuffix}9`,
      })
      .where(eq(participants.id, moved!.id));
    await expectTotalsExact();
  });

  it('are zero for a team without trials and a trial without participants', async () => {
    const emptyTeam = (await createTeam(db(), { hiddenFields: [] })).id;
    const emptyAdmin = await signIn(
      ctx.app,
      db(),
      await createStaffUser(db(), { role: 'Admin', teamId: emptyTeam }),
    );
    const none = await emptyAdmin.get('/api/userTrials?pageIndex=0&pageSize=10');
    expect(trialsPage.parse(none.json())).toEqual({ rows: [], total: 0 });
    const trial = await createTrial(db(), emptyAdmin);
    const empty = await emptyAdmin.get(
      `/api/trialParticipants/${trial.id}?pageIndex=0&pageSize=10`,
    );
    expect(participantsPage.parse(empty.json())).toEqual({ rows: [], total: 0 });
    const past = await emptyAdmin.get('/api/userTrials?pageIndex=3&pageSize=10');
    expect(trialsPage.parse(past.json())).toEqual({ rows: [], total: 1 });
  });
});
