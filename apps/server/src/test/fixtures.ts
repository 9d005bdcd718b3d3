import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { hash } from '@node-rs/argon2';
import type { Role } from '@trialpulse/shared';
import type { Db } from '../db/client';
import { eq } from 'drizzle-orm';
import { credentials, sessions, teamUserMappings, teams, users } from '../db/schema';
import { ACCESS_COOKIE } from '../modules/auth/session-tokens';
import { solveHumanCheck } from '../modules/human-check/test-support';

let counter = 0;
// Digits and dots only (an email has dots anyway): list filters in tests ("T-2", "-012", "_")
// must not match inside a fixture's email or name by chance (a base-36 time ending in "t"
// before counter 2 made `user-…t-2…@example.org` match "T-2" in paging.test.ts).
const unique = () => `${process.pid}.${Date.now()}.${++counter}`;

/** An active team with room to work in. */
export async function createTeam(db: Db, overrides: Partial<typeof teams.$inferInsert> = {}) {
  const [team] = await db
    .insert(teams)
    .values({
      teamName: `Team ${unique()}`,
      isActive: true,
      maxUsers: 50,
      maxTrials: 20,
      maxParticipants: 200,
      retentionDays: 365,
      ...overrides,
    })
    .returning();
  return team!;
}

/**
 * Fixture accounts are written straight to the table with argon2id at small parameters
 * (1 MiB, one pass): the hash carries its parameters, so sign-in verifies it through the
 * product's own argon2 code, at ~2 ms instead of ~25 ms for the product's parameters
 * (19 MiB, two passes). Test files create and sign in many hundreds of accounts: tens of seconds of
 * CPU a run. Passwords the product sets (sign-up, invitations, resets, the admin command) are
 * hashed by the product's hasher at its own parameters (passwords.test.ts pins them).
 */
function fixturePasswordHash(password: string): Promise<string> {
  return hash(password, { memoryCost: 1024, timeCost: 1, parallelism: 1 });
}

export type TestUser = { id: number; username: string; email: string; password: string };

/** A staff account (username = email) with a role in each given team. */
export async function createStaffUser(
  db: Db,
  options: {
    role?: Role | null;
    teamId?: number;
    password?: string;
    sfaEnabled?: boolean;
    isActive?: boolean;
    accountType?: 'staff' | 'participant';
  } = {},
): Promise<TestUser> {
  const email = `user.${unique()}@example.org`.toLowerCase();
  const password = options.password ?? 'Correct#Horse9';
  const [user] = await db
    .insert(users)
    .values({
      email,
      username: email,
      firstName: 'Test',
      lastName: 'User',
      sfaEnabled: options.sfaEnabled ?? false,
      isActive: options.isActive ?? true,
      accountType: options.accountType ?? 'staff',
    })
    .returning();
  await db
    .insert(credentials)
    .values({ userId: user!.id, passwordHash: await fixturePasswordHash(password) });
  if (options.teamId && options.role !== null) {
    await db.insert(teamUserMappings).values({
      userId: user!.id,
      teamId: options.teamId,
      role: options.role ?? 'User',
      defaultTeam: true,
    });
  }
  return { id: user!.id, username: email, email, password };
}

/** Cookies a browser would hold, updated from each response's Set-Cookie. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  update(response: LightMyRequestResponse) {
    for (const cookie of response.cookies) {
      // Only the server's "delete this cookie" (epoch expiry or max-age 0) removes one: tests
      // run on a manual clock, so comparing expiry with the real time would be wrong.
      const expired = cookie.expires instanceof Date && cookie.expires.getTime() <= 0;
      if (cookie.value === '' || expired || cookie.maxAge === 0) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
  }
  get(name: string) {
    return this.cookies.get(name);
  }
  set(name: string, value: string) {
    this.cookies.set(name, value);
  }
  delete(name: string) {
    this.cookies.delete(name);
  }
  header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** A browser-like client over `app.inject`: cookies kept, CSRF token fetched and sent. */
let clientCount = 0;

export class TestClient {
  readonly jar = new CookieJar();
  private csrfToken: string | undefined;
  /**
   * Each client is its own browser on its own loopback address, so per-IP rate limits
   * apply per client as they would per visitor (tests that check a limit use one client).
   */
  readonly remoteAddress: string;
  constructor(private readonly app: FastifyInstance) {
    clientCount += 1;
    this.remoteAddress = `127.0.${Math.floor(clientCount / 250) % 250}.${(clientCount % 250) + 1}`;
  }

  /**
   * One call as the web client makes it: cookies kept, the CSRF header on writes; after a
   * CSRF refusal (the token belonged to an earlier session) a fresh token and one retry.
   */
  async request(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    options: { csrf?: boolean } = {},
  ) {
    const needsCsrf = method !== 'GET' || options.csrf === true;
    let response = await this.send(method, url, payload, needsCsrf);
    if (
      needsCsrf &&
      response.statusCode === 403 &&
      response.json().reason === 'CSRF_TOKEN_INVALID'
    ) {
      this.csrfToken = undefined;
      response = await this.send(method, url, payload, needsCsrf);
    }
    return response;
  }

  private async send(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload: unknown,
    needsCsrf: boolean,
  ) {
    const headers: Record<string, string> = { cookie: this.jar.header() };
    if (needsCsrf) {
      if (!this.csrfToken) {
        const csrf = await this.app.inject({
          method: 'GET',
          url: '/api/csrf-token',
          headers: { cookie: this.jar.header() },
          remoteAddress: this.remoteAddress,
        });
        this.jar.update(csrf);
        this.csrfToken = csrf.json().csrfToken;
      }
      headers['x-csrf-token'] = this.csrfToken!;
      headers.cookie = this.jar.header();
    }
    const response = await this.app.inject({
      method,
      url,
      headers,
      remoteAddress: this.remoteAddress,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    this.jar.update(response);
    return response;
  }

  get(url: string) {
    return this.request('GET', url);
  }
  /** A GET that changes state (the spec's Fitbit revoke) carries the CSRF header like a write. */
  getWithCsrf(url: string) {
    return this.request('GET', url, undefined, { csrf: true });
  }
  post(url: string, payload: unknown = {}) {
    return this.request('POST', url, payload);
  }

  /** Signs in through the real login call, solving the human check as the browser does. */
  async login(username: string, password: string) {
    return this.post('/api/auth/login', {
      username,
      password,
      recaptchaResponse: await solveHumanCheck(this.app),
    });
  }
}

/** The session id in the client's access cookie. */
export function sessionIdOf(client: TestClient): string {
  const token = client.jar.get(ACCESS_COOKIE);
  if (!token) throw new Error('the client holds no access cookie');
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;
}

/** Marks the client's session as past the second factor (the SFA module's job in production). */
export async function markSecondFactorDone(db: Db, client: TestClient): Promise<void> {
  await db
    .update(sessions)
    .set({ authStatus: 'Authorized' })
    .where(eq(sessions.id, sessionIdOf(client)));
}

/**
 * A browser signed in through the real login call, with the second factor marked done
 * (the second-factor flow has its own tests), so feature calls see a fully signed-in user.
 * `client` lets the caller choose the browser (e.g. one on its own address).
 */
export async function signIn(
  app: FastifyInstance,
  db: Db,
  user: { username: string; password: string },
  client: TestClient = new TestClient(app),
): Promise<TestClient> {
  const response = await client.login(user.username, user.password);
  if (response.statusCode !== 200)
    throw new Error(`login failed: ${response.statusCode} ${response.body}`);
  await markSecondFactorDone(db, client);
  return client;
}
