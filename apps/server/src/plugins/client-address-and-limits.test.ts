import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../db/client';
import { createTestDatabase } from '../test/test-database';
import { createTestApp, csrfSession, type TestApp } from '../test/test-app';
import { TestClient, createStaffUser, createTeam } from '../test/fixtures';
import { solveHumanCheck } from '../modules/human-check/test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const LOGIN_LIMIT = 30; // per client address per 15 minutes (auth.routes)

/**
 * One database for the file (a PGlite start is ~2-3 s of CPU; there were four): the limits
 * live in it, so each case uses client addresses no other case uses.
 */
let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.close());

/** An app in production mode (where the old code trusted every X-Forwarded-For). */
async function productionApp(env: Record<string, string> = {}) {
  const ctx = await createTestApp({
    database,
    env: {
      TRIALPULSE_MODE: 'production',
      PUBLIC_URL: 'https://trialpulse.example.org',
      SMTP_URL: 'smtp://127.0.0.1:9',
      ...env,
    },
  });
  ctx.app.get('/api/probe/ip', async (request) => ({ ip: request.ip }));
  await ctx.app.ready();
  return ctx;
}

const loginAttempt = async (ctx: TestApp, remoteAddress: string, forwardedFor?: string) => {
  const csrf = await csrfSession(ctx.app);
  return ctx.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    remoteAddress,
    headers: {
      cookie: csrf.cookie,
      'x-csrf-token': csrf.token,
      ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
    },
    // No human check: answered 400, but every attempt counts against the address's limit.
    payload: { username: `nobody-${randomBytes(4).toString('hex')}@example.org`, password: 'x' },
  });
};
const ipOf = async (ctx: TestApp, remoteAddress: string, forwardedFor?: string) =>
  (
    await ctx.app.inject({
      method: 'GET',
      url: '/api/probe/ip',
      remoteAddress,
      headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    })
  ).json().ip;

describe(`client address and per-IP limits (${MODE})`, () => {
  describe('TRUST_PROXY off (the default), in production mode', () => {
    let ctx: TestApp;
    beforeAll(async () => (ctx = await productionApp()));
    afterAll(() => ctx.close());

    it('ignores X-Forwarded-For: the TCP peer is the client', async () => {
      expect(await ipOf(ctx, '198.51.100.20', '203.0.113.99')).toBe('198.51.100.20');
    });

    it('a spoofed X-Forwarded-For on every attempt does not escape the login limit', async () => {
      const answers: number[] = [];
      for (let attempt = 0; attempt <= LOGIN_LIMIT; attempt += 1) {
        answers.push(
          (await loginAttempt(ctx, '198.51.100.21', `203.0.113.${attempt + 1}`)).statusCode,
        );
      }
      expect(answers.slice(0, LOGIN_LIMIT).every((status) => status === 400)).toBe(true);
      expect(answers[LOGIN_LIMIT]).toBe(429);
      // Another address still gets in.
      expect((await loginAttempt(ctx, '198.51.100.22')).statusCode).toBe(400);
    });

    it('per-account: wrong passwords from many addresses still lock the account', async () => {
      const team = await createTeam(ctx.database.db);
      const user = await createStaffUser(ctx.database.db, { role: 'User', teamId: team.id });
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const client = new TestClient(ctx.app);
        expect((await client.login(user.username, 'Wrong#Pass1')).statusCode).toBe(401);
      }
      const fresh = await new TestClient(ctx.app).login(user.username, user.password);
      expect(fresh.statusCode).toBe(401);
      expect(fresh.json().reason).toBe('ACCOUNT_LOCKED');
    });
  });

  describe('TRUST_PROXY as a hop count', () => {
    let ctx: TestApp;
    beforeAll(async () => (ctx = await productionApp({ TRUST_PROXY: '1' })));
    afterAll(() => ctx.close());

    it('takes the address our one proxy saw; entries a client adds in front do not count', async () => {
      expect(await ipOf(ctx, '10.0.0.1', '203.0.113.7')).toBe('203.0.113.7');
      expect(await ipOf(ctx, '10.0.0.1', '1.2.3.4, 203.0.113.7')).toBe('203.0.113.7');
      const answers: number[] = [];
      for (let attempt = 0; attempt <= LOGIN_LIMIT; attempt += 1) {
        answers.push(
          (await loginAttempt(ctx, '10.0.0.1', `198.18.0.${attempt + 1}, 203.0.113.7`)).statusCode,
        );
      }
      expect(answers[LOGIN_LIMIT - 1]).toBe(400);
      expect(answers[LOGIN_LIMIT]).toBe(429);
      // Another real client behind the same proxy has its own limit.
      expect((await loginAttempt(ctx, '10.0.0.1', '203.0.113.8')).statusCode).toBe(400);
    });
  });

  describe('TRUST_PROXY as a list of proxy addresses', () => {
    let ctx: TestApp;
    beforeAll(async () => (ctx = await productionApp({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16' })));
    afterAll(() => ctx.close());

    it("believes only the listed proxies' X-Forwarded-For", async () => {
      expect(await ipOf(ctx, '10.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
      expect(await ipOf(ctx, '192.168.4.4', '203.0.113.10')).toBe('203.0.113.10');
      expect(await ipOf(ctx, '198.51.100.30', '203.0.113.9')).toBe('198.51.100.30');
    });
  });
});

/**
 * Two web processes on one database: each has its own app and its own connection pool
 * (PostgreSQL) to the same database (on PGlite, the one embedded database). The limits and
 * the spent human-check challenges are in that database, so they hold across processes.
 */
describe(`two web processes share one database (${MODE})`, () => {
  let first: Database;
  let second: Database;
  let processA: TestApp;
  let processB: TestApp;
  beforeAll(async () => {
    first = database;
    second = first.connectionString
      ? await openDatabase({
          kind: 'postgres',
          connectionString: first.connectionString,
          maxConnections: 3,
        })
      : first;
    const env = {
      APP_SECRET: randomBytes(32).toString('hex'),
      TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    };
    processA = await createTestApp({ database: first, env });
    processB = await createTestApp({ database: second, env });
  });
  afterAll(async () => {
    await processA.close();
    await processB.close();
    if (second !== first) await second.close();
  });

  it('share the login rate limit: the 31st attempt is refused whichever process gets it', async () => {
    const address = '198.51.100.40';
    for (let attempt = 0; attempt < LOGIN_LIMIT; attempt += 1) {
      const target = attempt % 2 === 0 ? processA : processB;
      expect((await loginAttempt(target, address)).statusCode).toBe(400);
    }
    expect((await loginAttempt(processA, address)).statusCode).toBe(429);
    expect((await loginAttempt(processB, address)).statusCode).toBe(429);
  });

  it('share spent human-check challenges: a payload accepted by one is refused by the other', async () => {
    const payload = await solveHumanCheck(processA.app);
    const verify = (ctx: TestApp) =>
      new TestClient(ctx.app).post('/api/recaptchaVer3Verify', { recaptchaResponse: payload });
    expect((await verify(processA)).statusCode).toBe(200);
    const replay = await verify(processB);
    expect(replay.statusCode).toBe(400);
    expect(replay.json().reason).toBe('HUMAN_CHECK_FAILED');
  });
});
