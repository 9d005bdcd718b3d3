import { sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_STAFF, ROLES, rolesFor, type Action, type Role } from '@trialpulse/shared';
import type { RegisteredRoute } from '../app';
import { STAFF_GUARD, type RequireStaffOptions } from '../modules/auth/auth.guard';
import {
  BACKEND_GUARD,
  type RequireBackendClientOptions,
} from '../modules/backend-clients/backend-auth.guard';
import {
  backendToken,
  registerBackendClient,
  type BackendKeyPair,
} from '../modules/backend-clients/test-support';
import type { AuthContext } from '../modules/auth/session-context';
import { addParticipant, createTrial } from '../modules/participants/test-support';
import { createTestApp, csrfSession, type TestApp } from '../test/test-app';
import { TestClient, createStaffUser, createTeam, signIn } from '../test/fixtures';
import { solveHumanCheck } from '../modules/human-check/test-support';
import { allowAllBrands, linkAsStaff, simulatorEnv } from '../modules/devices/test-support';
import { startAllSimulators, type AllSimulators } from '@trialpulse/provider-simulators';

/**
 * The automated parts of the security checklist (/work/shared/reference/security-checklist.md)
 * as one suite over every route the app registers (Fastify's own route list, see
 * `app.registeredRoutes()`), so a new route cannot escape:
 *  - CSRF: every write refuses a missing, wrong, or another session's token (403), and
 *    nothing changes;
 *  - sign-in: every route not in the public list has a sign-in guard and never answers an
 *    anonymous caller with success;
 *  - bearer tokens (/fhir, issue 31): a backend route's guard reads only the bearer token of
 *    a backend client: no CSRF token is asked, and a staff browser's cookies get 401;
 *  - roles: every route has an entry in ACCESS below naming its action of the shared
 *    permissions table; the route's guard declares that action, and each role is allowed
 *    or refused by the route's own guard exactly as the shared table says;
 *  - tenancy: a team-B Admin addressing team-A objects by id gets no success;
 *  - ids: every integer id in a path or body at 2^31, −1, 1e309 and "1.5" → 400/404 (a body
 *    id past the range gets the route's own unknown-id answer), never 5xx;
 *  - dates and free text: every string parameter (path, query, body) at year 0000,
 *    9999-12-31, 2026-02-30 (as dates and date-times) and 10,000 characters, and the dates
 *    inside structured parameters (Fitbit resource paths, the Dexcom query), never 5xx
 *    (502 included), for a participant linked to every provider (simulators; decision 0127).
 * The app runs in demo mode so the demo mailbox routes are walked too.
 */

/** Staff routes name an action of the shared permissions table (`null`: any signed-in staff). */
type Access =
  | { kind: 'public' }
  | { kind: 'participant' }
  | { kind: 'staff'; action: Action | null; pendingSecondFactor?: boolean; missingRole?: boolean }
  | { kind: 'backend'; scope?: RequireBackendClientOptions['scope'] };

const PUBLIC: Access = { kind: 'public' };
const PARTICIPANT: Access = { kind: 'participant' };
/**
 * Machine routes under /fhir (FHIR Bulk Data, issue 31): a backend client's bearer token
 * from POST /fhir/auth/token (`app.requireBackendClient({ scope })`), never a cookie.
 */
const backend = (scope?: RequireBackendClientOptions['scope']): Access => ({
  kind: 'backend',
  ...(scope && { scope }),
});
const staff = (
  action: Action | null,
  extra: { pendingSecondFactor?: boolean; missingRole?: boolean } = {},
): Access => ({
  kind: 'staff',
  action,
  ...extra,
});
const SESSION_CALLS = staff(null, { pendingSecondFactor: true, missingRole: true });
/** The roles an entry allows: its action's roles in the shared table, or every staff role. */
const rolesOf = (access: { action: Action | null }): readonly Role[] =>
  access.action ? rolesFor(access.action) : ALL_STAFF;

/**
 * Who may call each API route (access spec §6/§7, device-data spec): public, a participant
 * account, or staff allowed the named action of the shared permissions table
 * (packages/shared/src/permissions.ts). A route missing here fails the suite: adding a
 * route means deciding its access.
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
  // Answers whether a session is present (decision 0195): no data, 200 for everyone.
  'GET /api/auth/session': PUBLIC,
  'GET /api/auth/user': SESSION_CALLS,
  'GET /api/auth/login/': SESSION_CALLS,
  'GET /api/auth/secondFactorSetup': SESSION_CALLS,
  'POST /api/auth/verifyTOTP': SESSION_CALLS,
  'POST /api/auth/validateTOTP': SESSION_CALLS,
  'POST /api/auth/generateSendEmailTOTP': SESSION_CALLS,
  'POST /api/auth/resetSFA': SESSION_CALLS,
  'GET /api/auth/isSfaAlreadyValidated': SESSION_CALLS,
  'GET /api/auth//isSfaAlreadyValidated': SESSION_CALLS,
  'POST /api/auth/changePwdReq': staff(null),
  'POST /api/auth/forgotPassword': PUBLIC,
  'POST /api/auth/resetPasswordValidation': PUBLIC,
  'POST /api/auth/resetPassword': PUBLIC,
  'GET /api/team': staff('signup.approve'),
  'POST /api/userSignUpPermission/approveSignUp': staff('signup.approve'),
  'POST /api/userSignUpPermission/signupRequestValidation': PUBLIC,
  'POST /api/users/signup': PUBLIC,
  'POST /api/Participants/signup': PUBLIC,
  'POST /api/Participants/login': PUBLIC,
  'GET /api/Participants/me': PARTICIPANT,
  'POST /api/Participants/verifyEmail': PUBLIC,
  'POST /api/Participants/me/verificationEmail': PARTICIPANT,
  'GET /api/userTeamsData/:userId': staff(null, { missingRole: true }),
  'POST /api/selectTeam': staff(null, { missingRole: true }),
  'GET /api/userTrials': staff('trial.view'),
  'POST /api/userTrials': staff('trial.create'),
  'PUT /api/userTrials': staff('trial.update'),
  'DELETE /api/userTrials': staff('trial.delete'),
  'GET /api/trialUsers/:trialId': staff('trialUsers.manage'),
  'GET /api/teamUsers/:trialId': staff('trialUsers.manage'),
  'POST /api/trialUsers': staff('trialUsers.manage'),
  'DELETE /api/trialUsers': staff('trialUsers.manage'),
  'GET /api/admin/teams': staff('team.administer'),
  'GET /api/admin/teams/:teamId': staff('team.administer'),
  'POST /api/admin/teams': staff('team.administer'),
  'PUT /api/admin/teams/:teamId': staff('team.administer'),
  'GET /api/admin/deviceCatalog': staff('team.administer'),
  'GET /api/trialParticipants/:trialId': staff('participant.view'),
  'GET /api/trialParticipants/:trialId/trialCode': staff('participant.view'),
  'POST /api/trialParticipants': staff('participant.create'),
  'PUT /api/participant': staff('participant.update'),
  'PATCH /api/trialParticipants/:trialId/:participantId/code': staff('participant.update'),
  'DELETE /api/participant': staff('participant.delete'),
  'GET /api/participant/:id': staff('participant.view'),
  'GET /api/participant/:id/raw': staff('participant.viewRaw'),
  'GET /api/teamAllowedDevices/:teamId': staff('participant.view'),
  'GET /api/teamSupportedDevices/:teamId': staff('participant.view'),
  'GET /api/fitbitClientId': PUBLIC,
  'GET /api/omronClientId': PUBLIC,
  'GET /api/dexcomClientId': PUBLIC,
  'POST /api/participantConsentEmail': staff('device.connect'),
  'POST /api/deviceAuthorization': staff('device.connect'),
  'POST /api/consentLinkAuthorize': PUBLIC,
  'POST /api/fitbit-callback': PUBLIC,
  'POST /api/omron-callback': PUBLIC,
  'POST /api/dexcom-callback': PUBLIC,
  'POST /api/fitbitRefreshToken': staff('device.connect'),
  'POST /api/omronRefreshToken': staff('device.connect'),
  'POST /api/omronRevokeToken': staff('device.connect'),
  'POST /api/dexcomRefreshToken': staff('device.connect'),
  'POST /api/dexcomRevokeToken': staff('device.connect'),
  'GET /api/revokeAccessToken/:id': staff('device.connect'),
  'GET /api/fitbitIsParticipantAuth/:id': staff('device.connect'),
  'GET /api/omronIsParticipantAuth/:id': staff('device.connect'),
  'GET /api/dexcomIsParticipantAuth/:id': staff('device.connect'),
  'GET /api/fitbitDevices/:id': staff('device.connect'),
  'GET /api/omronDevices/:id': staff('device.connect'),
  'GET /api/dexcomDevices/:id': staff('device.connect'),
  'GET /api/participantConnections/:id': staff('device.connect'),
  'GET /api/getFitbitServerParticipantData/:participantId/:email/*': staff('data.view'),
  'GET /api/deviceConnections/:brand': staff('deviceToken.manage'),
  // Device metrics manager, team data retention, Database Info (decisions 0030, 0031).
  'GET /api/deviceSettings/enhanced/deviceSettings/:teamId/:deviceId': staff('metrics.manage'),
  'GET /api/deviceSettings/enhanced/availableMetrics/:teamId/:deviceId/:deviceType':
    staff('metrics.manage'),
  'PUT /api/deviceSettings/:teamId/:deviceId': staff('metrics.manage'),
  'GET /api/dataStorageService/team/:teamId/devices': staff('retention.manage'),
  'GET /api/dataStorageService/team/:teamId/retention': staff('retention.manage'),
  'GET /api/dataStorageService/metrics/:deviceType': staff('retention.manage'),
  'GET /api/dataStorageService/team/:teamId/device/:deviceType/selections':
    staff('retention.manage'),
  'POST /api/dataStorageService/team/:teamId/device/:deviceType/metric': staff('retention.manage'),
  'DELETE /api/dataStorageService/team/:teamId/device/:deviceType/metric/:metricKey':
    staff('retention.manage'),
  'GET /api/dataStorageService/team/:teamId/device/:deviceType/metric/:metricKey/storedReadings':
    staff('retention.manage'),
  'GET /api/sysAdminTeamsData': staff('sysadmin.view'),
  'GET /api/sysAdminTeamAllowedBrands': staff('sysadmin.view'),
  'GET /api/sysAdminTeamSupportedDevicesData': staff('sysadmin.view'),
  'GET /api/sysAdminTeamUserMappings': staff('sysadmin.view'),
  'GET /api/sysAdminTeamDataStorageSettings': staff('sysadmin.view'),
  'GET /api/sysAdminUsersData': staff('sysadmin.view'),
  'GET /api/sysAdminTrialsData': staff('sysadmin.view'),
  'GET /api/sysAdminParticipantsData': staff('sysadmin.view'),
  'GET /api/sysAdminParticipantDevicesData': staff('sysadmin.view'),
  'GET /api/sysAdminGlobalDeviceCatalogData': staff('sysadmin.view'),
  'GET /api/Participants/me/enrolments': PARTICIPANT,
  'POST /api/Participants/me/deviceAuthorization': PARTICIPANT,
  'POST /api/Participants/me/deviceRevoke': PARTICIPANT,
  'GET /api/dataExport/trials': staff('export.create'),
  'GET /api/dataExport/devices': staff('export.create'),
  'GET /api/dataExport/trials/:trialId/participants/:deviceId': staff('export.create'),
  'GET /api/dataExport/metrics/:deviceId': staff('export.create'),
  'GET /api/dataExport/jobs': staff('export.create'),
  'POST /api/dataExport/batchDataExport': staff('export.create'),
  'GET /api/dataExport/jobs/:id/download': staff('export.create'),
  'DELETE /api/dataExport/jobs/:id': staff('export.create'),
  'POST /api/getOmronParticipantData/:id': staff('data.view'),
  'GET /api/getDexcomParticipantData/:id/:query': staff('data.view'),
  'GET /api/participantReadings/:id/:brand': staff('data.view'),
  'GET /api/participantOverview/:id': staff('data.view'),
  'POST /api/omronParticipantDataRaw/:id': staff('data.viewRaw'),
  'GET /api/dexcomParticipantDataRaw/:id/:query': staff('data.viewRaw'),
  'GET /api/fitbitParticipantDataRaw/:participantId/*': staff('data.viewRaw'),
  'GET /api/deviceStatus': staff('device.connect'),
  'GET /api/fitbitDataLocalDB/:id': staff('data.view'),
  'POST /api/fitbitDataLocalDB/:id': staff('data.recompute'),
  'GET /api/deviceSync/participant/:id': staff('data.view'),
  'GET /api/deviceSync/trial/:id/lastData': staff('data.view'),
  'GET /api/trials/:trialId/completeness': staff('completeness.view'),
  'GET /api/trials/:trialId/completeness/strips': staff('completeness.view'),
  'PUT /api/trials/:trialId/completeness/thresholds': staff('completeness.thresholds'),
  'GET /api/trials/:trialId/completeness/digest': staff('completeness.view'),
  'PUT /api/trials/:trialId/completeness/digest': staff('completeness.view'),
  'GET /api/trials/:trialId/completeness/adherence.csv': staff('completeness.view'),
  // SMART Backend Services (issue 31, decision 0240): the team Admin's clients; the
  // discovery document and the token endpoint (the client authenticates by its assertion).
  'GET /api/backendClients': staff('backendClient.manage'),
  'POST /api/backendClients': staff('backendClient.manage'),
  'POST /api/backendClients/:id/revoke': staff('backendClient.manage'),
  'GET /fhir/.well-known/smart-configuration': PUBLIC,
  'POST /fhir/auth/token': PUBLIC,
  // FHIR Bulk Data (issue 31): each type's scope is checked per kick-off (`_type`, 403).
  'GET /fhir/metadata': PUBLIC,
  'GET /fhir/Group': backend('system/Group.rs'),
  'GET /fhir/Group/:trialId/$export': backend(),
  'POST /fhir/Group/:trialId/$export': backend(),
  'GET /fhir/bulkstatus/:jobId': backend(),
  'DELETE /fhir/bulkstatus/:jobId': backend(),
  'GET /fhir/bulkfiles/:jobId/:name': backend(),
  // Demo mode only, loopback only, by design without sign-in (docs/decisions/0006).
  'GET /api/dev/mailbox': PUBLIC,
  'GET /api/dev/mailbox/:id': PUBLIC,
};

/** GETs that change state carry the CSRF header like writes (the spec's Fitbit revoke). */
const CSRF_GETS = new Set(['GET /api/revokeAccessToken/:id']);
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const BAD_IDS = ['2147483648', '-1', '1e309', '1.5'];
/** Dates no calendar or no sane trial holds, as dates and as date-times (decision 0127). */
const BAD_DATES = ['0000-01-01', '9999-12-31', '2026-02-30'];
const BAD_TEXTS = [
  ...BAD_DATES,
  ...BAD_DATES.map((date) => `${date}T00:00:00Z`),
  'x'.repeat(10_000),
];
/**
 * Valid bodies for routes whose schema sample (`sampleOf`) would be refused on another field
 * anyway, so a fuzzed field is the only thing wrong with the body.
 */
const BODY_SAMPLES: Record<string, Record<string, unknown>> = {
  'POST /api/getOmronParticipantData/:id': {
    queryStr: 'bloodpressure',
    since: '2026-01-01',
    sortOrder: 'desc',
    limit: 10,
  },
  'POST /api/omronParticipantDataRaw/:id': {
    queryStr: 'bloodpressure',
    since: '2026-01-01',
    sortOrder: 'desc',
    limit: 10,
  },
};

/**
 * Parameters that hold dates inside a structure the generic fuzz cannot reach (a value in
 * their place is refused whole): per route and parameter, the values to try for a bad date.
 * Every `*` and `:query` path parameter must have an entry (checked).
 */
const STRUCTURED_DATES: Record<string, Record<string, (date: string) => string[]>> = {
  'GET /api/getFitbitServerParticipantData/:participantId/:email/*': {
    '*': (date) => [
      `activities/steps/date/${date}/${date}.json`,
      `activities/steps/date/2026-01-01/${date}.json`,
      `activities/steps/date/${date}/7d.json`,
      `activities/heart/date/${date}/1d.json`,
      `body/log/weight/date/${date}/30d.json`,
      `sleep/date/${date}/${date}.json`,
      `spo2/date/${date}/${date}.json`,
      `activities/list.json?beforeDate=${date}&sort=desc&limit=1&offset=0`,
      `activities/list.json?afterDate=${date}&sort=asc&limit=1&offset=0`,
    ],
  },
  'GET /api/fitbitParticipantDataRaw/:participantId/*': {
    '*': (date) => [
      `activities/steps/date/${date}/${date}.json?upstream=google-health`,
      `activities/steps/date/2026-01-01/${date}.json?upstream=fitbit-legacy`,
    ],
  },
  'GET /api/getDexcomParticipantData/:id/:query': {
    query: (date) => [
      `startDate=${date}&endDate=2026-01-02`,
      `startDate=2026-01-01&endDate=${date}`,
      `startDate=${date}&endDate=${date}`,
    ],
  },
  'GET /api/dexcomParticipantDataRaw/:id/:query': {
    query: (date) => [
      `startDate=${date}&endDate=2026-01-02`,
      `startDate=2026-01-01&endDate=${date}`,
    ],
  },
};

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
    return Object.fromEntries(
      (schema.required ?? []).map((name) => [name, sampleOf(schema.properties?.[name])]),
    );
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
  route.guards
    .map((hook) => (hook as Record<symbol, RequireStaffOptions | undefined>)[STAFF_GUARD])
    .find(Boolean);
const backendGuardOf = (route: RegisteredRoute) =>
  route.guards
    .map((hook) => (hook as Record<symbol, RequireBackendClientOptions | undefined>)[BACKEND_GUARD])
    .find(Boolean);
/** Routes a machine calls with a bearer token (or none): no cookie, no CSRF token. */
const isFhir = (route: { url: string }) => route.url.startsWith('/fhir/');
const participantGuardOf = (route: RegisteredRoute) =>
  route.guards.find((hook) => (hook as { name?: string }).name === 'requireParticipant');
/** A caller each route's guard lets through: a participant, a backend client or Sys_Admin. */
const callerOf = (route: { method: string; url: string }): TestClient | BearerClient => {
  const kind = ACCESS[keyOf(route)]!.kind;
  if (kind === 'participant') return participantAccount;
  return kind === 'backend' ? backendA : clients.Sys_Admin;
};
const fillPath = (url: string, values: Record<string, string> = {}) =>
  url.replace(/:(\w+)/g, (_all, name: string) => values[name] ?? '1');

/**
 * A backend client calling /fhir routes with its bearer token (asked again before the
 * 5-minute token would expire), answering `request` as TestClient does.
 */
class BearerClient {
  readonly jar = { header: () => '' };
  readonly remoteAddress = '127.0.0.1';
  private token: { value: string; at: number } | null = null;
  constructor(
    private readonly registered: { client: { clientId: string }; keys: BackendKeyPair },
  ) {}

  async authorization(): Promise<string> {
    if (!this.token || Date.now() - this.token.at > 120_000) {
      const { token } = await backendToken(ctx, this.registered.client, this.registered.keys);
      this.token = { value: token, at: Date.now() };
    }
    return `Bearer ${this.token.value}`;
  }

  async request(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ) {
    return ctx.app.inject({
      method,
      url,
      headers: { authorization: await this.authorization() },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  }
}

let ctx: TestApp;
let sims: AllSimulators;
let routes: RegisteredRoute[];
let openApi: {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { in: string; name: string; schema?: unknown }[];
        requestBody?: {
          content?: Record<string, { schema?: { properties?: Record<string, unknown> } }>;
        };
      }
    >
  >;
};
const clients = {} as Record<Role, TestClient>;
let outsider: TestClient;
let participantAccount: TestClient;
/** Backend clients of team A (every scope) and of team B, for the /fhir routes. */
let backendA: BearerClient;
let backendB: BearerClient;
let teamA: number;
const idsA: Record<string, string> = {};

const auditCount = async () =>
  Number(
    (
      (await ctx.database.db.execute(sql`SELECT count(*)::int AS n FROM audit_log`)).rows[0] as {
        n: number;
      }
    ).n,
  );

beforeAll(async () => {
  sims = await startAllSimulators();
  ctx = await createTestApp({ env: { ...simulatorEnv(sims), TRIALPULSE_MODE: 'demo' } });
  await ctx.app.ready();
  routes = ctx.app
    .registeredRoutes()
    .filter(
      (route) =>
        (route.url.startsWith('/api/') && !route.url.startsWith('/api/docs')) || isFhir(route),
    );
  openApi = (await ctx.app.inject({ method: 'GET', url: '/api/docs/json' })).json();

  const db = ctx.database.db;
  teamA = (await createTeam(db, { maxTrials: 100, maxParticipants: 100, hiddenFields: [] })).id;
  await allowAllBrands(db, teamA);
  const teamB = (await createTeam(db)).id;
  for (const role of ROLES)
    clients[role] = await signIn(ctx.app, db, await createStaffUser(db, { role, teamId: teamA }));
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
  const email = `tenant-${Date.now()}@study.example.org`;
  const participant = await addParticipant(clients.Admin, { trialId: trial.id, email });
  // Linked to every provider, so a date that passed validation would reach the provider.
  for (const brand of ['Fitbit', 'Omron'] as const)
    expect((await linkAsStaff(clients.Admin, participant.participantId, brand)).statusCode).toBe(
      200,
    );
  expect(
    (
      await linkAsStaff(
        clients.Admin,
        participant.participantId,
        'Dexcom',
        { account: 'SandboxUser1' },
        { email },
      )
    ).statusCode,
  ).toBe(200);
  backendA = new BearerClient(await registerBackendClient(clients.Admin));
  backendB = new BearerClient(await registerBackendClient(outsider));
  const member = await createStaffUser(db, { role: 'User', teamId: teamA });
  Object.assign(idsA, {
    trialId: String(trial.id),
    participantId: String(participant.participantId),
    id: String(participant.participantId),
    teamId: String(teamA),
    userId: String(member.id),
    email: encodeURIComponent(email),
  });
});
afterAll(async () => {
  await ctx?.close();
  await sims?.close();
});

describe('security checklist over every route of the app', () => {
  it('enumerates the routes from the app, and every route has an access entry', () => {
    expect(routes.length).toBeGreaterThan(60);
    const missing = routes.map(keyOf).filter((key) => !(key in ACCESS));
    expect(missing).toEqual([]);
    const stale = Object.keys(ACCESS).filter(
      (key) => !routes.some((route) => keyOf(route) === key),
    );
    expect(stale).toEqual([]);
  });

  it('every write (and state-changing GET) refuses a missing, wrong or other-session CSRF token with 403, changing nothing', async () => {
    const writes = routes.filter(
      (route) => !isFhir(route) && (WRITE_METHODS.has(route.method) || CSRF_GETS.has(keyOf(route))),
    );
    expect(writes.length).toBeGreaterThan(30);
    const victim = clients.Sys_Admin;
    await victim.request('GET', '/api/auth/user', undefined, { csrf: true });
    const foreign = await csrfSession(ctx.app); // another (anonymous) browser's secret and token
    const otherSession = clients.Admin;
    await otherSession.request('GET', '/api/auth/user', undefined, { csrf: true });
    const otherToken = (
      await ctx.app.inject({
        method: 'GET',
        url: '/api/csrf-token',
        headers: { cookie: otherSession.jar.header() },
      })
    ).json().csrfToken;
    const before = await auditCount();
    for (const route of writes) {
      const url = fillPath(route.url);
      const variants: Record<string, Record<string, string>> = {
        missing: { cookie: victim.jar.header() },
        wrong: { cookie: victim.jar.header(), 'x-csrf-token': 'not-a-token' },
        otherBrowser: {
          cookie: `${victim.jar.header()}; ${foreign.cookie}`,
          'x-csrf-token': foreign.token,
        },
        otherSession: { cookie: victim.jar.header(), 'x-csrf-token': otherToken },
      };
      for (const [variant, headers] of Object.entries(variants)) {
        const response = await ctx.app.inject({
          method: route.method as 'POST',
          url,
          headers,
          remoteAddress: '127.0.0.1',
          ...(route.method === 'GET' ? {} : { payload: {} }),
        });
        expect([keyOf(route), variant, response.statusCode, response.json().reason]).toEqual([
          keyOf(route),
          variant,
          403,
          'CSRF_TOKEN_INVALID',
        ]);
      }
    }
    expect(await auditCount()).toBe(before);
  });

  it('every non-public route has a sign-in guard and never answers an anonymous caller with success', async () => {
    const anonymous = new TestClient(ctx.app);
    for (const route of routes) {
      const access = ACCESS[keyOf(route)]!;
      if (access.kind === 'public') continue;
      if (access.kind === 'participant')
        expect([keyOf(route), Boolean(participantGuardOf(route))]).toEqual([keyOf(route), true]);
      else if (access.kind === 'backend')
        expect([keyOf(route), Boolean(backendGuardOf(route))]).toEqual([keyOf(route), true]);
      else expect([keyOf(route), Boolean(staffGuardOf(route))]).toEqual([keyOf(route), true]);
      const response = await anonymous.request(
        route.method as 'POST',
        fillPath(route.url),
        route.method === 'GET' ? undefined : {},
        { csrf: CSRF_GETS.has(keyOf(route)) },
      );
      // A body that fails validation answers 400 before the guard runs; otherwise 401/403.
      expect([keyOf(route), [400, 401, 403].includes(response.statusCode)]).toEqual([
        keyOf(route),
        true,
      ]);
      if (route.method === 'GET' && !route.url.includes(':'))
        expect([keyOf(route), response.statusCode]).toEqual([keyOf(route), 401]);
    }
  });

  it('/fhir routes take no cookie and no CSRF token: a staff browser gets 401 from every backend route, which declares its scope', async () => {
    const fhirRoutes = routes.filter(isFhir);
    expect(fhirRoutes.length).toBeGreaterThanOrEqual(2);
    for (const route of fhirRoutes) {
      const access = ACCESS[keyOf(route)]!;
      expect([keyOf(route), access.kind]).toEqual([
        keyOf(route),
        access.kind === 'public' ? 'public' : 'backend',
      ]);
      // A signed-in Sys_Admin's browser, CSRF token and all.
      const response = await clients.Sys_Admin.request(
        route.method as 'POST',
        fillPath(route.url, idsA),
        route.method === 'GET' ? undefined : {},
        { csrf: true },
      );
      expect([keyOf(route), response.json().reason]).toEqual([keyOf(route), undefined]);
      if (access.kind !== 'backend') continue;
      expect([keyOf(route), response.statusCode, response.headers['content-type']]).toEqual([
        keyOf(route),
        401,
        'application/fhir+json; charset=utf-8',
      ]);
      expect([keyOf(route), response.json().issue?.[0]?.code]).toEqual([keyOf(route), 'login']);
      expect([keyOf(route), backendGuardOf(route)!.scope ?? null]).toEqual([
        keyOf(route),
        access.scope ?? null,
      ]);
    }
  });

  it("applies the shared role table: each route's guard names its action and allows exactly that action's roles", async () => {
    for (const route of routes) {
      const access = ACCESS[keyOf(route)]!;
      if (access.kind !== 'staff') continue;
      const declared = staffGuardOf(route)!;
      expect([
        keyOf(route),
        declared.action ?? null,
        Boolean(declared.allowPendingSecondFactor),
        Boolean(declared.allowMissingRole),
      ]).toEqual([
        keyOf(route),
        access.action,
        Boolean(access.pendingSecondFactor),
        Boolean(access.missingRole),
      ]);
      const allowed = rolesOf(access);
      const guard = route.guards.find((hook) => (hook as Record<symbol, unknown>)[STAFF_GUARD]) as (
        request: FastifyRequest,
        reply: unknown,
      ) => Promise<void>;
      for (const role of ROLES) {
        const auth = {
          kind: 'staff',
          userId: 1,
          sessionId: 's',
          tokenVersion: 0,
          authStatus: 'Authorized',
          teamId: teamA,
          role,
          user: {},
        } as unknown as AuthContext;
        const outcome = await guard({ auth, cookies: {} } as unknown as FastifyRequest, {}).then(
          () => 'allowed',
          (error: { statusCode?: number }) =>
            error.statusCode === 403 ? 'refused' : `error ${error.statusCode}`,
        );
        expect([keyOf(route), role, outcome]).toEqual([
          keyOf(route),
          role,
          allowed.includes(role) || role === 'Sys_Admin' ? 'allowed' : 'refused',
        ]);
      }
      // And through HTTP for reads (no body to validate first): a refused role gets 403.
      if (route.method === 'GET') {
        for (const role of ROLES.filter((r) => r !== 'Sys_Admin' && !allowed.includes(r))) {
          const response = await clients[role].request(
            'GET',
            fillPath(route.url, idsA),
            undefined,
            { csrf: CSRF_GETS.has(keyOf(route)) },
          );
          expect([keyOf(route), role, response.statusCode]).toEqual([keyOf(route), role, 403]);
        }
      }
    }
  });

  it("tenancy: a team-B Admin (or team B's backend client) addressing team A's objects by id never succeeds", async () => {
    for (const route of routes) {
      const access = ACCESS[keyOf(route)]!;
      if (access.kind === 'backend' && route.url.includes(':') && route.method === 'GET') {
        const response = await backendB.request('GET', fillPath(route.url, idsA));
        expect([keyOf(route), response.statusCode >= 400]).toEqual([keyOf(route), true]);
        continue;
      }
      if (access.kind !== 'staff' || !route.url.includes(':') || route.method !== 'GET') continue;
      if (!rolesOf(access).includes('Admin')) continue;
      const response = await outsider.request('GET', fillPath(route.url, idsA), undefined, {
        csrf: CSRF_GETS.has(keyOf(route)),
      });
      expect([keyOf(route), response.statusCode >= 400]).toEqual([keyOf(route), true]);
    }
  });

  it('every integer id in a path or body at 2^31, −1, 1e309 and "1.5" answers 400 or 404, never 5xx', async () => {
    let checked = 0;
    for (const route of routes) {
      // Each route as a caller its guard lets through, so the id reaches the handler.
      const caller = callerOf(route);
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      const operation = openApi.paths[path]?.[route.method.toLowerCase()];
      const numeric = (schema: unknown) => /"(number|integer)"/.test(JSON.stringify(schema ?? {}));
      const pathIds = (operation?.parameters ?? [])
        .filter((parameter) => parameter.in === 'path' && numeric(parameter.schema))
        .map((parameter) => parameter.name);
      for (const name of pathIds) {
        for (const bad of BAD_IDS) {
          const url = fillPath(route.url, { ...idsA, [name]: encodeURIComponent(bad) });
          const response = await caller.request(
            route.method as 'POST',
            url,
            route.method === 'GET' ? undefined : {},
            { csrf: CSRF_GETS.has(keyOf(route)) },
          );
          // 400 malformed; 404 (or the route's own 403 "not yours", /userTeamsData) for an id past the range.
          expect([
            keyOf(route),
            name,
            bad,
            [400, 404].includes(response.statusCode) ||
              (bad === '2147483648' && response.statusCode === 403),
          ]).toEqual([keyOf(route), name, bad, true]);
          checked += 1;
        }
      }
      const bodySchema = operation?.requestBody?.content?.['application/json']?.schema as
        JsonSchema | undefined;
      const properties = bodySchema?.properties ?? {};
      const bodyIds = Object.entries(properties)
        .filter(([name, schema]) => /(^id|Id)$/.test(name) && numeric(schema))
        .map(([name]) => name);
      for (const name of bodyIds) {
        const rest = { ...(sampleOf(bodySchema) as Record<string, unknown>), [name]: 0 };
        for (const bad of BAD_IDS) {
          const literal = bad === '1.5' ? '"1.5"' : bad; // 1e309 as a JSON number literal (Infinity once parsed)
          const csrf = (
            await ctx.app.inject({
              method: 'GET',
              url: '/api/csrf-token',
              headers: { cookie: caller.jar.header() },
            })
          ).json().csrfToken;
          const response = await ctx.app.inject({
            method: route.method as 'POST',
            url: fillPath(route.url, idsA),
            headers: {
              cookie: caller.jar.header(),
              'x-csrf-token': csrf,
              'content-type': 'application/json',
              ...(caller instanceof BearerClient && {
                authorization: await caller.authorization(),
              }),
            },
            remoteAddress: caller.remoteAddress,
            // The other fields valid, so a well-formed id past the range reaches the handler.
            payload: JSON.stringify(rest).replace(`"${name}":0`, `"${name}":${literal}`),
          });
          expect([keyOf(route), name, bad, response.statusCode < 500]).toEqual([
            keyOf(route),
            name,
            bad,
            true,
          ]);
          if (bad !== '2147483648') {
            // A malformed id is itself refused (not only the other, missing fields). A
            // well-formed one past the column's range names no row: the route's own answer.
            expect([keyOf(route), name, bad, response.statusCode]).toEqual([
              keyOf(route),
              name,
              bad,
              400,
            ]);
            expect([
              keyOf(route),
              name,
              bad,
              (response.json().errors ?? []).some(
                (error: { field: string }) => error.field === name,
              ),
            ]).toEqual([keyOf(route), name, bad, true]);
          }
          checked += 1;
        }
      }
    }
    // Paths: participants, trials, teams, users, mails; bodies: trialId, participantId, teamId, id…
    expect(checked).toBeGreaterThan(80);
  });

  it('every string parameter at year 0000, 9999-12-31, Feb 30 and 10,000 characters, and every structured date, answers below 500', async () => {
    const stringLike = (schema: JsonSchema | undefined): boolean => {
      if (!schema || schema.enum || schema.const !== undefined) return false;
      const branch = schema.anyOf ?? schema.oneOf;
      if (branch) return branch.some(stringLike);
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      return types.includes('string');
    };
    const structuredKeys = routes
      .filter((route) => /[:/](\*|:query)(\/|$)/.test(route.url) || route.url.endsWith('*'))
      .map(keyOf);
    expect(structuredKeys.filter((key) => !(key in STRUCTURED_DATES))).toEqual([]);
    expect(Object.keys(STRUCTURED_DATES).filter((key) => !structuredKeys.includes(key))).toEqual(
      [],
    );
    const failures: string[] = [];
    const counted = { path: 0, query: 0, body: 0, structured: 0 };
    const note = (label: string, response: { statusCode: number; body: string }) => {
      if (response.statusCode >= 500)
        failures.push(`${label} → ${response.statusCode} ${response.body.slice(0, 200)}`);
    };
    for (const route of routes) {
      const key = keyOf(route);
      const caller = callerOf(route);
      const operation =
        openApi.paths[route.url.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()];
      const parameters = (operation?.parameters ?? []) as {
        in: string;
        name: string;
        schema?: JsonSchema;
      }[];
      const bodySchema = operation?.requestBody?.content?.['application/json']?.schema as
        JsonSchema | undefined;
      const body =
        route.method === 'GET'
          ? undefined
          : (BODY_SAMPLES[key] ?? (sampleOf(bodySchema) as Record<string, unknown>));
      const csrf = CSRF_GETS.has(key);
      // Path values that pass their own check: team A's ids, an enum's first value (a brand).
      const ids: Record<string, string> = { ...idsA };
      for (const parameter of parameters) {
        if (parameter.in === 'path' && parameter.schema?.enum && !(parameter.name in ids))
          ids[parameter.name] = String(parameter.schema.enum[0]);
      }
      const call = async (label: string, url: string, payload = body) => {
        const response = await caller.request(route.method as 'POST', url, payload, { csrf });
        note(`${key} ${label}`, response);
      };
      for (const parameter of parameters.filter(
        (p) => (p.in === 'path' || p.in === 'query') && stringLike(p.schema),
      )) {
        if (parameter.in === 'path' && STRUCTURED_DATES[key]?.[parameter.name]) continue;
        for (const bad of BAD_TEXTS) {
          const value = encodeURIComponent(bad);
          const url =
            parameter.in === 'path'
              ? fillPath(route.url, { ...ids, [parameter.name]: value })
              : `${fillPath(route.url, ids)}?${parameter.name}=${value}`;
          await call(`${parameter.in} ${parameter.name}=${bad.slice(0, 20)}`, url);
          counted[parameter.in as 'path' | 'query'] += 1;
        }
      }
      // And all at once, so a pair (from and to, startDate and endDate) passes its own checks together.
      const queryStrings = parameters
        .filter((p) => p.in === 'query' && stringLike(p.schema))
        .map((p) => p.name);
      if (queryStrings.length > 1) {
        for (const bad of BAD_TEXTS) {
          const search = queryStrings.map((name) => `${name}=${encodeURIComponent(bad)}`).join('&');
          await call(`query all=${bad.slice(0, 20)}`, `${fillPath(route.url, ids)}?${search}`);
          counted.query += 1;
        }
      }
      const bodyStrings = Object.entries(bodySchema?.properties ?? {})
        .filter(([, schema]) => stringLike(schema as JsonSchema))
        .map(([name]) => name);
      for (const name of bodyStrings) {
        for (const bad of BAD_TEXTS) {
          await call(`body ${name}=${bad.slice(0, 20)}`, fillPath(route.url, ids), {
            ...body,
            [name]: bad,
          });
          counted.body += 1;
        }
      }
      if (bodyStrings.length > 1) {
        for (const bad of BAD_TEXTS) {
          await call(`body all=${bad.slice(0, 20)}`, fillPath(route.url, ids), {
            ...body,
            ...Object.fromEntries(bodyStrings.map((name) => [name, bad])),
          });
          counted.body += 1;
        }
      }
      for (const [name, valuesFor] of Object.entries(STRUCTURED_DATES[key] ?? {})) {
        for (const bad of BAD_DATES) {
          for (const value of valuesFor(bad)) {
            const filled = name === '*' ? value : encodeURIComponent(value);
            await call(
              `${name}=${value}`,
              fillPath(route.url.replace('*', ':__rest'), {
                ...ids,
                [name === '*' ? '__rest' : name]: filled,
              }),
            );
            counted.structured += 1;
          }
        }
      }
    }
    expect(failures).toEqual([]);
    // Omron's since, the CSV's from/to, readings' from/to and filter, the export's dates, search texts…
    expect(counted.query).toBeGreaterThan(50);
    expect(counted.body).toBeGreaterThan(100);
    expect(counted.structured).toBeGreaterThan(40);
    // The caller was signed in throughout (no fuzzed call ended the session it ran in).
    expect((await clients.Sys_Admin.get('/api/auth/user')).statusCode).toBe(200);
  }, 120_000);
});
