import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIAL_MESSAGES, trialSchema } from '@trialpulse/shared';
import { teams, trialUsers, trials } from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient, type TestUser } from '../../test/fixtures';
import { uniqueTrialCode } from './trials.service';
import { addParticipants, auditSince, lastAuditId, participantCount, signIn } from './test-support';

let ctx: TestApp;
const db = () => ctx.database.db;
let teamId: number;
let admin: TestUser;
let user: TestUser;
let adminClient: TestClient;
let userClient: TestClient;
let viewerClient: TestClient;
let sysAdminClient: TestClient;

beforeAll(async () => {
  ctx = await createTestApp();
  teamId = (await createTeam(db(), { maxTrials: 100 })).id;
  admin = await createStaffUser(db(), { role: 'Admin', teamId });
  user = await createStaffUser(db(), { role: 'User', teamId });
  adminClient = await signIn(ctx.app, db(), admin);
  userClient = await signIn(ctx.app, db(), user);
  viewerClient = await signIn(
    ctx.app,
    db(),
    await createStaffUser(db(), { role: 'Viewer', teamId }),
  );
  sysAdminClient = await signIn(
    ctx.app,
    db(),
    await createStaffUser(db(), { role: 'Sys_Admin', teamId }),
  );
});
afterAll(() => ctx.close());

let counter = 0;
const uniqueNumber = () => `T-${++counter}`;
const trialRows = () => db().select().from(trials).where(eq(trials.teamId, teamId));
const teamRow = async (id: number) => (await db().select().from(teams).where(eq(teams.id, id)))[0]!;
const put = (client: TestClient, body: unknown) => client.request('PUT', '/api/userTrials', body);
const del = (client: TestClient, body: unknown) =>
  client.request('DELETE', '/api/userTrials', body);

async function create(client: TestClient, overrides: Record<string, unknown> = {}) {
  const response = await client.post('/api/userTrials', {
    trialNumber: uniqueNumber(),
    trialName: 'A trial',
    trialNotes: 'Notes',
    ...overrides,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().trialId as number;
}

describe('adding a trial', () => {
  it('stores it with the caller as owner and first trial user, a code prefix, and an audit row', async () => {
    const mark = await lastAuditId(db());
    const response = await adminClient.post('/api/userTrials', {
      trialNumber: 'tp-2026/07 b',
      trialName: '  Sleep study ',
      trialNotes: 'Twelve weeks',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ trialId: expect.any(Number), message: expect.any(String) });
    const trialId = response.json().trialId;
    const [row] = await db().select().from(trials).where(eq(trials.id, trialId));
    expect(row).toMatchObject({
      teamId,
      trialNumber: 'tp-2026/07 b',
      trialName: 'Sleep study',
      trialNotes: 'Twelve weeks',
      trialCode: 'TP202607B',
      ownerUserId: admin.id,
    });
    const members = await db().select().from(trialUsers).where(eq(trialUsers.trialId, trialId));
    expect(members.map((m) => m.userId)).toEqual([admin.id]);
    const audit = await auditSince(db(), mark);
    expect(audit.map((a) => [a.action, a.entityId, a.actorUserId, a.teamId])).toEqual([
      ['trial.create', String(trialId), admin.id, teamId],
    ]);
    expect(audit[0]!.after).toMatchObject({
      trialNumber: 'tp-2026/07 b',
      trialCode: 'TP202607B',
      ownerUserId: admin.id,
    });
  });

  it('refuses a Trial Number the team already has (trimmed, any case) with 409', async () => {
    await create(adminClient, { trialNumber: 'DUP-1' });
    const before = (await trialRows()).length;
    const response = await adminClient.post('/api/userTrials', {
      trialNumber: ' dup-1 ',
      trialName: 'Again',
    });
    expect(response.statusCode).toBe(409);
    expect(response.json().message).toBe(TRIAL_MESSAGES.duplicateNumber);
    expect((await trialRows()).length).toBe(before);
  });

  it('makes the code prefix unique in the team', async () => {
    const a = await create(adminClient, { trialNumber: 'CODE-X' });
    const b = await create(adminClient, { trialNumber: 'code x' });
    const codes = (await trialRows())
      .filter((t) => t.id === a || t.id === b)
      .map((t) => t.trialCode)
      .sort();
    expect(codes).toEqual(['CODEX', 'CODEX_2']);
    expect(uniqueTrialCode('ABCDEFGHIJKLMNOP', new Set(['ABCDEFGHIJKL']))).toBe('ABCDEFGHIJ_2');
    expect(uniqueTrialCode('--', new Set())).toBe('TRIAL');
  });

  it('answers 400 with the spec messages and stores nothing', async () => {
    const before = (await trialRows()).length;
    const mark = await lastAuditId(db());
    const cases: [unknown, string][] = [
      [{ trialNumber: '', trialName: 'x' }, 'Trial Number is required'],
      [{ trialNumber: '   ', trialName: 'x' }, 'Trial Number is required'],
      [{ trialName: 'x' }, 'Trial Number is required'],
      [{ trialNumber: uniqueNumber(), trialName: '' }, 'Trial Name is required'],
      [{ trialNumber: uniqueNumber() }, 'Trial Name is required'],
      [
        { trialNumber: uniqueNumber(), trialName: 'x', trialNotes: 'n'.repeat(301) },
        TRIAL_MESSAGES.notesTooLong,
      ],
    ];
    for (const [body, message] of cases) {
      const response = await adminClient.post('/api/userTrials', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toMatchObject({
        message,
        displayToUser: true,
        reason: 'VALIDATION_ERROR',
      });
    }
    const ok = await adminClient.post('/api/userTrials', {
      trialNumber: uniqueNumber(),
      trialName: 'x',
      trialNotes: 'n'.repeat(300),
    });
    expect(ok.statusCode).toBe(200);
    expect((await trialRows()).length).toBe(before + 1);
    expect((await auditSince(db(), mark)).map((a) => a.action)).toEqual(['trial.create']);
  });
});

describe('listing trials', () => {
  it('Admin and Sys_Admin see every trial of the team, User and Viewer only their own; newest first', async () => {
    const notMine = await create(adminClient);
    const mine = await create(adminClient);
    expect(
      (await adminClient.post('/api/trialUsers', { userEmail: user.email, trialId: mine }))
        .statusCode,
    ).toBe(200);

    for (const client of [adminClient, sysAdminClient]) {
      const list = (await client.get('/api/userTrials/')).json() as {
        trialId: number;
        creationDate: string;
      }[];
      expect(list.map((t) => t.trialId)).toEqual(expect.arrayContaining([mine, notMine]));
      expect(list.length).toBe((await trialRows()).length);
      const dates = list.map((t) => t.creationDate);
      expect([...dates].sort().reverse()).toEqual(dates);
    }
    const userList = (await userClient.get('/api/userTrials')).json() as { trialId: number }[];
    expect(userList.map((t) => t.trialId)).toEqual([mine]);
    expect((await viewerClient.get('/api/userTrials')).json()).toEqual([]);

    const [entry] = userList;
    expect(trialSchema.strict().parse(entry)).toMatchObject({
      trialId: mine,
      trialOwnerEmail: admin.email,
      teamId,
      trialNotes: 'Notes',
    });
  });
});

describe('editing a trial', () => {
  it('updates number, name and notes, keeps the code prefix, and audits before and after', async () => {
    const trialId = await create(adminClient, { trialNumber: 'EDIT-1' });
    const [before] = await db().select().from(trials).where(eq(trials.id, trialId));
    const mark = await lastAuditId(db());
    const response = await put(adminClient, {
      trialId,
      trialNumber: 'EDIT-2',
      trialName: 'Renamed',
      trialNotes: '',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: expect.any(String) });
    const [after] = await db().select().from(trials).where(eq(trials.id, trialId));
    expect(after).toMatchObject({
      trialNumber: 'EDIT-2',
      trialName: 'Renamed',
      trialNotes: '',
      trialCode: before!.trialCode,
    });
    const [audit] = await auditSince(db(), mark);
    expect(audit).toMatchObject({
      action: 'trial.update',
      entityId: String(trialId),
      actorUserId: admin.id,
    });
    expect(audit!.before).toMatchObject({ trialNumber: 'EDIT-1', trialName: 'A trial' });
    expect(audit!.after).toMatchObject({ trialNumber: 'EDIT-2', trialName: 'Renamed' });
  });

  it('a User edits only trials they are a trial user of (others are not found)', async () => {
    const theirs = await create(adminClient);
    const other = await create(adminClient);
    await adminClient.post('/api/trialUsers', { userEmail: user.email, trialId: theirs });
    expect(
      (
        await put(userClient, {
          trialId: theirs,
          trialNumber: uniqueNumber(),
          trialName: 'By user',
        })
      ).statusCode,
    ).toBe(200);
    const refused = await put(userClient, {
      trialId: other,
      trialNumber: uniqueNumber(),
      trialName: 'By user',
    });
    expect(refused.statusCode).toBe(404);
    expect(refused.json().message).toBe(TRIAL_MESSAGES.notFound);
    const [row] = await db().select().from(trials).where(eq(trials.id, other));
    expect(row!.trialName).toBe('A trial');
  });

  it('refuses a duplicate Trial Number and invalid input, changing nothing', async () => {
    await create(adminClient, { trialNumber: 'TAKEN-9' });
    const trialId = await create(adminClient);
    const [before] = await db().select().from(trials).where(eq(trials.id, trialId));
    const duplicate = await put(adminClient, { trialId, trialNumber: 'taken-9', trialName: 'x' });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().message).toBe(TRIAL_MESSAGES.duplicateNumber);
    for (const [body, message] of [
      [{ trialId, trialNumber: '', trialName: 'x' }, 'Trial Number is required'],
      [{ trialId, trialNumber: 'x', trialName: ' ' }, 'Trial Name is required'],
      [
        { trialId, trialNumber: 'x', trialName: 'y', trialNotes: 'n'.repeat(301) },
        TRIAL_MESSAGES.notesTooLong,
      ],
    ] as const) {
      const response = await put(adminClient, body);
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toBe(message);
    }
    const [after] = await db().select().from(trials).where(eq(trials.id, trialId));
    expect(after).toEqual(before);
  });
});

describe('deleting a trial', () => {
  it('deletes the trial and its trial users, recounts, and audits the before image', async () => {
    const trialId = await create(adminClient);
    await adminClient.post('/api/trialUsers', { userEmail: user.email, trialId });
    const count = (await teamRow(teamId)).actualNumOfTrials;
    const mark = await lastAuditId(db());
    const response = await del(adminClient, { trialId });
    expect(response.statusCode).toBe(200);
    expect(await db().select().from(trials).where(eq(trials.id, trialId))).toEqual([]);
    expect(await db().select().from(trialUsers).where(eq(trialUsers.trialId, trialId))).toEqual([]);
    expect((await teamRow(teamId)).actualNumOfTrials).toBe(count - 1);
    const [audit] = await auditSince(db(), mark);
    expect(audit).toMatchObject({
      action: 'trial.delete',
      entityId: String(trialId),
      actorUserId: admin.id,
      teamId,
    });
    expect(audit!.before).toMatchObject({
      trialName: 'A trial',
      trialUsers: expect.arrayContaining([admin.id, user.id]),
    });
    expect((await del(adminClient, { trialId })).statusCode).toBe(404);
  });

  it('refuses a trial with participants (409) unless the cascade is confirmed', async () => {
    const trialId = await create(adminClient);
    const [trial] = await db().select().from(trials).where(eq(trials.id, trialId));
    await addParticipants(db(), trial!, ['001', '002']);
    await db().update(teams).set({ actualNumOfParticipants: 0 }).where(eq(teams.id, teamId)); // stale on purpose
    const mark = await lastAuditId(db());

    for (const body of [{ trialId }, { trialId, cascade: false }]) {
      const refused = await del(adminClient, body);
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({
        message: TRIAL_MESSAGES.hasParticipants,
        displayToUser: true,
        reason: 'TRIAL_HAS_PARTICIPANTS',
      });
    }
    expect(await participantCount(db(), trialId, teamId)).toBe(2);
    expect(await db().select().from(trials).where(eq(trials.id, trialId))).toHaveLength(1);
    expect(await auditSince(db(), mark)).toEqual([]);

    const confirmed = await del(adminClient, { trialId, cascade: true });
    expect(confirmed.statusCode).toBe(200);
    expect(await participantCount(db(), trialId, teamId)).toBe(0);
    expect(await db().select().from(trials).where(eq(trials.id, trialId))).toEqual([]);
    const team = await teamRow(teamId);
    expect(team.actualNumOfParticipants).toBe(0);
    expect(team.actualNumOfTrials).toBe((await trialRows()).length);
    const [audit] = await auditSince(db(), mark);
    expect(audit!.action).toBe('trial.delete');
    expect(
      (audit!.before as { participants: { participantCode: string }[] }).participants
        .map((p) => p.participantCode)
        .sort(),
    ).toEqual([`${trial!.trialCode}-001`, `${trial!.trialCode}-002`]);
    expect(audit!.after).toMatchObject({ cascade: true, teamParticipantCount: 0 });
  });
});

describe("the team's max_trials", () => {
  it('refuses the trial beyond the limit (409) and keeps actual_num_of_trials right after deletes', async () => {
    const limited = (await createTeam(db(), { maxTrials: 2 })).id;
    const client = await signIn(
      ctx.app,
      db(),
      await createStaffUser(db(), { role: 'Admin', teamId: limited }),
    );
    const first = await create(client);
    await create(client);
    expect((await teamRow(limited)).actualNumOfTrials).toBe(2);

    const refused = await client.post('/api/userTrials', {
      trialNumber: uniqueNumber(),
      trialName: 'Third',
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      message: TRIAL_MESSAGES.maxTrialsReached,
      displayToUser: true,
    });
    expect((await teamRow(limited)).actualNumOfTrials).toBe(2);

    expect((await del(client, { trialId: first })).statusCode).toBe(200);
    expect((await teamRow(limited)).actualNumOfTrials).toBe(1);
    await create(client);
    expect((await teamRow(limited)).actualNumOfTrials).toBe(2);
    expect(
      (await client.post('/api/userTrials', { trialNumber: uniqueNumber(), trialName: 'Again' }))
        .statusCode,
    ).toBe(409);
  });

  it('holds under concurrent requests: exactly the free places are used', async () => {
    const limited = (await createTeam(db(), { maxTrials: 3 })).id;
    const client = await signIn(
      ctx.app,
      db(),
      await createStaffUser(db(), { role: 'Admin', teamId: limited }),
    );
    await create(client);
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        client.post('/api/userTrials', { trialNumber: `RACE-${i}`, trialName: 'Race' }),
      ),
    );
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 200, 409, 409, 409, 409]);
    const rows = await db().select().from(trials).where(eq(trials.teamId, limited));
    expect(rows).toHaveLength(3);
    expect((await teamRow(limited)).actualNumOfTrials).toBe(3);
    expect(new Set(rows.map((r) => r.trialCode)).size).toBe(3);
  });
});

describe('an inactive or expired team', () => {
  for (const [label, overrides] of [
    ['switched off', { isActive: false }],
    ['subscription ended', { subscriptionEnds: new Date(Date.now() - 86_400_000) }],
    ['subscription not started', { subscriptionStarts: new Date(Date.now() + 86_400_000) }],
  ] as const) {
    it(`${label}: every trial and trial-user call answers 403 TEAM_INACTIVE`, async () => {
      const team = await createTeam(db(), overrides);
      const client = await signIn(
        ctx.app,
        db(),
        await createStaffUser(db(), { role: 'Sys_Admin', teamId: team.id }),
      );
      expect((await client.get('/api/auth/user')).json().user.teamStatus).toBe('Inactive');
      const mark = await lastAuditId(db());
      const responses = [
        await client.get('/api/userTrials/'),
        await client.post('/api/userTrials', { trialNumber: uniqueNumber(), trialName: 'x' }),
        await put(client, { trialId: 1, trialNumber: 'x', trialName: 'y' }),
        await del(client, { trialId: 1 }),
        await client.get('/api/trialUsers/1'),
        await client.get('/api/teamUsers/1'),
        await client.post('/api/trialUsers', { userEmail: admin.email, trialId: 1 }),
        await client.request('DELETE', '/api/trialUsers', {
          userId: admin.id,
          userEmail: admin.email,
          trialId: 1,
        }),
      ];
      for (const response of responses) {
        expect(response.statusCode, response.body).toBe(403);
        expect(response.json()).toMatchObject({
          message: TRIAL_MESSAGES.teamInactive,
          reason: 'TEAM_INACTIVE',
          displayToUser: true,
        });
      }
      expect(await db().select().from(trials).where(eq(trials.teamId, team.id))).toEqual([]);
      expect(await auditSince(db(), mark)).toEqual([]);
    });
  }
});
