import type { KeyObject } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { eq } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SECURITY, errorBodySchema, sessionUserSchema } from '@trialpulse/shared';
import { auditLog, sessions, users } from '../../db/schema';
import { createManualClock } from '../../lib/clock';
import { argon2Hasher, type PasswordHasher } from '../../lib/passwords';
import { createTestApp, type TestApp } from '../../test/test-app';
import { CSRF_SECRET_COOKIE } from '../../plugins/csrf';
import { TestClient, createStaffUser, createTeam, type TestUser } from '../../test/fixtures';
import {
  ACCESS_COOKIE,
  REFRESH_COOKIE,
  SESSION_BINDING_COOKIE,
  accessTokenKey,
} from './session-tokens';

const clock = createManualClock(new Date('2026-11-21T09:00:00Z'));
let verifyCalls = 0;
const countingHasher: PasswordHasher = {
  hash: argon2Hasher.hash,
  verify: async (hash, password) => {
    verifyCalls += 1;
    return argon2Hasher.verify(hash, password);
  },
};

let ctx: TestApp;
let teamId: number;
let admin: TestUser;

beforeAll(async () => {
  ctx = await createTestApp({ clock, passwordHasher: countingHasher });
  // A route only fully signed-in staff may call, as every feature route will be.
  ctx.app.get('/api/probe/authorized', { preHandler: ctx.app.requireStaff() }, async (request) => ({
    role: request.auth?.role,
  }));
  ctx.app.get(
    '/api/probe/admins',
    { preHandler: ctx.app.requireStaff({ action: 'trialUsers.manage' }) },
    async () => ({ ok: true }),
  );
  await ctx.app.ready();
  teamId = (await createTeam(ctx.database.db)).id;
  admin = await createStaffUser(ctx.database.db, { role: 'Admin', teamId });
});
afterAll(() => ctx.close());
beforeEach(() => clock.set(new Date('2026-11-21T09:00:00Z')));

const db = () => ctx.database.db;
const markSecondFactorDone = (client: TestClient) =>
  db()
    .update(sessions)
    .set({ authStatus: 'Authorized' })
    .where(eq(sessions.id, sessionIdOf(client)));
const sessionIdOf = (client: TestClient) =>
  JSON.parse(Buffer.from(client.jar.get(ACCESS_COOKIE)!.split('.')[1]!, 'base64url').toString())
    .sid as string;
const auditActions = async (entityIdLike: string) =>
  (await db().select().from(auditLog))
    .filter((row) => (row.entityId ?? '').includes(entityIdLike))
    .map((row) => row.action);
const comparable = (body: Record<string, unknown>) => ({ ...body, requestId: undefined });

describe('sign-in', () => {
  it('signs in, sets httpOnly SameSite cookies and answers the user with role, team and status', async () => {
    const client = new TestClient(ctx.app);
    const response = await client.login(admin.username, admin.password);
    expect(response.statusCode).toBe(200);
    const user = sessionUserSchema.parse(response.json().user);
    expect(user).toMatchObject({
      id: admin.id,
      role: 'Admin',
      teamId,
      teamStatus: 'Active',
      authStatus: 'SFAIsNotSet',
    });
    for (const name of [ACCESS_COOKIE, REFRESH_COOKIE]) {
      const cookie = response.cookies.find((c) => c.name === name)!;
      expect(cookie.httpOnly).toBe(true);
      expect(cookie.sameSite).toBe('Strict');
    }
    expect(response.cookies.find((c) => c.name === REFRESH_COOKIE)!.path).toBe('/api/auth');
  });

  it('until the second factor is done, protected calls answer 403 carrying the status', async () => {
    const client = new TestClient(ctx.app);
    await client.login(admin.username, admin.password);
    const probe = await client.get('/api/probe/authorized');
    expect(probe.statusCode).toBe(403);
    expect(errorBodySchema.parse(probe.json()).user).toMatchObject({ authStatus: 'SFAIsNotSet' });
    const current = await client.get('/api/auth/login/');
    expect(current.statusCode).toBe(403);
    expect(current.json().user.authStatus).toBe('SFAIsNotSet');

    await markSecondFactorDone(client);
    expect((await client.get('/api/probe/authorized')).json()).toEqual({ role: 'Admin' });
    const me = await client.get('/api/auth/user');
    expect(me.statusCode).toBe(200);
    expect(me.json().user.authStatus).toBe('Authorized');
  });

  it('the session probe answers 200 whether signed out, half-way or signed in (decision 0195)', async () => {
    const client = new TestClient(ctx.app);
    const signedOut = await client.get('/api/auth/session');
    expect(signedOut.statusCode).toBe(200);
    expect(signedOut.json()).toEqual({ signedIn: false, user: null });

    await client.login(admin.username, admin.password);
    const halfWay = await client.get('/api/auth/session');
    expect(halfWay.statusCode).toBe(200);
    expect(halfWay.json()).toMatchObject({
      signedIn: true,
      user: { id: admin.id, authStatus: 'SFAIsNotSet' },
    });

    await markSecondFactorDone(client);
    const signedIn = await client.get('/api/auth/session');
    expect(signedIn.json()).toMatchObject({
      signedIn: true,
      user: { id: admin.id, role: 'Admin', authStatus: 'Authorized' },
    });
    expect(signedIn.headers['cache-control']).toBe('no-store');

    await client.post('/api/auth/logout');
    expect((await client.get('/api/auth/session')).json()).toEqual({ signedIn: false, user: null });
  });

  it('enforces roles on the server (Sys_Admin passes, others by list)', async () => {
    const viewer = await createStaffUser(db(), { role: 'Viewer', teamId });
    const sysAdmin = await createStaffUser(db(), { role: 'Sys_Admin', teamId });
    for (const [account, expected] of [
      [viewer, 403],
      [sysAdmin, 200],
      [admin, 200],
    ] as const) {
      const client = new TestClient(ctx.app);
      await client.login(account.username, account.password);
      await markSecondFactorDone(client);
      expect((await client.get('/api/probe/admins')).statusCode).toBe(expected);
    }
  });

  it('answers 400 with the spec messages for missing fields, before any password check', async () => {
    const client = new TestClient(ctx.app);
    verifyCalls = 0;
    const noUsername = await client.post('/api/auth/login', {
      password: 'x',
      recaptchaResponse: 'x',
    });
    expect(noUsername.statusCode).toBe(400);
    expect(noUsername.json().message).toBe('Username is required');
    const noPassword = await client.post('/api/auth/login', {
      username: admin.username,
      password: '',
      recaptchaResponse: 'x',
    });
    expect(noPassword.json().message).toBe('Password is required');
    expect(verifyCalls).toBe(0);
  });

  it('rejects a missing or invalid human-check token', async () => {
    const client = new TestClient(ctx.app);
    for (const recaptchaResponse of ['', 'not-a-real-token', 'fallback-token']) {
      const response = await client.post('/api/auth/login', {
        username: admin.username,
        password: admin.password,
        recaptchaResponse,
      });
      expect(response.statusCode).toBe(400);
      expect(client.jar.get(ACCESS_COOKIE)).toBeUndefined();
    }
  });

  it('refuses a staff account without a role: "Login error: User role is missing."', async () => {
    const roleless = await createStaffUser(db(), { role: null });
    const client = new TestClient(ctx.app);
    const response = await client.login(roleless.username, roleless.password);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({
      message: 'Login error: User role is missing.',
      displayToUser: true,
    });
    expect(client.jar.get(ACCESS_COOKIE)).toBeUndefined();
  });
});

describe('lockout', () => {
  it('locks after 5 failures in 15 minutes, answers alike for locked, wrong and unknown, and unlocks after 15 minutes', async () => {
    const victim = await createStaffUser(db(), { role: 'User', teamId });
    const unknown = `nobody-${Date.now()}@example.org`;
    const client = new TestClient(ctx.app);
    const realBodies: { status: number; body: Record<string, unknown> }[] = [];
    const unknownBodies: typeof realBodies = [];
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const real = await client.login(victim.username, 'Wrong#Pass1');
      const ghost = await client.login(unknown, 'Wrong#Pass1');
      realBodies.push({ status: real.statusCode, body: comparable(real.json()) });
      unknownBodies.push({ status: ghost.statusCode, body: comparable(ghost.json()) });
      clock.advance(60_000);
    }
    expect(realBodies).toEqual(unknownBodies);
    expect(
      realBodies
        .slice(0, 4)
        .every((r) => r.status === 401 && r.body.message === 'Invalid username or password.'),
    ).toBe(true);
    expect(realBodies[4]).toMatchObject({
      status: 401,
      body: { message: 'Account locked due to too many failed attempts' },
    });

    // Locked: the right password gets exactly the same answer, with Retry-After.
    const locked = await client.login(victim.username, victim.password);
    const lockedGhost = await client.login(unknown, victim.password);
    expect(locked.statusCode).toBe(401);
    expect(comparable(locked.json())).toEqual(comparable(lockedGhost.json()));
    expect(locked.json().message).toBe('Account locked due to too many failed attempts');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);

    clock.advance(15 * 60_000);
    const unlocked = await client.login(victim.username, victim.password);
    expect(unlocked.statusCode).toBe(200);
    const actions = await auditActions(String(victim.id));
    expect(actions).toEqual(
      expect.arrayContaining(['auth.login.failure', 'auth.lockout', 'auth.login.success']),
    );
  });

  it('failures spread over more than 15 minutes do not lock', async () => {
    const user = await createStaffUser(db(), { role: 'User', teamId });
    const client = new TestClient(ctx.app);
    for (let attempt = 1; attempt <= 4; attempt += 1)
      await client.login(user.username, 'Wrong#Pass1');
    clock.advance(16 * 60_000);
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      expect((await client.login(user.username, 'Wrong#Pass1')).json().message).toBe(
        'Invalid username or password.',
      );
    }
    expect((await client.login(user.username, user.password)).statusCode).toBe(200);
  });

  it('50 concurrent wrong-password requests run at most 5 password checks', async () => {
    const user = await createStaffUser(db(), { role: 'User', teamId });
    const clients = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const client = new TestClient(ctx.app);
        await client.get('/api/appVersion');
        return client;
      }),
    );
    const { solveHumanCheck } = await import('../human-check/test-support');
    const tokens = await Promise.all(clients.map(() => solveHumanCheck(ctx.app)));
    verifyCalls = 0;
    const responses = await Promise.all(
      clients.map((client, index) =>
        client.post('/api/auth/login', {
          username: user.username,
          password: 'Wrong#Pass1',
          recaptchaResponse: tokens[index],
        }),
      ),
    );
    expect(verifyCalls).toBeLessThanOrEqual(5);
    expect(
      responses.every((response) => response.statusCode === 401 || response.statusCode === 429),
    ).toBe(true);
  });
});

describe('sessions', () => {
  async function signedIn(account: TestUser = admin) {
    const client = new TestClient(ctx.app);
    expect((await client.login(account.username, account.password)).statusCode).toBe(200);
    await markSecondFactorDone(client);
    return client;
  }

  it('logout ends the session: the old cookies fail at the next request', async () => {
    const client = await signedIn();
    const stolen = {
      access: client.jar.get(ACCESS_COOKIE)!,
      refresh: client.jar.get(REFRESH_COOKIE)!,
      binding: client.jar.get(SESSION_BINDING_COOKIE)!,
    };
    const sessionId = sessionIdOf(client);
    expect((await client.post('/api/auth/logout')).statusCode).toBe(204);
    expect(client.jar.get(ACCESS_COOKIE)).toBeUndefined();
    client.jar.set(ACCESS_COOKIE, stolen.access);
    client.jar.set(REFRESH_COOKIE, stolen.refresh);
    client.jar.set(SESSION_BINDING_COOKIE, stolen.binding);
    expect((await client.get('/api/auth/user')).statusCode).toBe(401);
    expect((await client.post('/api/auth/refreshToken')).statusCode).toBe(401);
    expect(await auditActions(sessionId)).toContain('auth.logout');
  });

  it('rotates the refresh token; reusing a spent one revokes the whole family', async () => {
    const client = await signedIn();
    const first = client.jar.get(REFRESH_COOKIE)!;
    expect((await client.post('/api/auth/refreshToken')).statusCode).toBe(200);
    const second = client.jar.get(REFRESH_COOKIE)!;
    expect(second).not.toBe(first);
    expect((await client.get('/api/auth/user')).statusCode).toBe(200);

    // After the grace window for concurrent refreshes (tested below).
    clock.advance(SECURITY.refreshReuseGraceMs + 1_000);
    const attacker = new TestClient(ctx.app);
    attacker.jar.set(REFRESH_COOKIE, first);
    expect((await attacker.post('/api/auth/refreshToken')).statusCode).toBe(401);
    // The family is revoked: the legitimate holder's newer tokens stop working too.
    expect((await client.get('/api/auth/user')).statusCode).toBe(401);
    expect((await client.post('/api/auth/refreshToken')).statusCode).toBe(401);
  });

  it('a token_version bump ends every session at its next request', async () => {
    const user = await createStaffUser(db(), { role: 'User', teamId });
    const client = await signedIn(user);
    expect((await client.get('/api/probe/authorized')).statusCode).toBe(200);
    await db()
      .update(users)
      .set({ tokenVersion: sql`${users.tokenVersion} + 1` })
      .where(eq(users.id, user.id));
    expect((await client.get('/api/probe/authorized')).statusCode).toBe(401);
    expect((await client.post('/api/auth/refreshToken')).statusCode).toBe(401);
  });

  it('a deactivated account fails at its next request', async () => {
    const user = await createStaffUser(db(), { role: 'User', teamId });
    const client = await signedIn(user);
    await db().update(users).set({ isActive: false }).where(eq(users.id, user.id));
    expect((await client.get('/api/probe/authorized')).statusCode).toBe(401);
  });

  it('forged, expired and foreign tokens get 401', async () => {
    const client = await signedIn();
    const [, payload] = client.jar.get(ACCESS_COOKIE)!.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    const sign = (key: Uint8Array | KeyObject, overrides: Record<string, unknown> = {}) =>
      new SignJWT({ ...claims, ...overrides }).setProtectedHeader({ alg: 'HS256' }).sign(key);
    const realKey = accessTokenKey(ctx.config.APP_SECRET);
    const forged = [
      none,
      await sign(new TextEncoder().encode('x'.repeat(32))),
      await sign(realKey, { aud: 'someone-else' }),
      await sign(realKey, { exp: Math.floor(clock.now().getTime() / 1000) - 1 }),
      'not.a.jwt',
    ];
    for (const token of forged) {
      const probe = new TestClient(ctx.app);
      probe.jar.set(ACCESS_COOKIE, token);
      expect((await probe.get('/api/probe/authorized')).statusCode).toBe(401);
    }
    clock.advance(16 * 60_000); // the real token has expired too
    expect((await client.get('/api/probe/authorized')).statusCode).toBe(401);
  });

  it('two tabs refreshing at the same moment both stay signed in; a reuse after the grace window revokes', async () => {
    const tabA = await signedIn();
    const tabB = new TestClient(ctx.app);
    for (const name of [ACCESS_COOKIE, REFRESH_COOKIE, SESSION_BINDING_COOKIE, CSRF_SECRET_COOKIE])
      tabB.jar.set(name, tabA.jar.get(name)!);
    const spent = tabA.jar.get(REFRESH_COOKIE)!;
    const [a, b] = await Promise.all([
      tabA.post('/api/auth/refreshToken'),
      tabB.post('/api/auth/refreshToken'),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    // Both tabs hold the same new refresh token and stay signed in.
    expect(tabA.jar.get(REFRESH_COOKIE)).toBe(tabB.jar.get(REFRESH_COOKIE));
    expect(tabA.jar.get(REFRESH_COOKIE)).not.toBe(spent);
    expect((await tabA.get('/api/auth/user')).statusCode).toBe(200);
    expect((await tabB.get('/api/auth/user')).statusCode).toBe(200);

    clock.advance(SECURITY.refreshReuseGraceMs + 1_000);
    const thief = new TestClient(ctx.app);
    thief.jar.set(REFRESH_COOKIE, spent);
    expect((await thief.post('/api/auth/refreshToken')).statusCode).toBe(401);
    expect((await tabA.get('/api/auth/user')).statusCode).toBe(401);
    expect((await tabA.post('/api/auth/refreshToken')).statusCode).toBe(401);
  });

  it('a CSRF token belongs to its session: one from another session is refused, with no change', async () => {
    const victim = await signedIn();
    const attacker = await signedIn();
    await attacker.request('GET', '/api/auth/user', undefined, { csrf: true });
    // The attacker's anti-forgery secret and token planted in the victim's browser (cookie tossing).
    const headers = {
      cookie: [
        `${ACCESS_COOKIE}=${victim.jar.get(ACCESS_COOKIE)}`,
        `${SESSION_BINDING_COOKIE}=${victim.jar.get(SESSION_BINDING_COOKIE)}`,
        `${CSRF_SECRET_COOKIE}=${attacker.jar.get(CSRF_SECRET_COOKIE)}`,
      ].join('; '),
    };
    const attackerToken = (
      await ctx.app.inject({
        method: 'GET',
        url: '/api/csrf-token',
        headers: { cookie: attacker.jar.header() },
      })
    ).json().csrfToken;
    const forged = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { ...headers, 'x-csrf-token': attackerToken },
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.json().reason).toBe('CSRF_TOKEN_INVALID');
    expect((await victim.get('/api/auth/user')).statusCode).toBe(200);

    // A token fetched before signing in does not serve the signed-in session either.
    const browser = new TestClient(ctx.app);
    const anonymous = await ctx.app.inject({
      method: 'GET',
      url: '/api/csrf-token',
      headers: { cookie: browser.jar.header() },
    });
    browser.jar.update(anonymous);
    await browser.login(admin.username, admin.password);
    const stale = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { cookie: browser.jar.header(), 'x-csrf-token': anonymous.json().csrfToken },
    });
    expect(stale.statusCode).toBe(403);
  });

  it('the server enforces an idle timeout and an absolute lifetime', async () => {
    const idle = await signedIn();
    clock.advance(31 * 60_000);
    expect((await idle.post('/api/auth/refreshToken')).statusCode).toBe(401);

    const busy = await signedIn();
    for (let minutes = 0; minutes < 12 * 60; minutes += 12) {
      clock.advance(12 * 60_000);
      const refreshed = await busy.post('/api/auth/refreshToken');
      if (minutes + 12 >= 12 * 60) expect(refreshed.statusCode).toBe(401);
      else expect(refreshed.statusCode).toBe(200);
    }
  });
});

describe('audit log', () => {
  it('cannot be updated or deleted', async () => {
    const client = new TestClient(ctx.app);
    await client.login(admin.username, admin.password);
    await expect(db().execute(sql`update audit_log set action = 'tampered'`)).rejects.toThrow();
    await expect(db().execute(sql`delete from audit_log`)).rejects.toThrow();
    expect(
      (await db().select().from(auditLog)).some((row) => row.action === 'auth.login.success'),
    ).toBe(true);
  });

  it('the logs carry no password', () => {
    const text = ctx.logLines().join('\n');
    expect(text).not.toContain(admin.password);
    expect(text).not.toContain('Wrong#Pass1');
  });
});
