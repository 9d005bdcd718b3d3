import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HUMAN_CHECK_MESSAGE, PASSWORD_MESSAGES, SIGNUP_MESSAGES } from '@trialpulse/shared';
import { auditLog, oneTimeTokens, teamUserMappings, teams, users } from '../../db/schema';
import { createManualClock } from '../../lib/clock';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient, type TestUser } from '../../test/fixtures';
import { solveHumanCheck } from '../human-check/test-support';
import { clientAt, signedInClient } from '../passwords/test-support/clients';
import { linkToken, startMailInbox, type MailInbox } from '../passwords/test-support/mail-inbox';
import { SIGNUP_ERRORS } from './signup.service';

const start = new Date();
const clock = createManualClock(start);
let inbox: MailInbox;
let ctx: TestApp;
let team: { id: number; teamName: string };
let otherTeam: { id: number; teamName: string };
let sysAdmin: TestUser;
let admin: TestClient;

beforeAll(async () => {
  inbox = await startMailInbox();
  ctx = await createTestApp({
    clock,
    env: { SMTP_URL: inbox.url, PUBLIC_URL: 'https://trialpulse.test/' },
  });
  await ctx.app.ready();
  team = await createTeam(ctx.database.db);
  otherTeam = await createTeam(ctx.database.db);
  sysAdmin = await createStaffUser(ctx.database.db, { role: 'Sys_Admin', teamId: team.id });
});
afterAll(async () => {
  await ctx?.close();
  await inbox?.close();
});
beforeEach(async () => {
  clock.set(start);
  admin = await signedInClient(ctx.app, db(), sysAdmin);
});

const db = () => ctx.database.db;
let counter = 0;
const newEmail = () => `invitee-${Date.now().toString(36)}-${++counter}@example.org`;
const PASSWORD = 'Invited#Pass7';
const invitationsFor = (email: string) =>
  db()
    .select()
    .from(oneTimeTokens)
    .where(and(eq(oneTimeTokens.purpose, 'signup_invitation'), eq(oneTimeTokens.email, email)));
const auditRows = (action: string) =>
  db().select().from(auditLog).where(eq(auditLog.action, action));
const invalidLink = { message: SIGNUP_ERRORS.invalidLink, displayToUser: true };

async function invite(email: string, role = 'User', teamId = team.id, client = admin) {
  return client.post('/api/userSignUpPermission/approveSignUp', {
    email,
    role,
    teamId,
    teamName: 'ignored',
  });
}

/** Invites `email` and returns the token from the mail the SMTP server received. */
async function invitationToken(email: string, role = 'User', teamId = team.id, nth = 1) {
  const response = await invite(email, role, teamId);
  expect(response.statusCode, response.body).toBe(200);
  return linkToken(await inbox.waitFor(email, nth), 'SignupValidation');
}

async function signupForm(token: string, email: string, overrides: Record<string, unknown> = {}) {
  return {
    token,
    email,
    password: PASSWORD,
    confirmPassword: PASSWORD,
    firstName: 'Ada',
    lastName: 'Lovelace',
    organization: 'Analytical Engines',
    acceptTerms: true,
    acceptPrivacy: true,
    recaptchaResponse: await solveHumanCheck(ctx.app),
    ...overrides,
  };
}
const signup = async (payload: Record<string, unknown>) =>
  clientAt(ctx.app).post('/api/users/signup', payload);

describe('teams list (GET /api/team)', () => {
  it('lists every team for a Sys_Admin, refuses other roles', async () => {
    const response = await admin.get('/api/team');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(
      expect.arrayContaining([
        { team_id: team.id, team_name: team.teamName },
        { team_id: otherTeam.id, team_name: otherTeam.teamName },
      ]),
    );
    const teamAdmin = await createStaffUser(db(), { role: 'Admin', teamId: team.id });
    expect(
      (await (await signedInClient(ctx.app, db(), teamAdmin)).get('/api/team')).statusCode,
    ).toBe(403);
    expect((await clientAt(ctx.app).get('/api/team')).statusCode).toBe(401);
  });
});

describe('sign-up approval (POST /api/userSignUpPermission/approveSignUp)', () => {
  it('answers 400 with the spec message for each invalid form and creates nothing', async () => {
    const email = newEmail();
    const cases: [Record<string, unknown>, string][] = [
      [{ email: '', role: 'User', teamId: team.id }, 'Email is required'],
      [{ role: 'User', teamId: team.id }, 'Email is required'],
      [{ email: 'not-an-email', role: 'User', teamId: team.id }, 'Email is invalid'],
      [{ email, role: 'User' }, 'Team is required'],
      [{ email, role: 'User', teamId: '' }, 'Team is required'],
      [{ email, role: 'Sys_Admin', teamId: team.id }, 'Role is required'],
      [{ email, role: 'Owner', teamId: team.id }, 'Role is required'],
      [{ email, teamId: team.id }, 'Role is required'],
    ];
    for (const [payload, message] of cases) {
      const response = await admin.post('/api/userSignUpPermission/approveSignUp', payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json()).toMatchObject({ message, displayToUser: true });
    }
    const unknownTeam = await invite(email, 'User', 999_999);
    expect(unknownTeam.statusCode).toBe(400);
    expect(unknownTeam.json().message).toBe(SIGNUP_ERRORS.teamNotFound);
    expect(await invitationsFor(email)).toHaveLength(0);
  });

  it('only a Sys_Admin may approve (Admin, User, Viewer → 403; signed out → 401)', async () => {
    const email = newEmail();
    for (const role of ['Admin', 'User', 'Viewer'] as const) {
      const account = await createStaffUser(db(), { role, teamId: team.id });
      const response = await invite(
        email,
        'Viewer',
        team.id,
        await signedInClient(ctx.app, db(), account),
      );
      expect(response.statusCode).toBe(403);
    }
    expect((await invite(email, 'Viewer', team.id, clientAt(ctx.app))).statusCode).toBe(401);
    expect(await invitationsFor(email)).toHaveLength(0);
  });

  it('refuses an email already in the team (409) and a participant account (409)', async () => {
    const member = await createStaffUser(db(), { role: 'User', teamId: team.id });
    const response = await invite(member.email, 'Admin');
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({
      message: SIGNUP_ERRORS.alreadyMember,
      displayToUser: true,
    });
    const participant = await createStaffUser(db(), { accountType: 'participant', role: null });
    expect((await invite(participant.email)).json()).toMatchObject({
      message: SIGNUP_ERRORS.participantAccount,
    });
    expect(await invitationsFor(member.email)).toHaveLength(0);
  });

  it('adds an existing staff account outside the team directly and mails a notice', async () => {
    const member = await createStaffUser(db(), { role: 'User', teamId: team.id });
    const response = await invite(member.email, 'Viewer', otherTeam.id);
    expect(response.statusCode).toBe(200);
    const mapping = await db()
      .select()
      .from(teamUserMappings)
      .where(
        and(eq(teamUserMappings.userId, member.id), eq(teamUserMappings.teamId, otherTeam.id)),
      );
    expect(mapping).toMatchObject([{ role: 'Viewer', defaultTeam: false }]);
    const notice = await inbox.waitFor(member.email);
    expect(notice.decoded).toContain(otherTeam.teamName);
    expect(notice.decoded).not.toContain('token=');
    expect(
      (await auditRows('auth.invitation.add_existing')).some(
        (row) => row.entityId === `${member.id}:${otherTeam.id}`,
      ),
    ).toBe(true);
  });

  it('refuses when the team is full', async () => {
    const full = await createTeam(db(), { maxUsers: 1 });
    await createStaffUser(db(), { role: 'User', teamId: full.id });
    const email = newEmail();
    const response = await invite(email, 'User', full.id);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ message: SIGNUP_ERRORS.teamFull, displayToUser: true });
    expect(await invitationsFor(email)).toHaveLength(0);
  });
});

describe('invitation → sign-up', () => {
  it('invitation mail → link → validation → sign-up → sign-in with the approved role in the team', async () => {
    const email = newEmail();
    const token = await invitationToken(email, 'Admin');
    const [stored] = await invitationsFor(email);
    expect(stored!.tokenHash).not.toContain(token);
    expect(stored!.expiresAt.getTime() - start.getTime()).toBe(7 * 24 * 60 * 60 * 1000);
    expect(stored!.createdByUserId).toBe(sysAdmin.id);

    const validation = await clientAt(ctx.app).post(
      '/api/userSignUpPermission/signupRequestValidation',
      { token },
    );
    expect(validation.statusCode).toBe(200);
    expect(validation.json()).toEqual({
      email,
      role: 'Admin',
      teamId: team.id,
      teamName: team.teamName,
    });

    // Mass assignment: team, role and token_version in the body are ignored.
    const response = await signup(
      await signupForm(token, email.toUpperCase(), {
        teamId: otherTeam.id,
        teamName: otherTeam.teamName,
        role: 'Sys_Admin',
        token_version: 7,
      }),
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      message: SIGNUP_MESSAGES.success,
      data: { redirectTo: '/LoginPage' },
    });

    const [user] = await db().select().from(users).where(eq(users.email, email));
    expect(user).toMatchObject({
      username: email,
      accountType: 'staff',
      firstName: 'Ada',
      sfaEnabled: false,
      tokenVersion: 0,
    });
    const mappings = await db()
      .select()
      .from(teamUserMappings)
      .where(eq(teamUserMappings.userId, user!.id));
    expect(mappings).toMatchObject([{ teamId: team.id, role: 'Admin', defaultTeam: true }]);
    const [teamRow] = await db().select().from(teams).where(eq(teams.id, team.id));
    const members = await db()
      .select()
      .from(teamUserMappings)
      .where(eq(teamUserMappings.teamId, team.id));
    expect(teamRow!.actualNumOfUsers).toBe(members.length);

    const login = await clientAt(ctx.app).login(email, PASSWORD);
    expect(login.statusCode).toBe(200);
    expect(login.json().user).toMatchObject({
      role: 'Admin',
      teamId: team.id,
      authStatus: 'SFAIsNotSet',
    });

    expect(
      (await auditRows('auth.invitation.create')).some(
        (row) => row.entityId === String(stored!.id),
      ),
    ).toBe(true);
    const [signupAudit] = (await auditRows('auth.signup')).filter(
      (row) => row.entityId === String(user!.id),
    );
    expect(signupAudit).toMatchObject({
      teamId: team.id,
      after: { role: 'Admin', invitationId: stored!.id },
    });
    expect(JSON.stringify(signupAudit)).not.toContain(PASSWORD);

    // The link works once.
    expect(
      (
        await clientAt(ctx.app).post('/api/userSignUpPermission/signupRequestValidation', { token })
      ).json(),
    ).toMatchObject(invalidLink);
    const again = await signup(await signupForm(token, email));
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject(invalidLink);
  });

  it('answers 400 with the spec message for each invalid sign-up form and creates nothing', async () => {
    const email = newEmail();
    const token = await invitationToken(email);
    const cases: [Record<string, unknown>, string][] = [
      [{ firstName: '' }, 'First Name is required'],
      [{ firstName: 'A' }, 'First Name must be between 2 and 50 characters'],
      [{ lastName: '' }, 'Last name is required'],
      [{ lastName: 'x'.repeat(51) }, 'Last name must be between 2 and 50 characters'],
      [{ email: '' }, 'Email is required'],
      [{ email: 'nope' }, 'Email is invalid'],
      [{ password: '', confirmPassword: '' }, PASSWORD_MESSAGES.required],
      [{ password: 'Ab1#xyz', confirmPassword: 'Ab1#xyz' }, PASSWORD_MESSAGES.tooShort],
      [
        { password: 'Ab1#'.repeat(6), confirmPassword: 'Ab1#'.repeat(6) },
        PASSWORD_MESSAGES.tooLong,
      ],
      [{ password: 'nocapitals1#', confirmPassword: 'nocapitals1#' }, PASSWORD_MESSAGES.complexity],
      [{ confirmPassword: 'Different#9x' }, PASSWORD_MESSAGES.signupMismatch],
      [{ acceptTerms: false }, SIGNUP_MESSAGES.acceptTerms],
      [{ acceptTerms: undefined }, SIGNUP_MESSAGES.acceptTerms],
      [{ acceptPrivacy: false }, SIGNUP_MESSAGES.acceptPrivacy],
      [{ recaptchaResponse: '' }, HUMAN_CHECK_MESSAGE],
      [{ recaptchaResponse: 'fallback-token' }, HUMAN_CHECK_MESSAGE],
      [{ email: newEmail() }, SIGNUP_ERRORS.emailMismatch],
    ];
    for (const [overrides, message] of cases) {
      const response = await signup(await signupForm(token, email, overrides));
      expect(response.statusCode, message).toBe(400);
      expect(response.json()).toMatchObject({ message, displayToUser: true });
    }
    expect(await db().select().from(users).where(eq(users.email, email))).toHaveLength(0);
    expect((await invitationsFor(email))[0]!.usedAt).toBeNull();
    expect((await signup(await signupForm(token, email))).statusCode).toBe(200);
  });

  it('an expired (7 days), unknown or superseded link fails', async () => {
    const email = newEmail();
    const first = await invitationToken(email, 'User', team.id, 1);
    const second = await invitationToken(email, 'Viewer', team.id, 2);
    expect((await signup(await signupForm(first, email))).json()).toMatchObject(invalidLink);
    expect((await signup(await signupForm('x'.repeat(43), email))).json()).toMatchObject(
      invalidLink,
    );
    const validationMissing = await clientAt(ctx.app).post(
      '/api/userSignUpPermission/signupRequestValidation',
      { token: '' },
    );
    expect(validationMissing.statusCode).toBe(400);

    clock.advance(7 * 24 * 60 * 60 * 1000 + 1000);
    const expired = await clientAt(ctx.app).post(
      '/api/userSignUpPermission/signupRequestValidation',
      { token: second },
    );
    expect(expired.statusCode).toBe(400);
    expect(expired.json()).toMatchObject(invalidLink);
    expect((await signup(await signupForm(second, email))).json()).toMatchObject(invalidLink);
    expect(await db().select().from(users).where(eq(users.email, email))).toHaveLength(0);
  });

  it('a duplicate email answers 409 and keeps the invitation', async () => {
    const email = newEmail();
    const token = await invitationToken(email);
    // The account appears after the invitation (e.g. created another way meanwhile).
    const [created] = await db()
      .insert(users)
      .values({ email, username: email, firstName: 'Al', lastName: 'Ready' })
      .returning();
    const response = await signup(await signupForm(token, email));
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({
      message: 'An account with this email already exists.',
    });
    expect(
      await db().select().from(teamUserMappings).where(eq(teamUserMappings.userId, created!.id)),
    ).toHaveLength(0);
    expect((await invitationsFor(email))[0]!.usedAt).toBeNull();
  });

  it('enforces max_users at sign-up: the second invitee of a one-seat team is refused', async () => {
    const small = await createTeam(db(), { maxUsers: 1 });
    const [firstEmail, secondEmail] = [newEmail(), newEmail()];
    const firstToken = await invitationToken(firstEmail, 'User', small.id);
    const secondToken = await invitationToken(secondEmail, 'User', small.id);
    expect((await signup(await signupForm(firstToken, firstEmail))).statusCode).toBe(200);
    const refused = await signup(await signupForm(secondToken, secondEmail));
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ message: SIGNUP_ERRORS.teamFull, displayToUser: true });
    expect(await db().select().from(users).where(eq(users.email, secondEmail))).toHaveLength(0);
    expect((await invitationsFor(secondEmail))[0]!.usedAt).toBeNull();
    const [row] = await db().select().from(teams).where(eq(teams.id, small.id));
    expect(row!.actualNumOfUsers).toBe(1);
  });
});
