import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ERROR_REASONS,
  HUMAN_CHECK_MESSAGE,
  LOGIN_MESSAGES,
  PASSWORD_MESSAGES,
} from '@trialpulse/shared';
import {
  auditLog,
  credentials,
  mailOutbox,
  participants,
  teamUserMappings,
  trials,
  users,
} from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient } from '../../test/fixtures';
import { solveHumanCheck } from '../human-check/test-support';
import { ACCESS_COOKIE } from '../auth/session-tokens';
import { clientAt, signedInClient } from '../passwords/test-support/clients';
import { PARTICIPANT_ACCOUNT_MESSAGES } from './participant-accounts.service';

let ctx: TestApp;
let teamId: number;

beforeAll(async () => {
  ctx = await createTestApp();
  await ctx.app.ready();
  teamId = (await createTeam(ctx.database.db)).id;
});
afterAll(() => ctx?.close());

const db = () => ctx.database.db;
let counter = 0;
const fresh = () => `${Date.now().toString(36)}${++counter}`;
const PASSWORD = 'Particip#ant1';
const form = (overrides: Record<string, unknown> = {}) => {
  const id = fresh();
  return {
    username: `runner${id}`,
    email: `p-${id}@example.org`,
    password: PASSWORD,
    confirmPassword: PASSWORD,
    ...overrides,
  };
};
const register = (payload: Record<string, unknown>) =>
  clientAt(ctx.app).post('/api/Participants/signup', payload);
const participantLogin = async (
  client: TestClient,
  username: string,
  password: string,
  recaptchaResponse?: string,
) =>
  client.post('/api/Participants/login', {
    username,
    password,
    recaptchaResponse: recaptchaResponse ?? (await solveHumanCheck(ctx.app)),
  });
const comparable = (body: Record<string, unknown>) => ({
  ...body,
  requestId: undefined,
  location: undefined,
});

async function registeredAndSignedIn() {
  const account = form();
  expect((await register(account)).statusCode).toBe(200);
  const client = clientAt(ctx.app);
  const response = await participantLogin(client, account.username, PASSWORD);
  expect(response.statusCode, response.body).toBe(200);
  return { account, client };
}

describe('participant sign-up (POST /api/Participants/signup)', () => {
  it('answers 400 with the spec message for each invalid form and creates nothing', async () => {
    const email = `p-${fresh()}@example.org`;
    const cases: [Record<string, unknown>, string][] = [
      [{ username: '' }, 'Username is required'],
      [{ username: undefined }, 'Username is required'],
      [{ email: '' }, 'Email is required'],
      [{ email: 'bad@' }, 'Email is invalid'],
      [{ password: '', confirmPassword: '' }, PASSWORD_MESSAGES.required],
      [{ password: 'Ab1#xyz', confirmPassword: 'Ab1#xyz' }, PASSWORD_MESSAGES.tooShort],
      [
        { password: 'Ab1#'.repeat(6), confirmPassword: 'Ab1#'.repeat(6) },
        PASSWORD_MESSAGES.tooLong,
      ],
      [{ password: 'NOLOWER1#X', confirmPassword: 'NOLOWER1#X' }, PASSWORD_MESSAGES.complexity],
      [{ confirmPassword: 'Other#Pass1' }, PASSWORD_MESSAGES.signupMismatch],
      [{ username: 'someone.else@example.org' }, PARTICIPANT_ACCOUNT_MESSAGES.usernameNotEmail],
    ];
    for (const [overrides, message] of cases) {
      const response = await register(form({ email, ...overrides }));
      expect(response.statusCode, message).toBe(400);
      expect(response.json()).toMatchObject({ message, displayToUser: true });
    }
    expect(await db().select().from(users).where(eq(users.email, email))).toHaveLength(0);
  });

  it('creates a participant account: no team, no role, hashed password, audited', async () => {
    const account = form({ email: `MiXeD-${fresh()}@Example.org` });
    const response = await register(account);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      message: PARTICIPANT_ACCOUNT_MESSAGES.signedUp,
    });
    const [user] = await db()
      .select()
      .from(users)
      .where(eq(users.email, (account.email as string).toLowerCase()));
    expect(user).toMatchObject({
      accountType: 'participant',
      username: account.username,
      isActive: true,
    });
    expect(
      await db().select().from(teamUserMappings).where(eq(teamUserMappings.userId, user!.id)),
    ).toHaveLength(0);
    const [credential] = await db()
      .select()
      .from(credentials)
      .where(eq(credentials.userId, user!.id));
    expect(credential!.passwordHash).toMatch(/^\$argon2id\$/);
    const audit = await db()
      .select()
      .from(auditLog)
      .where(
        and(
          eq(auditLog.action, 'participant_account.signup'),
          eq(auditLog.entityId, String(user!.id)),
        ),
      );
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(PASSWORD);
  });

  it('refuses a taken email or username (409), also when a staff account holds it', async () => {
    const account = form();
    expect((await register(account)).statusCode).toBe(200);
    const sameEmail = await register(form({ email: (account.email as string).toUpperCase() }));
    expect(sameEmail.statusCode).toBe(409);
    expect(sameEmail.json()).toMatchObject({
      message: PARTICIPANT_ACCOUNT_MESSAGES.duplicateEmail,
      displayToUser: true,
    });
    const sameUsername = await register(
      form({ username: (account.username as string).toUpperCase() }),
    );
    expect(sameUsername.statusCode).toBe(409);
    expect(sameUsername.json().message).toBe(PARTICIPANT_ACCOUNT_MESSAGES.duplicateUsername);

    const member = await createStaffUser(db(), { role: 'User', teamId });
    expect((await register(form({ email: member.email }))).statusCode).toBe(409);
    expect((await register(form({ email: member.email, username: member.email }))).statusCode).toBe(
      409,
    );
    const [staffRow] = await db().select().from(users).where(eq(users.email, member.email));
    expect(staffRow!.accountType).toBe('staff');
  });
});

describe('participant sign-in (POST /api/Participants/login)', () => {
  it('signs in with username or email and answers the linked participant records on /api/Participants/me', async () => {
    const { account, client } = await registeredAndSignedIn();
    expect(client.jar.get(ACCESS_COOKIE)).toBeDefined();
    const me = await client.get('/api/Participants/me');
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual({ email: account.email, participantCount: 0, emailVerified: false });

    // A participant record with the same email (entered by staff in a trial) is linked.
    const owner = await createStaffUser(db(), { role: 'Admin', teamId });
    const [trial] = await db()
      .insert(trials)
      .values({
        teamId,
        trialNumber: 'T-1',
        trialName: 'Linking',
        trialCode: `T${fresh()}`.slice(0, 20),
        ownerUserId: owner.id,
      })
      .returning();
    await db()
      .insert(participants)
      .values({
        teamId,
        trialId: trial!.id,
        participantCode: `${trial!.trialCode}-001`,
        participantCodeSuffix: '001',
        email: account.email as string,
      });
    // Not before the account proved it reads mail at that address (anyone can type an email).
    expect((await client.get('/api/Participants/me')).json()).toEqual({
      email: account.email,
      participantCount: 0,
      emailVerified: false,
    });
    const [mail] = await db()
      .select()
      .from(mailOutbox)
      .where(
        and(
          eq(mailOutbox.toAddress, account.email as string),
          eq(mailOutbox.template, 'participant-email-verification'),
        ),
      );
    const token = new URL(/http\S+verifyEmail=\S+/.exec(mail!.textBody)![0]).searchParams.get(
      'verifyEmail',
    )!;
    const wrong = await clientAt(ctx.app).post('/api/Participants/verifyEmail', {
      token: `${token}x`,
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().message).toBe(PARTICIPANT_ACCOUNT_MESSAGES.verificationInvalid);
    const verified = await clientAt(ctx.app).post('/api/Participants/verifyEmail', { token });
    expect(verified.statusCode, verified.body).toBe(200);
    expect(
      (await clientAt(ctx.app).post('/api/Participants/verifyEmail', { token })).statusCode,
    ).toBe(400);
    expect((await client.get('/api/Participants/me')).json()).toEqual({
      email: account.email,
      participantCount: 1,
      emailVerified: true,
    });

    const byEmail = await participantLogin(clientAt(ctx.app), account.email as string, PASSWORD);
    expect(byEmail.statusCode).toBe(200);

    expect((await client.post('/api/auth/logout')).statusCode).toBe(204);
    expect((await client.get('/api/Participants/me')).statusCode).toBe(401);
    const audit = await db()
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'participant_account.login.success'));
    expect(audit.length).toBeGreaterThanOrEqual(2);
  });

  it('requires the human check', async () => {
    const account = form();
    await register(account);
    for (const token of ['', 'not-a-token', 'fallback-token']) {
      const response = await participantLogin(
        clientAt(ctx.app),
        account.username as string,
        PASSWORD,
        token,
      );
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toBe(HUMAN_CHECK_MESSAGE);
    }
  });

  it('answers alike for a wrong password, an unknown user and a staff account; staff login refuses participants', async () => {
    const account = form();
    await register(account);
    const staffMember = await createStaffUser(db(), { role: 'User', teamId });
    const wrong = await participantLogin(
      clientAt(ctx.app),
      account.username as string,
      'Wrong#Pass1',
    );
    const unknown = await participantLogin(clientAt(ctx.app), `ghost${fresh()}`, 'Wrong#Pass1');
    const staffHere = await participantLogin(
      clientAt(ctx.app),
      staffMember.username,
      staffMember.password,
    );
    for (const response of [wrong, unknown, staffHere]) {
      expect(response.statusCode).toBe(401);
      expect(comparable(response.json())).toEqual(comparable(wrong.json()));
    }
    expect(wrong.json().message).toBe(LOGIN_MESSAGES.invalidCredentials);

    const staffLogin = await clientAt(ctx.app).login(account.username as string, PASSWORD);
    expect(staffLogin.statusCode).toBe(401);
    expect(staffLogin.json().message).toBe(LOGIN_MESSAGES.invalidCredentials);
    const staffLoginByEmail = await clientAt(ctx.app).login(account.email as string, PASSWORD);
    expect(staffLoginByEmail.statusCode).toBe(401);
  });

  it('locks after 5 failures like staff sign-in', async () => {
    const account = form();
    await register(account);
    const answers = [];
    for (let attempt = 0; attempt < 5; attempt += 1) {
      answers.push(
        (
          await participantLogin(clientAt(ctx.app), account.username as string, 'Wrong#Pass1')
        ).json().message,
      );
    }
    expect(answers.at(-1)).toBe(LOGIN_MESSAGES.locked);
    const locked = await participantLogin(clientAt(ctx.app), account.username as string, PASSWORD);
    expect(locked.statusCode).toBe(401);
    expect(locked.json().message).toBe(LOGIN_MESSAGES.locked);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('a participant session never reaches staff APIs', () => {
  it('gets 403 from the staff calls (with valid bodies) and is refused by requireStaff', async () => {
    const { client } = await registeredAndSignedIn();
    const calls: [string, string, Record<string, unknown>?][] = [
      ['GET', '/api/auth/user'],
      ['GET', '/api/auth/login/'],
      ['GET', '/api/team'],
      [
        'POST',
        '/api/auth/changePwdReq',
        {
          currentPassword: PASSWORD,
          newPassword: 'Brand#New42',
          newConfirmPassword: 'Brand#New42',
        },
      ],
      [
        'POST',
        '/api/userSignUpPermission/approveSignUp',
        { email: 'x@example.org', role: 'Admin', teamId },
      ],
    ];
    for (const [method, url, payload] of calls) {
      const response = await client.request(method as 'GET' | 'POST', url, payload);
      expect(response.statusCode, `${method} ${url}`).toBe(403);
    }
    // Still signed in, nothing changed.
    expect((await client.get('/api/Participants/me')).statusCode).toBe(200);
  });

  it('gets 403 from every API route that is not public (enumerated from the OpenAPI document)', async () => {
    const { client } = await registeredAndSignedIn();
    const document = ctx.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const routes = (method: string, publicPaths: Set<string>) =>
      Object.entries(document.paths)
        .filter(
          ([path, methods]) =>
            path.startsWith('/api/') &&
            method in methods &&
            !publicPaths.has(path.replace(/\/$/, '')),
        )
        .map(([path]) => path.replace(/\{[^}]+\}/g, '1'));
    const publicPosts = new Set([
      '/api/auth/login',
      '/api/auth/refreshToken',
      '/api/auth/logout',
      '/api/auth/forgotPassword',
      '/api/auth/resetPasswordValidation',
      '/api/auth/resetPassword',
      '/api/userSignUpPermission/signupRequestValidation',
      '/api/users/signup',
      '/api/Participants/signup',
      '/api/Participants/login',
      '/api/contactUs',
      '/api/recaptchaVer3Verify',
      // Consent pages and provider callbacks: bound to a consent token or OAuth state.
      '/api/consentLinkAuthorize',
      '/api/fitbit-callback',
      '/api/omron-callback',
      '/api/dexcom-callback',
      '/api/Participants/verifyEmail',
      // The participant portal (its own tests).
      '/api/Participants/me/deviceAuthorization',
      '/api/Participants/me/deviceRevoke',
      '/api/Participants/me/verificationEmail',
    ]);
    // With an empty body a route may reject the body first (400 validation); it never succeeds.
    for (const path of routes('post', publicPosts)) {
      const response = await client.post(path, {});
      expect(
        response.statusCode === 403 ||
          (response.statusCode === 400 && response.json().reason === ERROR_REASONS.validation),
        path,
      ).toBe(true);
    }
    const publicGets = new Set([
      '/api/appVersion',
      '/api/health',
      '/api/csrf-token',
      '/api/humanCheck/config',
      '/api/humanCheck/challenge',
      '/api/Participants/me',
      '/api/Participants/me/enrolments',
      '/api/fitbitClientId',
      '/api/omronClientId',
      '/api/dexcomClientId',
      // The staff session probe (decision 0195): always 200, and a participant is no staff.
      '/api/auth/session',
    ]);
    expect((await client.get('/api/auth/session')).json()).toEqual({
      signedIn: false,
      user: null,
    });
    const paths = routes('get', publicGets);
    expect(paths).toEqual(expect.arrayContaining(['/api/auth/user', '/api/team']));
    for (const path of paths) {
      expect((await client.get(path)).statusCode, path).toBe(403);
    }
  });

  it('a staff session gets 403 from /api/Participants/me; signed out gets 401', async () => {
    const member = await createStaffUser(db(), { role: 'User', teamId });
    const staffClient = await signedInClient(ctx.app, db(), member);
    expect((await staffClient.get('/api/Participants/me')).statusCode).toBe(403);
    expect((await clientAt(ctx.app).get('/api/Participants/me')).statusCode).toBe(401);
  });
});
