import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CHANGE_PASSWORD_MESSAGES,
  HUMAN_CHECK_MESSAGE,
  PASSWORD_MESSAGES,
  RESET_MESSAGES,
} from '@trialpulse/shared';
import { auditLog, credentials, mailOutbox, oneTimeTokens, users } from '../../db/schema';
import { createManualClock } from '../../lib/clock';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestUser } from '../../test/fixtures';
import { solveHumanCheck } from '../human-check/test-support';
import { ACCESS_COOKIE } from '../auth/session-tokens';
import { PASSWORD_CHANGED_MESSAGE } from './passwords.routes';
import { RESET_MAILS_PER_HOUR } from './passwords.service';
import { clientAt, nextIp, signedInClient } from './test-support/clients';
import { linkToken, startMailInbox, type MailInbox } from './test-support/mail-inbox';

const start = new Date();
const clock = createManualClock(start);
let inbox: MailInbox;
let ctx: TestApp;
let teamId: number;

beforeAll(async () => {
  inbox = await startMailInbox();
  ctx = await createTestApp({
    clock,
    env: { SMTP_URL: inbox.url, PUBLIC_URL: 'https://trialpulse.test' },
  });
  await ctx.app.ready();
  teamId = (await createTeam(ctx.database.db)).id;
});
afterAll(async () => {
  await ctx?.close();
  await inbox?.close();
});
beforeEach(() => clock.set(start));

const db = () => ctx.database.db;
const staff = (role: 'User' | 'Admin' | 'Viewer' = 'User') =>
  createStaffUser(db(), { role, teamId });
const passwordHashOf = async (userId: number) =>
  (await db().select().from(credentials).where(eq(credentials.userId, userId)))[0]!.passwordHash;
const tokenVersionOf = async (userId: number) =>
  (await db().select().from(users).where(eq(users.id, userId)))[0]!.tokenVersion;
const auditRows = (action: string, userId: number) =>
  db()
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.entityId, String(userId))));
const resetTokensOf = (userId: number) =>
  db()
    .select()
    .from(oneTimeTokens)
    .where(and(eq(oneTimeTokens.userId, userId), eq(oneTimeTokens.purpose, 'password_reset')));
const comparable = (body: Record<string, unknown>) => ({ ...body, requestId: undefined });
const NEW_PASSWORD = 'Brand#New42';

async function forgot(email: string, ip = nextIp()) {
  const client = clientAt(ctx.app, ip);
  return client.post('/api/auth/forgotPassword', {
    email,
    recaptchaResponse: await solveHumanCheck(ctx.app),
  });
}

describe('change password (POST /api/auth/changePwdReq)', () => {
  it('answers 400 with the spec message for each invalid form and changes nothing', async () => {
    const user = await staff();
    const client = await signedInClient(ctx.app, db(), user);
    const hashBefore = await passwordHashOf(user.id);
    const cases: [Record<string, unknown>, string][] = [
      [
        { currentPassword: '', newPassword: NEW_PASSWORD, newConfirmPassword: NEW_PASSWORD },
        PASSWORD_MESSAGES.currentRequired,
      ],
      [
        { newPassword: NEW_PASSWORD, newConfirmPassword: NEW_PASSWORD },
        PASSWORD_MESSAGES.currentRequired,
      ],
      [
        { currentPassword: user.password, newPassword: '', newConfirmPassword: '' },
        PASSWORD_MESSAGES.required,
      ],
      [
        { currentPassword: user.password, newPassword: 'Ab1#xyz', newConfirmPassword: 'Ab1#xyz' },
        PASSWORD_MESSAGES.tooShort,
      ],
      [
        {
          currentPassword: user.password,
          newPassword: 'Ab1#'.repeat(6),
          newConfirmPassword: 'Ab1#'.repeat(6),
        },
        PASSWORD_MESSAGES.tooLong,
      ],
      [
        {
          currentPassword: user.password,
          newPassword: 'alllower1#',
          newConfirmPassword: 'alllower1#',
        },
        PASSWORD_MESSAGES.complexity,
      ],
      [
        {
          currentPassword: user.password,
          newPassword: 'NoDigits#x',
          newConfirmPassword: 'NoDigits#x',
        },
        PASSWORD_MESSAGES.complexity,
      ],
      [
        {
          currentPassword: user.password,
          newPassword: 'NoSpecial12',
          newConfirmPassword: 'NoSpecial12',
        },
        PASSWORD_MESSAGES.complexity,
      ],
      [
        {
          currentPassword: user.password,
          newPassword: NEW_PASSWORD,
          newConfirmPassword: 'Other#New42',
        },
        PASSWORD_MESSAGES.changeMismatch,
      ],
    ];
    for (const [payload, message] of cases) {
      const response = await client.post('/api/auth/changePwdReq', payload);
      expect(response.statusCode, message).toBe(400);
      expect(response.json()).toMatchObject({ message, displayToUser: true });
    }
    expect(await passwordHashOf(user.id)).toBe(hashBefore);
    expect((await client.get('/api/auth/user')).statusCode).toBe(200);
  });

  it('refuses a wrong current password with a displayable message and changes nothing', async () => {
    const user = await staff();
    const client = await signedInClient(ctx.app, db(), user);
    const response = await client.post('/api/auth/changePwdReq', {
      currentPassword: 'Wrong#Pass1',
      newPassword: NEW_PASSWORD,
      newConfirmPassword: NEW_PASSWORD,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      message: CHANGE_PASSWORD_MESSAGES.wrongCurrent,
      displayToUser: true,
    });
    expect(await tokenVersionOf(user.id)).toBe(0);
    expect((await client.get('/api/auth/user')).statusCode).toBe(200);
    expect(await auditRows('auth.password.change_failed', user.id)).toHaveLength(1);
  });

  it('needs a signed-in staff member with the second factor done', async () => {
    const anonymous = clientAt(ctx.app);
    const payload = {
      currentPassword: 'Correct#Horse9',
      newPassword: NEW_PASSWORD,
      newConfirmPassword: NEW_PASSWORD,
    };
    expect((await anonymous.post('/api/auth/changePwdReq', payload)).statusCode).toBe(401);
    const user = await staff();
    const pending = clientAt(ctx.app);
    await pending.login(user.username, user.password);
    const response = await pending.post('/api/auth/changePwdReq', {
      ...payload,
      currentPassword: user.password,
    });
    expect(response.statusCode).toBe(403);
    expect(await tokenVersionOf(user.id)).toBe(0);
  });

  it('changes the password: every session ends, cookies are cleared, old password fails, new works', async () => {
    const user = await staff('Admin');
    const client = await signedInClient(ctx.app, db(), user);
    const otherDevice = await signedInClient(ctx.app, db(), user);
    const oldAccess = client.jar.get(ACCESS_COOKIE)!;

    const response = await client.post('/api/auth/changePwdReq', {
      currentPassword: user.password,
      newPassword: NEW_PASSWORD,
      newConfirmPassword: NEW_PASSWORD,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: PASSWORD_CHANGED_MESSAGE });
    expect(response.cookies.find((c) => c.name === ACCESS_COOKIE)?.value).toBe('');
    expect(client.jar.get(ACCESS_COOKIE)).toBeUndefined();

    // This session (replaying its old cookie) and the other device's session are over.
    client.jar.set(ACCESS_COOKIE, oldAccess);
    expect((await client.get('/api/auth/user')).statusCode).toBe(401);
    expect((await otherDevice.get('/api/auth/user')).statusCode).toBe(401);
    expect((await otherDevice.post('/api/auth/refreshToken')).statusCode).toBe(401);

    expect((await clientAt(ctx.app).login(user.username, user.password)).statusCode).toBe(401);
    const again = await clientAt(ctx.app).login(user.username, NEW_PASSWORD);
    expect(again.statusCode).toBe(200);
    expect(again.json().user.role).toBe('Admin');

    const [row] = await auditRows('auth.password.change', user.id);
    expect(row).toMatchObject({
      actorUserId: user.id,
      teamId,
      before: { tokenVersion: 0 },
      after: { tokenVersion: 1 },
    });
    expect(JSON.stringify(row)).not.toContain(NEW_PASSWORD);
  });
});

describe('forgot password (POST /api/auth/forgotPassword)', () => {
  it('answers 400 with the spec message for a missing or invalid email, and creates nothing', async () => {
    for (const [email, message] of [
      ['', 'Email is required'],
      [undefined, 'Email is required'],
      ['not-an-email', 'Email is invalid'],
    ] as const) {
      const response = await forgot(email as string);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ message, displayToUser: true });
    }
    expect(
      await db().select().from(oneTimeTokens).where(eq(oneTimeTokens.purpose, 'password_reset')),
    ).toHaveLength(0);
  });

  it('rejects a missing, invalid or fallback human-check token, before anything else', async () => {
    const user = await staff();
    for (const recaptchaResponse of [undefined, '', 'not-a-token', 'fallback-token']) {
      const response = await clientAt(ctx.app).post('/api/auth/forgotPassword', {
        email: user.email,
        recaptchaResponse,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toBe(HUMAN_CHECK_MESSAGE);
    }
    expect(await resetTokensOf(user.id)).toHaveLength(0);
  });

  it('answers the same for an existing and an unknown email, and mails only the existing one', async () => {
    const user = await staff();
    const unknown = `nobody-${Date.now()}@example.org`;
    const real = await forgot(user.email.toUpperCase());
    const ghost = await forgot(unknown);
    expect(real.statusCode).toBe(200);
    expect(ghost.statusCode).toBe(200);
    expect(real.json()).toEqual({ message: RESET_MESSAGES.requestConfirmation });
    expect(comparable(ghost.json())).toEqual(comparable(real.json()));

    const mail = await inbox.waitFor(user.email);
    expect(mail.decoded).toContain('https://trialpulse.test/ResetPasswordPage?token=');
    expect(inbox.mailsTo(unknown)).toHaveLength(0);
    expect(
      await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, unknown)),
    ).toHaveLength(0);

    // Stored hashed: the token in the mail is nowhere in the database.
    const token = linkToken(mail, 'ResetPasswordPage');
    expect(token.length).toBeGreaterThanOrEqual(22);
    const [stored] = await resetTokensOf(user.id);
    expect(stored!.tokenHash).not.toContain(token);
    expect(stored!.expiresAt.getTime() - clock.now().getTime()).toBe(60 * 60 * 1000);
    expect(await auditRows('auth.password.reset_requested', user.id)).toHaveLength(1);
  });

  it('sends nothing to deactivated or participant accounts, with the same answer', async () => {
    const inactive = await createStaffUser(db(), { role: 'User', teamId, isActive: false });
    const participant = await createStaffUser(db(), { accountType: 'participant', role: null });
    for (const account of [inactive, participant]) {
      const response = await forgot(account.email);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ message: RESET_MESSAGES.requestConfirmation });
      expect(await resetTokensOf(account.id)).toHaveLength(0);
    }
  });

  it(`sends at most ${RESET_MAILS_PER_HOUR} reset mails per account per hour, silently`, async () => {
    const user = await staff();
    const bodies = [];
    for (let attempt = 0; attempt < RESET_MAILS_PER_HOUR + 2; attempt += 1) {
      const response = await forgot(user.email);
      expect(response.statusCode).toBe(200);
      bodies.push(response.json());
    }
    expect(new Set(bodies.map((body) => JSON.stringify(body))).size).toBe(1);
    const queued = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, user.email));
    expect(queued).toHaveLength(RESET_MAILS_PER_HOUR);

    clock.advance(61 * 60 * 1000);
    await forgot(user.email);
    expect(
      await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, user.email)),
    ).toHaveLength(RESET_MAILS_PER_HOUR + 1);
  });

  it('limits requests per IP: the 6th within 15 minutes gets 429 with Retry-After', async () => {
    const ip = nextIp();
    const statuses = [];
    let last;
    for (let attempt = 0; attempt < 6; attempt += 1) {
      last = await forgot(`someone-${attempt}@example.org`, ip);
      statuses.push(last.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    expect((await forgot('someone@example.org')).statusCode).toBe(200);
  });
});

describe('reset password by link', () => {
  async function resetLink(user: TestUser, count = 1) {
    expect((await forgot(user.email)).statusCode).toBe(200);
    return linkToken(await inbox.waitFor(user.email, count), 'ResetPasswordPage');
  }
  const reset = (token: string, password = NEW_PASSWORD) =>
    clientAt(ctx.app).post('/api/auth/resetPassword', {
      token,
      newPassword: password,
      newConfirmPassword: password,
    });
  const validate = (token: unknown) =>
    clientAt(ctx.app).post('/api/auth/resetPasswordValidation', { token });
  const invalidLink = { message: RESET_MESSAGES.invalidOrExpired, displayToUser: true };

  it('answers 400 with the spec message for each invalid form and changes nothing', async () => {
    const user = await staff();
    const token = await resetLink(user);
    const hashBefore = await passwordHashOf(user.id);
    expect((await validate('')).json()).toMatchObject({ message: RESET_MESSAGES.missingKey });
    expect((await validate(undefined)).json()).toMatchObject({
      message: RESET_MESSAGES.missingKey,
    });
    const cases: [Record<string, unknown>, string][] = [
      [
        { token: '', newPassword: NEW_PASSWORD, newConfirmPassword: NEW_PASSWORD },
        RESET_MESSAGES.missingKey,
      ],
      [{ newPassword: NEW_PASSWORD, newConfirmPassword: NEW_PASSWORD }, RESET_MESSAGES.missingKey],
      [{ token, newPassword: '', newConfirmPassword: '' }, PASSWORD_MESSAGES.required],
      [
        { token, newPassword: 'Ab1#xyz', newConfirmPassword: 'Ab1#xyz' },
        PASSWORD_MESSAGES.tooShort,
      ],
      [
        { token, newPassword: 'Ab1#'.repeat(6), newConfirmPassword: 'Ab1#'.repeat(6) },
        PASSWORD_MESSAGES.tooLong,
      ],
      [
        { token, newPassword: 'ALLUPPER1#', newConfirmPassword: 'ALLUPPER1#' },
        PASSWORD_MESSAGES.complexity,
      ],
      [
        { token, newPassword: NEW_PASSWORD, newConfirmPassword: 'Other#New42' },
        PASSWORD_MESSAGES.resetMismatch,
      ],
    ];
    for (const [payload, message] of cases) {
      const response = await clientAt(ctx.app).post('/api/auth/resetPassword', payload);
      expect(response.statusCode, message).toBe(400);
      expect(response.json()).toMatchObject({ message, displayToUser: true });
    }
    expect(await passwordHashOf(user.id)).toBe(hashBefore);
    expect((await validate(token)).statusCode).toBe(200);
  });

  it('forgot → mail → validate → reset: old password fails, new works, sessions end, lock lifted', async () => {
    const user = await staff();
    const session = await signedInClient(ctx.app, db(), user);
    // Lock the account first: a reset must let its owner back in at once.
    for (let attempt = 0; attempt < 5; attempt += 1)
      await clientAt(ctx.app).login(user.username, 'Wrong#Pass1');
    expect((await clientAt(ctx.app).login(user.username, user.password)).json().message).toBe(
      'Account locked due to too many failed attempts',
    );

    const token = await resetLink(user);
    const validation = await validate(token);
    expect(validation.statusCode).toBe(200);
    expect(validation.json()).toEqual({ userId: user.id });

    const response = await reset(token);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: RESET_MESSAGES.success });

    expect((await session.get('/api/auth/user')).statusCode).toBe(401);
    expect((await clientAt(ctx.app).login(user.username, user.password)).statusCode).toBe(401);
    expect((await clientAt(ctx.app).login(user.username, NEW_PASSWORD)).statusCode).toBe(200);
    expect(await tokenVersionOf(user.id)).toBe(1);
    expect(await auditRows('auth.password.reset', user.id)).toHaveLength(1);

    // Used: the link works once.
    expect((await validate(token)).json()).toMatchObject(invalidLink);
    const replay = await reset(token, 'Another#Pw9');
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toMatchObject(invalidLink);
    expect((await clientAt(ctx.app).login(user.username, NEW_PASSWORD)).statusCode).toBe(200);

    // Logs never carry the link token, the address or the password.
    const logs = ctx.logLines().join('\n');
    for (const secret of [token, user.email, NEW_PASSWORD]) expect(logs).not.toContain(secret);
  });

  it('an expired link fails (after 1 hour) and changes nothing', async () => {
    const user = await staff();
    const token = await resetLink(user);
    clock.advance(60 * 60 * 1000 + 1000);
    expect((await validate(token)).statusCode).toBe(400);
    const response = await reset(token);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject(invalidLink);
    expect((await clientAt(ctx.app).login(user.username, user.password)).statusCode).toBe(200);
  });

  it('a newer request voids the earlier link; unknown tokens fail', async () => {
    const user = await staff();
    const first = await resetLink(user, 1);
    const second = await resetLink(user, 2);
    expect(first).not.toBe(second);
    expect((await reset(first)).json()).toMatchObject(invalidLink);
    expect((await reset('x'.repeat(43))).json()).toMatchObject(invalidLink);
    expect((await reset(second)).statusCode).toBe(200);
  });

  it('two concurrent resets with one link: exactly one succeeds', async () => {
    const user = await staff();
    const token = await resetLink(user);
    const results = await Promise.all([reset(token, 'First#Pass1'), reset(token, 'Second#Pass2')]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400]);
    expect(await auditRows('auth.password.reset', user.id)).toHaveLength(1);
  });
});
