import { sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMINS, ALL_STAFF, EDITORS, ROLES, SYS_ADMIN_ONLY, type Role } from '@trialpulse/shared';
import type { RegisteredRoute } from '../app';
import { STAFF_GUARD, type RequireStaffOptions } from '../modules/auth/auth.guard';
import type { AuthContext } from '../modules/auth/session-context';
import { addParticipant, createTrial } from '../modules/participants/test-support';
import { createTestApp, csrfSession, type TestApp } from '../test/test-app';
import { TestClient, createStaffUser, createTeam, signIn } from '../test/fixtures';
import { solveHumanCheck } from '../modules/human-check/test-support';

/**
 * The automated parts of the security checklist (/work/shared/reference/security-checklist.md)
 * as one suite over every route the app registers (Fastify's own route list, see
 * `app.registeredRoutes()`), so a new route cannot escape:
 *  - CSRF: every write refuses a missing, wrong, or another session's token (403), and
 *    nothing changes;
 *  - sign-in: every route not in the public list has a sign-in guard and never answers an
 *    anonymous caller with success;
 *  - roles: every route has an entry in ACCESS below; the guard the route declares matches
 *    it, and each role is allowed or refused by the route's own guard accordingly;
 *  - tenancy: a team-B Admin addressing team-A objects by id gets no success;
 *  - ids: every integer id in a path or body at 2^31, −1, 1e309 and "1.5" → 400/404 (a body
 *    id past the range gets the route's own unknown-id answer), never 5xx.
 * The app runs in demo mode so the demo mailbox routes are walked too.
 */

type Access =
  | { kind: 'public' }
  | { kind: 'participant' }
  | { kind: 'staff'; roles: readonly Role[]; pendingSecondFactor?: boolean; missingRole?: boolean };

const PUBLIC: Access = { kind: 'public' };
const PARTICIPANT: Access = { kind: 'participant' };
const staff = (roles: readonly Role[], extra: { pendingSecondFactor?: boolean; missingRole?: boolean } = {}): Access => ({
  kind: 'staff',
  roles,
  ...extra,
});
const SESSION_CALLS = staff(ALL_STAFF, { pendingSecondFactor: true, missingRole: true });
const NO_TRIAL_USER: readonly Role[] = ['Sys_Admin', 'Admin', 'User'];
const ALL_BUT_VIEWER = EDITORS;

/**
 * Who may call each API route (access spec §6/§7, device-data spec). A route missing here
 * fails the suite: adding a route means deciding its access.
 */
const ACCESS: Record<string, Access> = {
  'GET /api/humanCheck/config': PUBLIC,
  'GET /api/humanCheck/challenge': PUBLIC,
  'POST /api/recaptchaVer3Verify': PUBLIC,
  'GET /api/appVersion': PUBLIC,
  'GET /api/health': PUBLIC,
  'GET /api/csrf-token': PUBLIC,
  'POST /api/contactUs': PUBLIC,
  'POST /api/auth/login': PUBLIC,
  'POST /api/auth/refreshToken': PUBLIC,
  'POST /api/auth/logout': PUBLIC,
  'GET /api/auth/user': SESSION_CALLS,
  'GET /api/auth/login/': SESSION_CALLS,
  'GET /api/auth/secondFactorSetup': SESSION_CALLS,
  'POST /api/auth/verifyTOTP': SESSION_CALLS,
  'POST /api/auth/validateTOTP': SESSION_CALLS,
  'POST /api/auth/generateSendEmailTOTP': SESSION_CALLS,
  'POST /api/auth/resetSFA': SESSION_CALLS,
  'GET /api/auth/isSfaAlreadyValidated': SESSION_CALLS,
  'GET /api/auth//isSfaAlreadyValidated': SESSION_CALLS,
  'POST /api/auth/changePwdReq': staff(ALL_STAFF),
  'POST /api/auth/forgotPassword': PUBLIC,
  'POST /api/auth/resetPasswordValidation': PUBLIC,
  'POST /api/auth/resetPassword': PUBLIC,
  'GET /api/team': staff(SYS_ADMIN_ONLY),
  'POST /api/userSignUpPermission/approveSignUp': staff(SYS_ADMIN_ONLY),
  'POST /api/userSignUpPermission/signupRequestValidation': PUBLIC,
  'POST /api/users/signup': PUBLIC,
  'POST /api/Participants/signup': PUBLIC,
  'POST /api/Participants/login': PUBLIC,
  'GET /api/Participants/me': PARTICIPANT,
  'POST /api/Participants/verifyEmail': PUBLIC,
  'POST /api/Participants/me/verificationEmail': PARTICIPANT,
  'GET /api/userTeamsData/:userId': staff(ALL_STAFF, { missingRole: true }),
  'POST /api/selectTeam': staff(ALL_STAFF, { missingRole: true }),
  'GET /api/userTrials': staff(ALL_STAFF),
  'POST /api/userTrials': staff(ADMINS),
  'PUT /api/userTrials': staff(NO_TRIAL_USER),
  'DELETE /api/userTrials': staff(ADMINS),
  'GET /api/trialUsers/:trialId': staff(ADMINS),
  'GET /api/teamUsers/:trialId': staff(ADMINS),
  'POST /api/trialUsers': staff(ADMINS),
  'DELETE /api/trialUsers': staff(ADMINS),
  'GET /api/admin/teams': staff(SYS_ADMIN_ONLY),
  'GET /api/admin/teams/:teamId': staff(SYS_ADMIN_ONLY),
  'POST /api/admin/teams': staff(SYS_ADMIN_ONLY),
  'PUT /api/admin/teams/:teamId': staff(SYS_ADMIN_ONLY),
  'GET /api/admin/deviceCatalog': staff(SYS_ADMIN_ONLY),
  'GET /api/trialParticipants/:trialId': staff(ALL_STAFF),
  'GET /api/trialParticipants/:trialId/trialCode': staff(ALL_STAFF),
  'POST /api/trialParticipants': staff(ALL_BUT_VIEWER),
  'PUT /api/participant': staff(ALL_BUT_VIEWER),
  'PATCH /api/trialParticipants/:trialId/:participantId/code': staff(ALL_BUT_VIEWER),
  'DELETE /api/participant': staff(ALL_BUT_VIEWER),
  'GET /api/participant/:id': staff(ALL_STAFF),
  'GET /api/participant/:id/raw': staff(SYS_ADMIN_ONLY),
  'GET /api/teamAllowedDevices/:teamId': staff(ALL_STAFF),
  'GET /api/teamSupportedDevices/:teamId': staff(ALL_STAFF),
  'GET /api/fitbitClientId': PUBLIC,
  'GET /api/omronClientId': PUBLIC,
  'GET /api/dexcomClientId': PUBLIC,
  'POST /api/participantConsentEmail': staff(ALL_BUT_VIEWER),
  'POST /api/deviceAuthorization': staff(ALL_BUT_VIEWER),
  'POST /api/consentLinkAuthorize': PUBLIC,
  'POST /api/fitbit-callback': PUBLIC,
  'POST /api/omron-callback': PUBLIC,
  'POST /api/dexcom-callback': PUBLIC,
  'POST /api/fitbitRefreshToken': staff(ALL_BUT_VIEWER),
  'POST /api/omronRefreshToken': staff(ALL_BUT_VIEWER),
  'POST /api/omronRevokeToken': staff(ALL_BUT_VIEWER),
  'POST /api/dexcomRefreshToken': staff(ALL_BUT_VIEWER),
  'POST /api/dexcomRevokeToken': staff(ALL_BUT_VIEWER),
  'GET /api/revokeAccessToken/:id': staff(ALL_BUT_VIEWER),
  'GET /api/fitbitIsParticipantAuth/:id': staff(ALL_BUT_VIEWER),
  'GET /api/omronIsParticipantAuth/:id': staff(ALL_BUT_VIEWER),
  'GET /api/dexcomIsParticipantAuth/:id': staff(ALL_BUT_VIEWER),
  'GET /api/fitbitDevices/:id': staff(ALL_BUT_VIEWER),
  'GET /api/omronDevices/:id': staff(ALL_BUT_VIEWER),
  'GET /api/dexcomDevices/:id': staff(ALL_BUT_VIEWER),
  'GET /api/participantConnections/:id': staff(ALL_BUT_VIEWER),
  'GET /api/deviceConnections/:brand': staff(ADMINS),
  'GET /api/Participants/me/enrolments': PARTICIPANT,
  'POST /api/Participants/me/deviceAuthorization': PARTICIPANT,
  'POST /api/Participants/me/deviceRevoke': PARTICIPANT,
  // Demo mode only, loopback only, by design without sign-in (docs/decisions/0006).
  'GET /api/dev/mailbox': PUBLIC,
  'GET /api/dev/mailbox/:id': PUBLIC,
};

/** GETs that change state carry the CSRF header like writes (the spec's Fitbit revoke). */
const CSRF_GETS = new Set(['GET /api/revokeAccessToken/:id']);
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const BAD_IDS = ['2147483648', '-1', '1e309', '1.5'];

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minLength?: number;
  pattern?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
};

/**
 * A plausible value for a JSON schema from the OpenAPI document: enough for a body to pass
 * validation apart from the field under test, so the bad id reaches the route's handler.
 */
function sampleOf(schema: JsonSchema | undefined): unknown {
  if (!schema) return 'x';
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const branch = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (branch) return sampleOf(branch.find((option) => option.type !== 'null') ?? branch[0]);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'object' || schema.properties) {
    return Object.fromEntries((schema.required ?? []).map((name) => [name, sampleOf(schema.properties?.[name])]));
  }
  if (type === 'array') return [];
  if (type === 'boolean') return false;
  if (type === 'integer' || type === 'number') return 1;
  if (schema.format === 'email') return 'someone@example.org';
  if (schema.pattern && /\\d/.test(schema.pattern)) return '1';
  return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
}

const keyOf = (route: { method: string; url: string }) => `${route.method} ${route.url}`;
const staffGuardOf = (route: RegisteredRoute) =>
  route.guards.map((hook) => (hook as Record<symbol, RequireStaffOptions | undefined>)[STAFF_GUARD]).find(Boolean);
const participantGuardOf = (route: RegisteredRoute) =>
  route.guards.find((hook) => (hook as { name?: string }).name === 'requireParticipant');
const fillPath = (url: string, values: Record<string, string> = {}) => url.replace(/:(\w+)/g, (_all, name: string) => values[name] ?? '1');

let ctx: TestApp;
let routes: RegisteredRoute[];
let openApi: { paths: Record<string, Record<string, { parameters?: { in: string; name: string; schema?: unknown }[]; requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } }>> };
const clients = {} as Record<Role, TestClient>;
let outsider: TestClient;
let participantAccount: TestClient;
let teamA: number;
const idsA: Record<string, string> = {};

const auditCount = async () =>
  Number(((await ctx.database.db.execute(sql`SELECT count(*)::int AS n FROM audit_log`)).rows[0] as { n: number }).n);

beforeAll(async () => {
  ctx = await createTestApp({ env: { TRIALPULSE_MODE: 'demo' } });
  await ctx.app.ready();
  routes = ctx.app.registeredRoutes().filter((route) => route.url.startsWith('/api/') && !route.url.startsWith('/api/docs'));
  openApi = (await ctx.app.inject({ method: 'GET', url: '/api/docs/json' })).json();

  const db = ctx.database.db;
  teamA = (await createTeam(db, { maxTrials: 100, maxParticipants: 100, hiddenFields: [] })).id;
  const teamB = (await createTeam(db)).id;
  for (const role of ROLES) clients[role] = await signIn(ctx.app, db, await createStaffUser(db, { role, teamId: teamA }));
  outsider = await signIn(ctx.app, db, await createStaffUser(db, { role: 'Admin', teamId: teamB }));
  const portalUser = await createStaffUser(db, { accountType: 'participant' });
  participantAccount = new TestClient(ctx.app);
  const portalLogin = await participantAccount.post('/api/Participants/login', {
    username: portalUser.username,
    password: portalUser.password,
    recaptchaResponse: await solveHumanCheck(ctx.app),
  });
  expect(portalLogin.statusCode, portalLogin.body).toBe(200);
  // Team A's objects, addressed by id in the tenancy check.
  const trial = await createTrial(db, clients.Admin);
  const participant = await addParticipant(clients.Admin, { trialId: trial.id, email: `tenant-${Date.now()}@study.example.org` });
  const member = await createStaffUser(db, { role: 'User', teamId: teamA });
  Object.assign(idsA, {
    trialId: String(trial.id),
    participantId: String(participant.participantId),
    id: String(participant.participantId),
    teamId: String(teamA),
    userId: String(member.id),
  });
}, 60_000);
afterAll(() => ctx.close());

describe('security checklist over every route of the app', () => {
  it('enumerates the routes from the app, and every route has an access entry', () => {
    expect(routes.length).toBeGreaterThan(60);
    const missing = routes.map(keyOf).filter((key) => !(key in ACCESS));
    expect(missing).toEqual([]);
    const stale = Object.keys(ACCESS).filter((key) => !routes.some((route) => keyOf(route) === key));
    expect(stale).toEqual([]);
  });

  it('every write (and state-changing GET) refuses a missing, wrong or other-session CSRF token with 403, changing nothing', async () => {
    const writes = routes.filter((route) => WRITE_METHODS.has(route.method) || CSRF_GETS.has(keyOf(route)));
    expect(writes.length).toBeGreaterThan(30);
    const victim = clients.Sys_Admin;
    await victim.request('GET', '/api/auth/user', undefined, { csrf: true });
    const foreign = await csrfSession(ctx.app); // another (anonymous) browser's secret and token
    const otherSession = clients.Admin;
    await otherSession.request('GET', '/api/auth/user', undefined, { csrf: true });
    const otherToken = (await ctx.app.inject({ method: 'GET', url: '/api/csrf-token', headers: { cookie: otherSession.jar.header() } })).json().csrfToken;
    const before = await auditCount();
    for (const route of writes) {
      const url = fillPath(route.url);
      const variants: Record<string, Record<string, string>> = {
        missing: { cookie: victim.jar.header() },
        wrong: { cookie: victim.jar.header(), 'x-csrf-token': 'not-a-token' },
        otherBrowser: { cookie: `${victim.jar.header()}; ${foreign.cookie}`, 'x-csrf-token': foreign.token },
        otherSession: { cookie: victim.jar.header(), 'x-csrf-token': otherToken },
      };
      for (const [variant, headers] of Object.entries(variants)) {
        const response = await ctx.app.inject({ method: route.method as 'POST', url, headers, remoteAddress: '127.0.0.1', ...(route.method === 'GET' ? {} : { payload: {} }) });
        expect([keyOf(route), variant, response.statusCode, response.json().reason]).toEqual([keyOf(route), variant, 403, 'CSRF_TOKEN_INVALID']);
      }
    }
    expect(await auditCount()).toBe(before);
  });

  it('every non-public route has a sign-in guard and never answers an anonymous caller with success', async () => {
    const anonymous = new TestClient(ctx.app);
    for (const route of routes) {
      const access = ACCESS[keyOf(route)]!;
      if (access.kind === 'public') continue;
      if (access.kind === 'participant') expect([keyOf(route), Boolean(participantGuardOf(route))]).toEqual([keyOf(route), true]);
      else expect([keyOf(route), Boolean(staffGuardOf(route))]).toEqual([keyOf(route), true]);
      const response = await anonymous.request(route.method as 'POST', fillPath(route.url), route.method === 'GET' ? undefined : {}, { csrf: CSRF_GETS.has(keyOf(route)) });
      // A body that fails validation answers 400 before the guard runs; otherwise 401/403.
      expect([keyOf(route), [400, 401, 403].includes(response.statusCode)]).toEqual([keyOf(route), true]);
      if (route.method === 'GET' && !route.url.includes(':')) expect([keyOf(route), response.statusCode]).toEqual([keyOf(route), 401]);
    }
  });

  it("applies the role table: each route's own guard allows exactly the roles of its entry", async () => {
    for (const route of routes) {
      const access = ACCESS[keyOf(route)]!;
      if (access.kind !== 'staff') continue;
      const declared = staffGuardOf(route)!;
      expect([keyOf(route), [...(declared.roles ?? ALL_STAFF)].sort(), Boolean(declared.allowPendingSecondFactor), Boolean(declared.allowMissingRole)]).toEqual([
        keyOf(route),
        [...access.roles].sort(),
        Boolean(access.pendingSecondFactor),
        Boolean(access.missingRole),
      ]);
      const guard = route.guards.find((hook) => (hook as Record<symbol, unknown>)[STAFF_GUARD]) as (request: FastifyRequest, reply: unknown) => Promise<void>;
      for (const role of ROLES) {
        const auth = { kind: 'staff', userId: 1, sessionId: 's', tokenVersion: 0, authStatus: 'Authorized', teamId: teamA, role, user: {} } as unknown as AuthContext;
        const outcome = await guard({ auth, cookies: {} } as unknown as FastifyRequest, {}).then(
          () => 'allowed',
          (error: { statusCode?: number }) => (error.statusCode === 403 ? 'refused' : `error ${error.statusCode}`),
        );
        expect([keyOf(route), role, outcome]).toEqual([keyOf(route), role, access.roles.includes(role) || role === 'Sys_Admin' ? 'allowed' : 'refused']);
      }
      // And through HTTP for reads (no body to validate first): a refused role gets 403.
      if (route.method === 'GET') {
        for (const role of ROLES.filter((r) => r !== 'Sys_Admin' && !access.roles.includes(r))) {
          const response = await clients[role].request('GET', fillPath(route.url, idsA), undefined, { csrf: CSRF_GETS.has(keyOf(route)) });
          expect([keyOf(route), role, response.statusCode]).toEqual([keyOf(route), role, 403]);
        }
      }
    }
  });

  it("tenancy: a team-B Admin addressing team A's objects by id never succeeds", async () => {
    for (const route of routes) {
      const access = ACCESS[keyOf(route)]!;
      if (access.kind !== 'staff' || !route.url.includes(':') || route.method !== 'GET') continue;
      if (!access.roles.includes('Admin')) continue;
      const response = await outsider.request('GET', fillPath(route.url, idsA), undefined, { csrf: CSRF_GETS.has(keyOf(route)) });
      expect([keyOf(route), response.statusCode >= 400]).toEqual([keyOf(route), true]);
    }
  });

  it('every integer id in a path or body at 2^31, −1, 1e309 and "1.5" answers 400 or 404, never 5xx', async () => {
    let checked = 0;
    for (const route of routes) {
      // Each route as a caller its guard lets through, so the id reaches the handler.
      const caller = ACCESS[keyOf(route)]!.kind === 'participant' ? participantAccount : clients.Sys_Admin;
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      const operation = openApi.paths[path]?.[route.method.toLowerCase()];
      const numeric = (schema: unknown) => /"(number|integer)"/.test(JSON.stringify(schema ?? {}));
      const pathIds = (operation?.parameters ?? []).filter((parameter) => parameter.in === 'path' && numeric(parameter.schema)).map((parameter) => parameter.name);
      for (const name of pathIds) {
        for (const bad of BAD_IDS) {
          const url = fillPath(route.url, { ...idsA, [name]: encodeURIComponent(bad) });
          const response = await caller.request(route.method as 'POST', url, route.method === 'GET' ? undefined : {}, { csrf: CSRF_GETS.has(keyOf(route)) });
          // 400 malformed; 404 (or the route's own 403 "not yours", /userTeamsData) for an id past the range.
          expect([keyOf(route), name, bad, [400, 404].includes(response.statusCode) || (bad === '2147483648' && response.statusCode === 403)]).toEqual([keyOf(route), name, bad, true]);
          checked += 1;
        }
      }
      const bodySchema = operation?.requestBody?.content?.['application/json']?.schema as JsonSchema | undefined;
      const properties = bodySchema?.properties ?? {};
      const bodyIds = Object.entries(properties).filter(([name, schema]) => /(^id|Id)$/.test(name) && numeric(schema)).map(([name]) => name);
      for (const name of bodyIds) {
        const rest = { ...(sampleOf(bodySchema) as Record<string, unknown>), [name]: 0 };
        for (const bad of BAD_IDS) {
          const literal = bad === '1.5' ? '"1.5"' : bad; // 1e309 as a JSON number literal (Infinity once parsed)
          const csrf = (await ctx.app.inject({ method: 'GET', url: '/api/csrf-token', headers: { cookie: caller.jar.header() } })).json().csrfToken;
          const response = await ctx.app.inject({
            method: route.method as 'POST',
            url: fillPath(route.url, idsA),
            headers: { cookie: caller.jar.header(), 'x-csrf-token': csrf, 'content-type': 'application/json' },
            remoteAddress: caller.remoteAddress,
            // The other fields valid, so a well-formed id past the range reaches the handler.
            payload: JSON.stringify(rest).replace(`"${name}":0`, `"${name}":${literal}`),
          });
          expect([keyOf(route), name, bad, response.statusCode < 500]).toEqual([keyOf(route), name, bad, true]);
          if (bad !== '2147483648') {
            // A malformed id is itself refused (not only the other, missing fields). A
            // well-formed one past the column's range names no row: the route's own answer.
            expect([keyOf(route), name, bad, response.statusCode]).toEqual([keyOf(route), name, bad, 400]);
            expect([keyOf(route), name, bad, (response.json().errors ?? []).some((error: { field: string }) => error.field === name)]).toEqual([keyOf(route), name, bad, true]);
          }
          checked += 1;
        }
      }
    }
    // Paths: participants, trials, teams, users, mails; bodies: trialId, participantId, teamId, id…
    expect(checked).toBeGreaterThan(80);
  });
});
