import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEAM_MESSAGES, sessionUserSchema, teamOptionSchema } from '@trialpulse/shared';
import { sessions, teamUserMappings } from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestUser } from '../../test/fixtures';
import { auditSince, lastAuditId, sessionIdOf, signIn } from '../trials/test-support';

let ctx: TestApp;
const db = () => ctx.database.db;
let teamA: { id: number; teamName: string };
let teamB: { id: number; teamName: string };
let teamC: { id: number; teamName: string };
let person: TestUser;

beforeAll(async () => {
  ctx = await createTestApp();
  teamA = await createTeam(db(), { teamName: `Alpha ${Date.now()}` });
  teamB = await createTeam(db(), { teamName: `Beta ${Date.now()}`, isActive: false });
  teamC = await createTeam(db(), { teamName: `Gamma ${Date.now()}` });
  // Admin in A (default team), Viewer in B; no mapping to C.
  person = await createStaffUser(db(), { role: 'Admin', teamId: teamA.id });
  await db()
    .insert(teamUserMappings)
    .values({ userId: person.id, teamId: teamB.id, role: 'Viewer' });
});
afterAll(() => ctx.close());

const mappingFlags = async (userId: number) =>
  (await db().select().from(teamUserMappings).where(eq(teamUserMappings.userId, userId)))
    .filter((m) => m.lastSelectedTeam)
    .map((m) => m.teamId);
const sessionTeam = async (sessionId: string) =>
  (
    await db().select({ teamId: sessions.teamId }).from(sessions).where(eq(sessions.id, sessionId))
  )[0]?.teamId;

describe('GET /api/userTeamsData/{userId}', () => {
  it("answers the caller's own teams with the role in each", async () => {
    const client = await signIn(ctx.app, db(), person);
    const response = await client.get(`/api/userTeamsData/${person.id}`);
    expect(response.statusCode).toBe(200);
    const teams = response.json() as unknown[];
    teams.forEach((team) => teamOptionSchema.strict().parse(team));
    expect(teams).toEqual(
      expect.arrayContaining([
        { team_id: teamA.id, team_name: teamA.teamName, role: 'Admin' },
        { team_id: teamB.id, team_name: teamB.teamName, role: 'Viewer' },
      ]),
    );
    expect(teams).toHaveLength(2);
  });

  it("refuses another user's teams (403) and needs a session (401)", async () => {
    const client = await signIn(ctx.app, db(), person);
    const other = await createStaffUser(db(), { role: 'User', teamId: teamA.id });
    const response = await client.get(`/api/userTeamsData/${other.id}`);
    expect(response.statusCode).toBe(403);
    expect(response.body).not.toContain(other.email);
    expect(
      (await ctx.app.inject({ method: 'GET', url: `/api/userTeamsData/${person.id}` })).statusCode,
    ).toBe(401);
  });
});

describe('POST /api/selectTeam', () => {
  it('switches the session to the team with the role from the mapping, ignoring a forged role', async () => {
    const client = await signIn(ctx.app, db(), person);
    const sessionId = sessionIdOf(client);
    const mark = await lastAuditId(db());
    const response = await client.post('/api/selectTeam', {
      teamId: teamB.id,
      teamName: 'Anything',
      role: 'Sys_Admin',
    });
    expect(response.statusCode, response.body).toBe(200);
    const user = sessionUserSchema.parse(response.json().user);
    expect(user).toMatchObject({
      teamId: teamB.id,
      team_name: teamB.teamName,
      role: 'Viewer',
      teamStatus: 'Inactive',
    });
    expect(await sessionTeam(sessionId)).toBe(teamB.id);
    expect(await mappingFlags(person.id)).toEqual([teamB.id]);

    // The next requests act as a Viewer of the (inactive) team B.
    expect((await client.get('/api/auth/user')).json().user).toMatchObject({
      teamId: teamB.id,
      role: 'Viewer',
    });
    expect(
      (await client.post('/api/userTrials', { trialNumber: 'X', trialName: 'Y' })).statusCode,
    ).toBe(403);

    const audit = await auditSince(db(), mark);
    expect(audit.map((a) => [a.action, a.actorUserId, a.teamId])).toEqual([
      ['team.select', person.id, teamB.id],
    ]);
    expect(audit[0]!.before).toMatchObject({ teamId: teamA.id, role: 'Admin' });
    expect(audit[0]!.after).toEqual({ teamId: teamB.id, role: 'Viewer' });

    // Back to A: one last-selected flag per user, and a new sign-in starts there.
    const back = await client.post('/api/selectTeam', { teamId: teamA.id });
    expect(back.json().user).toMatchObject({
      teamId: teamA.id,
      role: 'Admin',
      teamStatus: 'Active',
    });
    expect(await mappingFlags(person.id)).toEqual([teamA.id]);
    const fresh = await signIn(ctx.app, db(), person);
    expect((await fresh.get('/api/auth/user')).json().user.teamId).toBe(teamA.id);
  });

  it('refuses a team without a mapping (403) and changes nothing', async () => {
    const client = await signIn(ctx.app, db(), person);
    const sessionId = sessionIdOf(client);
    const before = await sessionTeam(sessionId);
    const flags = await mappingFlags(person.id);
    const mark = await lastAuditId(db());
    for (const teamId of [teamC.id, 2_147_483_647, 99_999_999_999]) {
      const response = await client.post('/api/selectTeam', {
        teamId,
        teamName: teamC.teamName,
        role: 'Admin',
      });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({
        message: TEAM_MESSAGES.notAMember,
        displayToUser: true,
      });
    }
    expect((await client.post('/api/selectTeam', {})).statusCode).toBe(400);
    expect(await sessionTeam(sessionId)).toBe(before);
    expect(await mappingFlags(person.id)).toEqual(flags);
    expect(await auditSince(db(), mark)).toEqual([]);
  });

  it('a user without a role in the selected team can still list and switch teams', async () => {
    const wanderer = await createStaffUser(db(), { role: 'User', teamId: teamA.id });
    await db()
      .insert(teamUserMappings)
      .values({ userId: wanderer.id, teamId: teamC.id, role: 'Admin' });
    const client = await signIn(ctx.app, db(), wanderer);
    // Removed from the session's team while signed in.
    await db()
      .delete(teamUserMappings)
      .where(and(eq(teamUserMappings.userId, wanderer.id), eq(teamUserMappings.teamId, teamA.id)));
    const trialsCall = await client.get('/api/userTrials');
    expect(trialsCall.statusCode).toBe(403);
    expect(trialsCall.json().reason).toBe('ROLE_MISSING');

    expect((await client.get(`/api/userTeamsData/${wanderer.id}`)).json()).toEqual([
      { team_id: teamC.id, team_name: teamC.teamName, role: 'Admin' },
    ]);
    expect((await client.post('/api/selectTeam', { teamId: teamA.id })).statusCode).toBe(403);
    const switched = await client.post('/api/selectTeam', { teamId: teamC.id });
    expect(switched.json().user).toMatchObject({ teamId: teamC.id, role: 'Admin' });
    expect((await client.get('/api/userTrials')).statusCode).toBe(200);
  });

  it('concurrent selections by one user keep exactly one last-selected team', async () => {
    const client = await signIn(ctx.app, db(), person);
    const other = await signIn(ctx.app, db(), person);
    const responses = await Promise.all([
      client.post('/api/selectTeam', { teamId: teamA.id }),
      other.post('/api/selectTeam', { teamId: teamB.id }),
      client.post('/api/selectTeam', { teamId: teamB.id }),
      other.post('/api/selectTeam', { teamId: teamA.id }),
    ]);
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    expect(await mappingFlags(person.id)).toHaveLength(1);
  });
});
