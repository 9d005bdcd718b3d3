import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGING_MESSAGES, pagedSchema, participantSchema, trialSchema } from '@trialpulse/shared';
import { participants, teams } from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient } from '../../test/fixtures';
import { signIn } from '../trials/test-support';
import { createTrial } from './test-support';

/**
 * The trials and participants list calls with paging parameters (decision 0040): the page
 * and the total from one call, sorted and filtered by the server, within what the caller
 * may see; without parameters the spec's whole list.
 */
let ctx: TestApp;
const db = () => ctx.database.db;
let teamId: number;
let admin: TestClient;
let user: TestClient;
let bigTrial: { id: number; trialCode: string };
let userTrial: { id: number };
let emptyTrial: { id: number };
const trialsPage = pagedSchema(trialSchema);
const participantsPage = pagedSchema(participantSchema);

beforeAll(async () => {
  ctx = await createTestApp();
  teamId = (await createTeam(db(), { maxTrials: 100, maxParticipants: 1000, hiddenFields: [] })).id;
  const adminAccount = await createStaffUser(db(), { role: 'Admin', teamId });
  const userAccount = await createStaffUser(db(), { role: 'User', teamId });
  admin = await signIn(ctx.app, db(), adminAccount);
  user = await signIn(ctx.app, db(), userAccount);
  bigTrial = await createTrial(db(), admin);
  userTrial = await createTrial(db(), admin, [userAccount.email]);
  emptyTrial = await createTrial(db(), admin, [userAccount.email]);
  for (let n = 3; n < 25; n += 1) await createTrial(db(), admin);
  // 123 participants: ages 20..142 cycling, every 10th has notes, codes in insertion order.
  await db()
    .insert(participants)
    .values(
      Array.from({ length: 123 }, (_, index) => {
        const suffix = String(index + 1).padStart(3, '0');
        return {
          teamId,
          trialId: bigTrial.id,
          participantCode: `${bigTrial.trialCode}-${suffix}`,
          participantCodeSuffix: suffix,
          email: `person${index + 1}@study.example.org`,
          gender: (['female', 'male', 'other', 'none'] as const)[index % 4],
          age: 20 + (index % 50),
          notes: index % 10 === 0 ? `Needle visit ${index}` : null,
        };
      }),
    );
});

afterAll(async () => {
  await ctx?.close();
});

describe('GET /api/trialParticipants/{trialId} with paging parameters', () => {
  const list = (client: TestClient, trialId: number, query: string) =>
    client.get(`/api/trialParticipants/${trialId}?${query}`);

  it('returns the page and the total', async () => {
    const first = await list(admin, bigTrial.id, 'pageIndex=0&pageSize=20');
    expect(first.statusCode, first.body).toBe(200);
    const page = participantsPage.parse(first.json());
    expect(page.total).toBe(123);
    expect(page.rows.map((row) => row.participant_code_suffix)).toEqual(
      Array.from({ length: 20 }, (_, index) => String(index + 1).padStart(3, '0')),
    );
    const last = participantsPage.parse(
      (await list(admin, bigTrial.id, 'pageIndex=6&pageSize=20')).json(),
    );
    expect(last).toMatchObject({ total: 123 });
    expect(last.rows.map((row) => row.participant_code_suffix)).toEqual(['121', '122', '123']);
    const past = participantsPage.parse(
      (await list(admin, bigTrial.id, 'pageIndex=9&pageSize=20')).json(),
    );
    expect(past).toEqual({ rows: [], total: 123 });
  });

  it('sorts and filters on the server before paging', async () => {
    const byAge = participantsPage.parse(
      (await list(admin, bigTrial.id, 'pageSize=10&sortBy=age&sortDir=desc')).json(),
    );
    expect(byAge.rows.map((row) => row.age)).toEqual([69, 69, 68, 68, 67, 67, 66, 66, 65, 65]);
    // Ties keep the list's own order (the id), so pages never overlap.
    expect(byAge.rows[0]!.id).toBeLessThan(byAge.rows[1]!.id);

    const needles = participantsPage.parse(
      (await list(admin, bigTrial.id, 'pageSize=10&filter=NEEDLE')).json(),
    );
    expect(needles.total).toBe(13);
    expect(needles.rows.every((row) => row.notes?.startsWith('Needle'))).toBe(true);
    const byEmail = participantsPage.parse(
      (await list(admin, bigTrial.id, 'pageSize=10&filter=person12@')).json(),
    );
    expect(byEmail.rows.map((row) => row.email)).toEqual(['person12@study.example.org']);
  });

  it('never searches or sorts by a field the team hides', async () => {
    await db()
      .update(teams)
      .set({ hiddenFields: ['email', 'notes'] })
      .where(eq(teams.id, teamId));
    try {
      const hiddenAdmin = await signIn(
        ctx.app,
        db(),
        await createStaffUser(db(), { role: 'Admin', teamId }),
      );
      const byEmail = participantsPage.parse(
        (await list(hiddenAdmin, bigTrial.id, 'pageSize=10&filter=person12@')).json(),
      );
      expect(byEmail).toEqual({ rows: [], total: 0 });
      const byNotes = participantsPage.parse(
        (await list(hiddenAdmin, bigTrial.id, 'pageSize=10&filter=needle')).json(),
      );
      expect(byNotes.total).toBe(0);
      const sorted = await list(hiddenAdmin, bigTrial.id, 'pageSize=10&sortBy=email');
      expect(sorted.statusCode).toBe(400);
      expect(sorted.json()).toMatchObject({
        reason: 'VALIDATION_ERROR',
        message: PAGING_MESSAGES.sortBy,
      });
    } finally {
      await db().update(teams).set({ hiddenFields: [] }).where(eq(teams.id, teamId));
    }
  });

  it('answers 404 for a trial the caller may not see, an empty page for an empty trial', async () => {
    const hidden = await list(user, bigTrial.id, 'pageIndex=0&pageSize=10');
    expect(hidden.statusCode).toBe(404);
    expect((await list(user, 987_654, 'pageIndex=0&pageSize=10')).statusCode).toBe(404);
    const empty = await list(user, emptyTrial.id, 'pageIndex=0&pageSize=10');
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({ rows: [], total: 0 });
  });

  it('keeps the spec’s whole list without paging parameters, and refuses bad ones', async () => {
    const whole = await admin.get(`/api/trialParticipants/${bigTrial.id}`);
    expect(whole.statusCode).toBe(200);
    expect(participantSchema.array().parse(whole.json())).toHaveLength(123);
    for (const query of [
      'pageSize=5',
      'pageSize=51',
      'pageIndex=-1',
      'sortBy=trialId',
      'sortDir=up&sortBy=age',
    ]) {
      const refused = await list(admin, bigTrial.id, query);
      expect(refused.statusCode, query).toBe(400);
      expect(refused.json().reason).toBe('VALIDATION_ERROR');
    }
  });
});

describe('GET /api/userTrials/ with paging parameters', () => {
  it('returns the page and the total of the trials the caller may see, newest first', async () => {
    const page = trialsPage.parse(
      (await admin.get('/api/userTrials/?pageIndex=0&pageSize=10')).json(),
    );
    expect(page.total).toBe(25);
    expect(page.rows).toHaveLength(10);
    const whole = trialSchema.array().parse((await admin.get('/api/userTrials/')).json());
    expect(page.rows).toEqual(whole.slice(0, 10));
    const next = trialsPage.parse(
      (await admin.get('/api/userTrials/?pageIndex=2&pageSize=10')).json(),
    );
    expect(next.rows).toEqual(whole.slice(20, 25));

    const mine = trialsPage.parse(
      (await user.get('/api/userTrials/?pageIndex=0&pageSize=10')).json(),
    );
    expect(mine.total).toBe(2);
    expect(mine.rows.map((trial) => trial.trialId).sort()).toEqual(
      [userTrial.id, emptyTrial.id].sort(),
    );
  });

  it('sorts and filters on the server', async () => {
    const whole = trialSchema.array().parse((await admin.get('/api/userTrials/')).json());
    const byNumber = trialsPage.parse(
      (
        await admin.get('/api/userTrials/?pageIndex=0&pageSize=10&sortBy=trialNumber&sortDir=desc')
      ).json(),
    );
    const expected = [...whole].sort((a, b) =>
      a.trialNumber.toLowerCase() < b.trialNumber.toLowerCase() ? 1 : -1,
    );
    expect(byNumber.rows.map((trial) => trial.trialNumber)).toEqual(
      expected.slice(0, 10).map((trial) => trial.trialNumber),
    );
    const one = whole[7]!;
    const filtered = trialsPage.parse(
      (
        await admin.get(
          `/api/userTrials/?pageIndex=0&pageSize=10&filter=${encodeURIComponent(one.trialNumber.toUpperCase())}`,
        )
      ).json(),
    );
    expect(filtered).toEqual({ rows: [one], total: 1 });
  });
});
