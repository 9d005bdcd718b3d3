import { and, desc, eq } from 'drizzle-orm';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditLog, mailOutbox, sessions, sfaSecrets } from '../../db/schema';
import { createManualClock } from '../../lib/clock';
import { createTestApp, type TestApp } from '../../test/test-app';
import {
  TestClient,
  createStaffUser,
  createTeam,
  sessionIdOf,
  type TestUser,
} from '../../test/fixtures';
import { ACCESS_COOKIE, REFRESH_COOKIE, REMEMBER_DEVICE_COOKIE } from '../auth/session-tokens';

const START = new Date('2026-11-21T10:00:00Z');
const clock = createManualClock(START);
let ctx: TestApp;
let teamId: number;

beforeAll(async () => {
  ctx = await createTestApp({ clock });
  ctx.app.get('/api/probe/authorized', { preHandler: ctx.app.requireStaff() }, async () => ({
    ok: true,
  }));
  await ctx.app.ready();
  teamId = (await createTeam(ctx.database.db)).id;
});
afterAll(() => ctx.close());
beforeEach(() => clock.set(START));

const db = () => ctx.database.db;
const codeAt = (key: string, at: Date) =>
  OTPAuth.TOTP.generate({
    secret: OTPAuth.Secret.fromBase32(key),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    timestamp: at.getTime(),
  });
const status = async (client: TestClient) => {
  const response = await client.get('/api/auth/login/');
  return response.statusCode === 200
    ? response.json().user.authStatus
    : (response.json().user?.authStatus ?? response.statusCode);
};
async function signIn(user: TestUser) {
  const client = new TestClient(ctx.app);
  expect((await client.login(user.username, user.password)).statusCode).toBe(200);
  return client;
}
/** A user who has set up and verified an authenticator; returns its key. */
async function userWithAuthenticator() {
  const user = await createStaffUser(db(), { role: 'User', teamId });
  const client = await signIn(user);
  const { key } = (await client.get('/api/auth/secondFactorSetup')).json();
  expect(
    (await client.post('/api/auth/verifyTOTP', { sfaToken: codeAt(key, clock.now()) })).statusCode,
  ).toBe(200);
  clock.advance(120_000); // well past the verifying code's (spent) step
  return { user, key };
}
const latestCodeMailed = async (email: string) => {
  const [mail] = await db()
    .select()
    .from(mailOutbox)
    .where(eq(mailOutbox.toAddress, email))
    .orderBy(desc(mailOutbox.id))
    .limit(1);
  return /\b(\d{6})\b/.exec(mail!.textBody)![1]!;
};

describe('authenticator set-up and validation', () => {
  it('set-up shows a QR image and key, stores the secret encrypted, verify logs out, then validate authorizes', async () => {
    const user = await createStaffUser(db(), { role: 'Admin', teamId });
    const client = await signIn(user);
    expect(await status(client)).toBe('SFAIsNotSet');

    const setup = await client.get('/api/auth/secondFactorSetup');
    expect(setup.statusCode).toBe(200);
    const { qrImage, key } = setup.json();
    expect(qrImage).toMatch(/^data:image\/png;base64,/);
    expect(key).toMatch(/^[A-Z2-7]{32}$/);
    expect(await status(client)).toBe('SFAVerifyCodeNeeded');
    const [row] = await db().select().from(sfaSecrets).where(eq(sfaSecrets.userId, user.id));
    expect(row!.secretEncrypted).not.toContain(key);
    expect(row!.verifiedAt).toBeNull();

    const verified = await client.post('/api/auth/verifyTOTP', {
      sfaToken: codeAt(key, clock.now()),
    });
    expect(verified.statusCode).toBe(200);
    expect(client.jar.get(ACCESS_COOKIE)).toBeUndefined();
    expect((await client.get('/api/auth/user')).statusCode).toBe(401);

    clock.advance(30_000);
    const again = await signIn(user);
    expect(await status(again)).toBe('SFAValidateCodeNeeded');
    expect((await again.get('/api/probe/authorized')).statusCode).toBe(403);
    const validated = await again.post('/api/auth/validateTOTP', {
      sfaToken: codeAt(key, clock.now()),
      skipSFA: false,
    });
    expect(validated.statusCode).toBe(200);
    expect(await status(again)).toBe('Authorized');
    expect((await again.get('/api/probe/authorized')).statusCode).toBe(200);
    expect((await again.get('/api/auth//isSfaAlreadyValidated')).json()).toEqual({ success: true });
    expect((await again.get('/api/auth/isSfaAlreadyValidated')).json()).toEqual({ success: true });
  });

  it('accepts ±30 s of drift, rejects beyond it, and never accepts a used code again', async () => {
    const { user, key } = await userWithAuthenticator();
    const now = clock.now();
    for (const [offset, accepted] of [
      [-90_000, false],
      [90_000, false],
      [-30_000, true],
    ] as const) {
      const client = await signIn(user);
      const response = await client.post('/api/auth/validateTOTP', {
        sfaToken: codeAt(key, new Date(now.getTime() + offset)),
      });
      expect([offset, response.statusCode]).toEqual([offset, accepted ? 200 : 400]);
    }
    const code = codeAt(key, new Date(now.getTime() + 30_000));
    const first = await signIn(user);
    expect((await first.post('/api/auth/validateTOTP', { sfaToken: code })).statusCode).toBe(200);
    const replay = await signIn(user);
    expect((await replay.post('/api/auth/validateTOTP', { sfaToken: code })).statusCode).toBe(400);
  });

  it('answers the spec validation messages', async () => {
    const { user } = await userWithAuthenticator();
    const client = await signIn(user);
    for (const [sfaToken, message] of [
      ['', 'SFA Code is required'],
      ['12a456', 'Code must be only digits'],
      ['12345', 'Code must be exactly 6 digits'],
    ]) {
      const response = await client.post('/api/auth/validateTOTP', { sfaToken });
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toBe(message);
    }
    expect((await client.post('/api/auth/validateTOTP', {})).json().message).toBe(
      'SFA Code is required',
    );
  });

  it('wrong codes lock the account like wrong passwords', async () => {
    const { user, key } = await userWithAuthenticator();
    const client = await signIn(user);
    const answers: string[] = [];
    for (let attempt = 0; attempt < 5; attempt += 1) {
      answers.push(
        (await client.post('/api/auth/validateTOTP', { sfaToken: '000000' })).json().reason,
      );
    }
    expect(answers.slice(0, 4)).toEqual(Array(4).fill('SFA_CODE_INVALID'));
    expect(answers[4]).toBe('ACCOUNT_LOCKED');
    expect((await client.get('/api/auth/user')).statusCode).toBe(401);
    const locked = await new TestClient(ctx.app).login(user.username, user.password);
    expect(locked.json().message).toBe('Account locked due to too many failed attempts');
    clock.advance(15 * 60_000);
    const later = await signIn(user);
    expect(
      (await later.post('/api/auth/validateTOTP', { sfaToken: codeAt(key, clock.now()) }))
        .statusCode,
    ).toBe(200);
  });
});

describe('emailed codes', () => {
  it('emails a code that validates the sign-in; "SFA already validated" afterwards', async () => {
    const user = await createStaffUser(db(), { role: 'User', teamId });
    const client = await signIn(user);
    const sent = await client.post('/api/auth/generateSendEmailTOTP');
    expect(sent.json()).toMatchObject({ success: true });
    expect(await status(client)).toBe('SFAValidateEmailCodeNeeded');
    const code = await latestCodeMailed(user.email);
    expect(
      (await client.post('/api/auth/validateTOTP', { sfaToken: code, skipSFA: false })).statusCode,
    ).toBe(200);
    expect(await status(client)).toBe('Authorized');
    expect((await client.post('/api/auth/generateSendEmailTOTP')).json()).toEqual({
      success: false,
      message: 'SFA already validated',
    });
  });

  it('a code expires after 10 minutes and cannot be used twice', async () => {
    const user = await createStaffUser(db(), { role: 'User', teamId });
    const late = await signIn(user);
    await late.post('/api/auth/generateSendEmailTOTP');
    const stale = await latestCodeMailed(user.email);
    clock.advance(10 * 60_000 + 1_000);
    expect((await late.post('/api/auth/validateTOTP', { sfaToken: stale })).statusCode).toBe(400);

    const client = await signIn(user);
    await client.post('/api/auth/generateSendEmailTOTP');
    const code = await latestCodeMailed(user.email);
    expect((await client.post('/api/auth/validateTOTP', { sfaToken: code })).statusCode).toBe(200);
    const other = await signIn(user);
    expect((await other.post('/api/auth/validateTOTP', { sfaToken: code })).statusCode).toBe(400);
  });

  it('a code dies after 5 wrong tries', async () => {
    const user = await createStaffUser(db(), { role: 'User', teamId });
    const client = await signIn(user);
    await client.post('/api/auth/generateSendEmailTOTP');
    const code = await latestCodeMailed(user.email);
    const wrong = code === '111111' ? '222222' : '111111';
    for (let attempt = 0; attempt < 4; attempt += 1)
      await client.post('/api/auth/validateTOTP', { sfaToken: wrong });
    // The budget of the account is not spent yet (4 failures), but the code is: a 5th wrong try kills it.
    clock.advance(16 * 60_000);
    const second = await signIn(user);
    await second.post('/api/auth/validateTOTP', { sfaToken: wrong });
    expect((await second.post('/api/auth/validateTOTP', { sfaToken: code })).statusCode).toBe(400);
  });
});

describe('remembered device', () => {
  it('skips the code for 48 hours, not after, and not after a token_version bump', async () => {
    const { user, key } = await userWithAuthenticator();
    const client = await signIn(user);
    const validated = await client.post('/api/auth/validateTOTP', {
      sfaToken: codeAt(key, clock.now()),
      skipSFA: true,
    });
    const cookie = validated.cookies.find((c) => c.name === REMEMBER_DEVICE_COOKIE)!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.maxAge).toBe(48 * 3600);
    const remembered = client.jar.get(REMEMBER_DEVICE_COOKIE)!;

    const withDevice = async () => {
      const browser = new TestClient(ctx.app);
      browser.jar.set(REMEMBER_DEVICE_COOKIE, remembered);
      expect((await browser.login(user.username, user.password)).statusCode).toBe(200);
      return status(browser);
    };
    clock.advance(47 * 3600_000);
    expect(await withDevice()).toBe('Authorized');
    clock.advance(2 * 3600_000);
    expect(await withDevice()).toBe('SFAValidateCodeNeeded');

    clock.set(START);
    clock.advance(60_000);
    expect(await withDevice()).toBe('Authorized');
    // A real password change through the API voids the remembered device.
    const changer = new TestClient(ctx.app);
    changer.jar.set(REMEMBER_DEVICE_COOKIE, remembered);
    await changer.login(user.username, user.password);
    expect(await status(changer)).toBe('Authorized');
    const changed = await changer.post('/api/auth/changePwdReq', {
      currentPassword: user.password,
      newPassword: 'Changed#Pass1',
      newConfirmPassword: 'Changed#Pass1',
    });
    expect(changed.statusCode).toBe(200);
    user.password = 'Changed#Pass1';
    expect(await withDevice()).toBe('SFAValidateCodeNeeded');
  });

  it('never skips the password', async () => {
    const { user, key } = await userWithAuthenticator();
    const client = await signIn(user);
    await client.post('/api/auth/validateTOTP', {
      sfaToken: codeAt(key, clock.now()),
      skipSFA: true,
    });
    const browser = new TestClient(ctx.app);
    browser.jar.set(REMEMBER_DEVICE_COOKIE, client.jar.get(REMEMBER_DEVICE_COOKIE)!);
    expect((await browser.login(user.username, 'Wrong#Pass1')).statusCode).toBe(401);
  });
});

describe('status enforcement and reset', () => {
  it('every protected call answers 403 with the status of each pending state', async () => {
    const { user } = await userWithAuthenticator();
    const fresh = await createStaffUser(db(), { role: 'User', teamId });
    const cases: [TestUser, (client: TestClient) => Promise<unknown>, string][] = [
      [fresh, async () => undefined, 'SFAIsNotSet'],
      [fresh, (client) => client.get('/api/auth/secondFactorSetup'), 'SFAVerifyCodeNeeded'],
      [user, async () => undefined, 'SFAValidateCodeNeeded'],
      [
        user,
        (client) => client.post('/api/auth/generateSendEmailTOTP'),
        'SFAValidateEmailCodeNeeded',
      ],
    ];
    for (const [account, step, expected] of cases) {
      const client = await signIn(account);
      await step(client);
      const probe = await client.get('/api/probe/authorized');
      expect([expected, probe.statusCode, probe.json().user?.authStatus]).toEqual([
        expected,
        403,
        expected,
      ]);
    }
  });

  it('reset returns to SFAIsNotSet, needs a validated session, and ends other sessions', async () => {
    const { user, key } = await userWithAuthenticator();
    const pending = await signIn(user);
    expect((await pending.post('/api/auth/resetSFA')).statusCode).toBe(403);
    await pending.post('/api/auth/validateTOTP', { sfaToken: codeAt(key, clock.now()) });
    clock.advance(30_000);
    const other = await signIn(user);
    await other.post('/api/auth/validateTOTP', { sfaToken: codeAt(key, clock.now()) });

    const reset = await pending.post('/api/auth/resetSFA');
    expect(reset.json()).toEqual({ success: true });
    expect(await status(pending)).toBe('SFAIsNotSet');
    expect(
      (await db().select().from(sfaSecrets).where(eq(sfaSecrets.userId, user.id))).length,
    ).toBe(0);
    expect((await other.get('/api/auth/user')).statusCode).toBe(401);
    expect((await pending.get('/api/auth/secondFactorSetup')).statusCode).toBe(200);
  });
});

/**
 * Issue 12.1: wrong second-factor codes have their own budget (5 in 15 minutes) that a
 * password sign-in does not clear; once locked no code is checked in any session until
 * the lock expires; a lock ends every pending session; concurrent guesses are bounded.
 */
describe('second-factor lockout', () => {
  type Kind = 'authenticator' | 'emailed';
  /** A signed-in browser waiting for a code of `kind`; `rightCode()` gives the valid one now. */
  async function pending(kind: Kind, prepared?: { user: TestUser; key?: string }) {
    const prep =
      prepared ??
      (kind === 'authenticator'
        ? await userWithAuthenticator()
        : { user: await createStaffUser(db(), { role: 'User', teamId }) });
    const client = await signIn(prep.user);
    if (kind === 'emailed')
      expect((await client.post('/api/auth/generateSendEmailTOTP')).statusCode).toBe(200);
    const rightCode = async () =>
      kind === 'authenticator' ? codeAt(prep.key!, clock.now()) : latestCodeMailed(prep.user.email);
    return { ...prep, client, rightCode };
  }
  const wrongCode = async (client: TestClient, right: string) =>
    client.post('/api/auth/validateTOTP', { sfaToken: right === '000000' ? '111111' : '000000' });
  const failures = async (userId: number) =>
    (
      await db()
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, 'sfa.code.failure'), eq(auditLog.entityId, String(userId))))
    ).length;

  for (const kind of ['authenticator', 'emailed'] as const) {
    it(`${kind}: a password sign-in between wrong codes does not reset the count`, async () => {
      const first = await pending(kind);
      for (let attempt = 0; attempt < 4; attempt += 1) {
        expect((await wrongCode(first.client, await first.rightCode())).json().reason).toBe(
          'SFA_CODE_INVALID',
        );
      }
      const again = await pending(kind, first);
      const fifth = await wrongCode(again.client, await again.rightCode());
      expect(fifth.statusCode).toBe(401);
      expect(fifth.json().reason).toBe('ACCOUNT_LOCKED');
    });

    it(`${kind}: once locked, no session checks a code (a right one neither) and every pending session ends`, async () => {
      const a = await pending(kind);
      const b = await pending(kind, a);
      for (let attempt = 0; attempt < 5; attempt += 1)
        await wrongCode(a.client, await a.rightCode());
      // B was opened before the lock: its right code is not even looked at.
      clock.advance(30_000);
      const late = await b.client.post('/api/auth/validateTOTP', { sfaToken: await b.rightCode() });
      expect(late.statusCode).toBe(401);
      expect(await status(b.client)).toBe(401);
      expect(await failures(a.user.id)).toBe(5);
      // A new sign-in during the lock gets the locked answer, with the right password.
      expect(
        (await new TestClient(ctx.app).login(a.user.username, a.user.password)).json().reason,
      ).toBe('ACCOUNT_LOCKED');
      // The lock expires; then a right code signs in.
      clock.advance(15 * 60_000);
      const after = await pending(kind, a);
      expect(
        (await after.client.post('/api/auth/validateTOTP', { sfaToken: await after.rightCode() }))
          .statusCode,
      ).toBe(200);
      expect(await status(after.client)).toBe('Authorized');
    });

    it(`${kind}: 50 concurrent wrong codes (10 sessions × 5) run at most 5 code checks`, async () => {
      const first = await pending(kind);
      // Sign-ins one after the other (concurrent ones would spend the password budget).
      const sessions = [first];
      for (let i = 0; i < 9; i += 1) sessions.push(await pending(kind, first));
      const burst: Promise<{ statusCode: number; json(): { reason?: string } }>[] = [];
      for (const session of sessions) {
        const right = await session.rightCode();
        // Fetch the CSRF token once, as the browser has it, before the burst.
        await session.client.request('GET', '/api/auth/isSfaAlreadyValidated', undefined, {
          csrf: true,
        });
        for (let i = 0; i < 5; i += 1) burst.push(wrongCode(session.client, right));
      }
      const answers = await Promise.all(burst);
      expect(answers.every((answer) => answer.statusCode < 500)).toBe(true);
      expect(await failures(first.user.id)).toBeLessThanOrEqual(5);
      expect(
        answers.filter((answer) => answer.json().reason === 'SFA_CODE_INVALID').length,
      ).toBeLessThanOrEqual(5);
    });
  }
});

describe('passing the second factor starts a new session (issue 12.7)', () => {
  it('issues a new session id and tokens; the pre-second-factor ones are refused', async () => {
    const { user, key } = await userWithAuthenticator();
    const client = await signIn(user);
    const before = {
      sessionId: sessionIdOf(client),
      access: client.jar.get(ACCESS_COOKIE)!,
      refresh: client.jar.get(REFRESH_COOKIE)!,
    };
    expect(
      (await client.post('/api/auth/validateTOTP', { sfaToken: codeAt(key, clock.now()) }))
        .statusCode,
    ).toBe(200);
    expect(sessionIdOf(client)).not.toBe(before.sessionId);
    expect(client.jar.get(REFRESH_COOKIE)).not.toBe(before.refresh);
    expect(await status(client)).toBe('Authorized');

    const old = new TestClient(ctx.app);
    old.jar.set(ACCESS_COOKIE, before.access);
    expect((await old.get('/api/auth/user')).statusCode).toBe(401);
    old.jar.delete(ACCESS_COOKIE);
    old.jar.set(REFRESH_COOKIE, before.refresh);
    expect((await old.post('/api/auth/refreshToken')).statusCode).toBe(401);
    const [row] = await db().select().from(sessions).where(eq(sessions.id, before.sessionId));
    expect(row!.revokedAt).not.toBeNull();
  });
});
