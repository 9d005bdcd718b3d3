import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIAL_USER_MESSAGES, teamUserOptionSchema, trialUserSchema } from '@trialpulse/shared';
import { teamUserMappings, trialUsers, users } from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient, type TestUser } from '../../test/fixtures';
import { auditSince, lastAuditId, signIn } from './test-support';

let ctx: TestApp;
const db = () => ctx.database.db;
let teamId: number;
let owner: TestUser;
let colleague: TestUser;
let viewer: TestUser;
let ownerClient: TestClient;
let otherAdminClient: TestClient;
let otherAdmin: TestUser;

beforeAll(async () => {
  ctx = await createTestApp();
  teamId = (await createTeam(db())).id;
  owner = await createStaffUser(db(), { role: 'Admin', teamId });
  otherAdmin = await createStaffUser(db(), { role: 'Admin', teamId });
  colleague = await createStaffUser(db(), { role: 'User', teamId });
  viewer = await createStaffUser(db(), { role: 'Viewer', teamId });
  ownerClient = await signIn(ctx.app, db(), owner);
  otherAdminClient = await signIn(ctx.app, db(), otherAdmin);
});
afterAll(() => ctx.close());

let counter = 0;
async function newTrial(client = ownerClient) {
  const response = await client.post('/api/userTrials', {
    trialNumber: `TU-${++counter}`,
    trialName: 'Users trial',
  });
  expect(response.statusCode).toBe(200);
  return response.json().trialId as number;
}
const members = async (trialId: number) =>
  (
    await db()
      .select({ userId: trialUsers.userId })
      .from(trialUsers)
      .where(eq(trialUsers.trialId, trialId))
  )
    .map((r) => r.userId)
    .sort((a, b) => a - b);
const remove = (client: TestClient, body: unknown) =>
  client.request('DELETE', '/api/trialUsers', body);

describe('trial users', () => {
  it('lists the owner flagged, offers the other team members, adds one, and audits it', async () => {
    const trialId = await newTrial();
    const list = (await ownerClient.get(`/api/trialUsers/${trialId}`)).json();
    expect(list).toEqual([{ id: owner.id, email: owner.email, isOwner: true }]);
    trialUserSchema.strict().parse(list[0]);

    const offered = (await ownerClient.get(`/api/teamUsers/${trialId}`)).json() as {
      id: number;
      email: string;
    }[];
    offered.forEach((entry) => teamUserOptionSchema.strict().parse(entry));
    expect(offered.map((u) => u.id).sort((a, b) => a - b)).toEqual(
      [otherAdmin.id, colleague.id, viewer.id].sort((a, b) => a - b),
    );

    const mark = await lastAuditId(db());
    const added = await ownerClient.post('/api/trialUsers', {
      userEmail: ` ${colleague.email.toUpperCase()} `,
      trialId,
    });
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json()).toEqual({
      message: expect.any(String),
      data: { userId: colleague.id, userEmail: colleague.email },
    });
    expect(await members(trialId)).toEqual([owner.id, colleague.id].sort((a, b) => a - b));
    const [audit] = await auditSince(db(), mark);
    expect(audit).toMatchObject({
      action: 'trial_user.add',
      entityId: `${trialId}:${colleague.id}`,
      actorUserId: owner.id,
      teamId,
    });

    const listed = (await ownerClient.get(`/api/trialUsers/${trialId}`)).json();
    expect(listed).toEqual([
      { id: owner.id, email: owner.email, isOwner: true },
      { id: colleague.id, email: colleague.email, isOwner: false },
    ]);
    const stillOffered = (await ownerClient.get(`/api/teamUsers/${trialId}`)).json() as {
      id: number;
    }[];
    expect(stillOffered.map((u) => u.id)).not.toContain(colleague.id);
  });

  it('refuses a user already in the trial (409) and anyone outside the team (400, displayable)', async () => {
    const trialId = await newTrial();
    expect(
      (await ownerClient.post('/api/trialUsers', { userEmail: viewer.email, trialId })).statusCode,
    ).toBe(200);
    const again = await ownerClient.post('/api/trialUsers', { userEmail: viewer.email, trialId });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe(TRIAL_USER_MESSAGES.alreadyInTrial);

    const otherTeam = (await createTeam(db())).id;
    const stranger = await createStaffUser(db(), { role: 'Admin', teamId: otherTeam });
    const inactive = await createStaffUser(db(), { role: 'User', teamId, isActive: false });
    const participant = await createStaffUser(db(), { accountType: 'participant', role: null });
    for (const email of [stranger.email, inactive.email, participant.email, 'nobody@example.org']) {
      const response = await ownerClient.post('/api/trialUsers', { userEmail: email, trialId });
      expect(response.statusCode, email).toBe(400);
      expect(response.json()).toMatchObject({
        message: TRIAL_USER_MESSAGES.notInTeam,
        displayToUser: true,
      });
    }
    for (const [body, message] of [
      [{ trialId }, 'Email is required'],
      [{ userEmail: 'not-an-email', trialId }, 'Email is invalid'],
    ] as const) {
      const response = await ownerClient.post('/api/trialUsers', body);
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toBe(message);
    }
    expect(await members(trialId)).toEqual([owner.id, viewer.id].sort((a, b) => a - b));
  });

  it('never removes the owner (409), removes others with an audit row, and 404s for non-members', async () => {
    const trialId = await newTrial();
    await ownerClient.post('/api/trialUsers', { userEmail: colleague.email, trialId });

    for (const client of [ownerClient, otherAdminClient]) {
      const refused = await remove(client, { userId: owner.id, userEmail: owner.email, trialId });
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({
        message: TRIAL_USER_MESSAGES.ownerCannotBeRemoved,
        displayToUser: true,
      });
    }
    expect(await members(trialId)).toContain(owner.id);

    const mark = await lastAuditId(db());
    const removed = await remove(otherAdminClient, {
      userId: colleague.id,
      userEmail: colleague.email,
      trialId,
    });
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ message: expect.any(String) });
    expect(await members(trialId)).toEqual([owner.id]);
    const [audit] = await auditSince(db(), mark);
    expect(audit).toMatchObject({
      action: 'trial_user.remove',
      entityId: `${trialId}:${colleague.id}`,
      actorUserId: otherAdmin.id,
    });

    const again = await remove(otherAdminClient, {
      userId: colleague.id,
      userEmail: colleague.email,
      trialId,
    });
    expect(again.statusCode).toBe(404);
    expect(again.json().message).toBe(TRIAL_USER_MESSAGES.notFound);
  });

  it('a member who leaves the team is no longer offered or addable', async () => {
    const trialId = await newTrial();
    const leaver = await createStaffUser(db(), { role: 'User', teamId });
    await db()
      .delete(teamUserMappings)
      .where(and(eq(teamUserMappings.userId, leaver.id), eq(teamUserMappings.teamId, teamId)));
    const offered = (await ownerClient.get(`/api/teamUsers/${trialId}`)).json() as { id: number }[];
    expect(offered.map((u) => u.id)).not.toContain(leaver.id);
    expect(
      (await ownerClient.post('/api/trialUsers', { userEmail: leaver.email, trialId })).statusCode,
    ).toBe(400);
    expect((await db().select().from(users).where(eq(users.id, leaver.id))).length).toBe(1);
  });
});
