import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_STAFF, EDITORS, ROLES, SYS_ADMIN_ONLY, type Role } from '@trialpulse/shared';
import { participants, teamAllowedBrands, teams } from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient, type TestUser } from '../../test/fixtures';
import { auditSince, lastAuditId, signIn } from '../trials/test-support';
import { addParticipant, createTrial, teamParticipants } from './test-support';

/**
 * Spec §6 through the API: each role × each participant call, and tenancy: users of team B
 * reach none of team A's participants or trials (404 on every call, nothing changes,
 * nothing leaks); a User or Viewer reaches only the trials they are trial users of.
 */
let ctx: TestApp;
const db = () => ctx.database.db;
let teamA: number;
let teamB: number;
const usersA = {} as Record<Role, TestUser>;
const clientsA = {} as Record<Role, TestClient>;
const clientsB = {} as Record<Role, TestClient>;
let userNotInTrial: TestClient;
let viewerNotInTrial: TestClient;

beforeAll(async () => {
  ctx = await createTestApp();
  teamA = (await createTeam(db(), { maxTrials: 500, maxParticipants: 5000, hiddenFields: [] })).id;
  teamB = (await createTeam(db(), { maxTrials: 500, maxParticipants: 5000, hiddenFields: [] })).id;
  for (const role of ROLES) {
    usersA[role] = await createStaffUser(db(), { role, teamId: teamA });
    clientsA[role] = await signIn(ctx.app, db(), usersA[role]);
    clientsB[role] = await signIn(
      ctx.app,
      db(),
      await createStaffUser(db(), { role, teamId: teamB }),
    );
  }
  userNotInTrial = await signIn(
    ctx.app,
    db(),
    await createStaffUser(db(), { role: 'User', teamId: teamA }),
  );
  viewerNotInTrial = await signIn(
    ctx.app,
    db(),
    await createStaffUser(db(), { role: 'Viewer', teamId: teamA }),
  );
  await db().insert(teamAllowedBrands).values({ teamId: teamA, brandName: 'Fitbit' });
});
afterAll(() => ctx.close());

let emailCounter = 0;
const uniqueEmail = () => `access-${process.pid}-${++emailCounter}@study.example.org`;

type Fixture = {
  trialId: number;
  participantId: number;
  code: string;
  trialCode: string;
  email: string;
};

/** A trial of team A (User and Viewer are trial users) with one participant that has an email and notes. */
async function fixture(): Promise<Fixture> {
  const trial = await createTrial(db(), clientsA.Admin, [usersA.User.email, usersA.Viewer.email]);
  const email = uniqueEmail();
  const added = await addParticipant(clientsA.Admin, {
    trialId: trial.id,
    email,
    gender: 'female',
    age: 50,
    notes: 'fixture notes',
  });
  return {
    trialId: trial.id,
    participantId: added.participantId,
    code: added.participant_code,
    trialCode: trial.trialCode,
    email,
  };
}

type Call = {
  allowed: readonly Role[];
  /** The action a successful call writes to the audit log (writes only). */
  audits?: string;
  send: (client: TestClient, f: Fixture, teamId: number) => ReturnType<TestClient['get']>;
};

let suffixCounter = 100;
/** Every participant route with the roles spec §6 allows. */
const CALLS: Record<string, Call> = {
  'GET /api/trialParticipants/{trialId}': {
    allowed: ALL_STAFF,
    send: (client, f) => client.get(`/api/trialParticipants/${f.trialId}`),
  },
  'GET /api/trialParticipants/{trialId}/trialCode': {
    allowed: ALL_STAFF,
    send: (client, f) => client.get(`/api/trialParticipants/${f.trialId}/trialCode`),
  },
  'POST /api/trialParticipants': {
    allowed: EDITORS,
    audits: 'participant.create',
    send: (client, f) =>
      client.post('/api/trialParticipants', {
        trialId: f.trialId,
        gender: 'male',
        email: uniqueEmail(),
        codeSuffix: String(++suffixCounter),
      }),
  },
  'PUT /api/participant': {
    allowed: EDITORS,
    audits: 'participant.update',
    send: (client, f) =>
      client.request('PUT', '/api/participant', {
        id: f.participantId,
        gender: 'other',
        age: 51,
        notes: 'edited',
        email: uniqueEmail(),
      }),
  },
  'PATCH /api/trialParticipants/{trialId}/{participantId}/code': {
    allowed: EDITORS,
    audits: 'participant.code_change',
    send: (client, f) =>
      client.request('PATCH', `/api/trialParticipants/${f.trialId}/${f.participantId}/code`, {
        suffix: String(++suffixCounter),
      }),
  },
  'DELETE /api/participant': {
    allowed: EDITORS,
    audits: 'participant.delete',
    send: (client, f) => client.request('DELETE', '/api/participant', { id: f.participantId }),
  },
  'GET /api/participant/{id}': {
    allowed: ALL_STAFF,
    send: (client, f) => client.get(`/api/participant/${f.participantId}`),
  },
  'GET /api/participant/{id}/raw': {
    allowed: SYS_ADMIN_ONLY,
    send: (client, f) => client.get(`/api/participant/${f.participantId}/raw`),
  },
  'GET /api/teamAllowedDevices/{teamId}': {
    allowed: ALL_STAFF,
    send: (client, _f, teamId) => client.get(`/api/teamAllowedDevices/${teamId}`),
  },
  'GET /api/teamSupportedDevices/{teamId}': {
    allowed: ALL_STAFF,
    send: (client, _f, teamId) => client.get(`/api/teamSupportedDevices/${teamId}`),
  },
};

/** Everything a call could change in a team, plus its participant counter. */
async function teamState(teamId: number) {
  const [team] = await db().select().from(teams).where(eq(teams.id, teamId));
  return { rows: await teamParticipants(db(), teamId), count: team!.actualNumOfParticipants };
}

describe('role matrix (spec §6)', () => {
  it('covers every participant route the API documents', async () => {
    const docs = (await ctx.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, object>;
    };
    const documented = Object.entries(docs.paths)
      .filter(([path]) =>
        /^\/api\/(trialParticipants|participant|teamAllowedDevices|teamSupportedDevices)(\/|$)/.test(
          path,
        ),
      )
      .flatMap(([path, methods]) =>
        Object.keys(methods)
          .filter((m) => m !== 'head')
          .map((m) => `${m.toUpperCase()} ${path}`),
      );
    expect(documented.sort()).toEqual(Object.keys(CALLS).sort());
  });

  for (const [name, call] of Object.entries(CALLS)) {
    for (const role of ROLES) {
      const allowed = call.allowed.includes(role);
      it(`${name} as ${role} → ${allowed ? 'allowed' : '403'}`, async () => {
        const f = await fixture();
        const before = await teamState(teamA);
        const auditMark = await lastAuditId(db());
        const response = await call.send(clientsA[role], f, teamA);
        if (allowed) {
          expect(response.statusCode, response.body).toBe(200);
          const audit = await auditSince(db(), auditMark);
          expect(audit.map((a) => [a.action, a.actorUserId, a.teamId])).toEqual(
            call.audits ? [[call.audits, usersA[role].id, teamA]] : [],
          );
          if (!call.audits) expect(await teamState(teamA)).toEqual(before);
        } else {
          expect(response.statusCode, response.body).toBe(403);
          expect(response.json().reason).toBe('FORBIDDEN');
          expect(response.body).not.toContain(f.email);
          expect(response.body).not.toContain(f.code);
          expect(await teamState(teamA)).toEqual(before);
          expect(await auditSince(db(), auditMark)).toEqual([]);
        }
      });
    }
  }
});

/** The body must not reveal anything of team A's trial or participant. */
function expectNoLeak(body: string, f: Fixture) {
  for (const secret of [f.email, f.code, f.trialCode, 'fixture notes']) {
    expect(body).not.toContain(secret);
  }
}

describe("tenancy: users of team B and team A's participants", () => {
  for (const role of ROLES) {
    it(`${role} of team B gets 404 on every call (403 where the role is refused), nothing changes`, async () => {
      const f = await fixture();
      // Team B has a trial and participant of its own with the same suffix.
      const ownTrial = await createTrial(db(), clientsB.Admin, []);
      await addParticipant(clientsB.Admin, { trialId: ownTrial.id, codeSuffix: '001' });
      const before = await teamState(teamA);
      const auditMark = await lastAuditId(db());
      const client = clientsB[role];

      for (const [name, call] of Object.entries(CALLS)) {
        const response = await call.send(client, f, teamA);
        const expected = call.allowed.includes(role) ? 404 : 403;
        expect(response.statusCode, `${name}: ${response.body}`).toBe(expected);
        expectNoLeak(response.body, f);
      }
      // Extra shapes: B's own trial with A's participant, A's trial with B's participant id.
      const extra = [
        await client.request(
          'PATCH',
          `/api/trialParticipants/${ownTrial.id}/${f.participantId}/code`,
          { suffix: '9' },
        ),
        await client.request('PUT', '/api/participant', { id: f.participantId, gender: 'male' }),
      ];
      for (const response of extra) {
        expect(response.statusCode).toBe(role === 'Viewer' ? 403 : 404);
        expectNoLeak(response.body, f);
      }
      expect(await teamState(teamA)).toEqual(before);
      const audit = await auditSince(db(), auditMark);
      expect(audit.filter((a) => a.teamId === teamA)).toEqual([]);
      expect(audit).toEqual([]);
    });
  }

  it("B's own calls never show A's participants", async () => {
    const f = await fixture();
    const ownTrial = await createTrial(db(), clientsB.Admin, []);
    await addParticipant(clientsB.Admin, { trialId: ownTrial.id });
    const list = await clientsB.Admin.get(`/api/trialParticipants/${ownTrial.id}`);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toHaveLength(1);
    expectNoLeak(list.body, f);
    const brands = await clientsB.Admin.get(`/api/teamAllowedDevices/${teamB}`);
    expect(brands.json()).toEqual([]);
  });

  it('mass assignment: teamId in the add body is ignored', async () => {
    const ownTrial = await createTrial(db(), clientsB.Admin, []);
    const response = await clientsB.Admin.post('/api/trialParticipants', {
      trialId: ownTrial.id,
      gender: 'none',
      teamId: teamA,
      team_id: teamA,
    });
    expect(response.statusCode).toBe(200);
    const [row] = await db()
      .select()
      .from(participants)
      .where(eq(participants.id, response.json().participantId));
    expect(row!.teamId).toBe(teamB);
  });
});

describe('visibility inside the team (decision 0009): User and Viewer see only their trials', () => {
  it('a User or Viewer who is not a trial user gets 404 on every call for that trial, nothing changes', async () => {
    const f = await fixture();
    const before = await teamState(teamA);
    const auditMark = await lastAuditId(db());
    for (const [client, role] of [
      [userNotInTrial, 'User'],
      [viewerNotInTrial, 'Viewer'],
    ] as const) {
      for (const [name, call] of Object.entries(CALLS)) {
        if (name.includes('{teamId}')) continue; // team-wide, not trial-scoped
        const response = await call.send(client, f, teamA);
        const expected = call.allowed.includes(role) ? 404 : 403;
        expect(response.statusCode, `${role} ${name}: ${response.body}`).toBe(expected);
        expectNoLeak(response.body, f);
      }
    }
    expect(await teamState(teamA)).toEqual(before);
    expect(await auditSince(db(), auditMark)).toEqual([]);
  });
});

describe('plumbing of the write routes', () => {
  it('a write without the CSRF header is 403 and changes nothing', async () => {
    const f = await fixture();
    const before = await teamState(teamA);
    const auditMark = await lastAuditId(db());
    const cookie = clientsA.Admin.jar.header();
    for (const [method, url, payload] of [
      ['POST', '/api/trialParticipants', { trialId: f.trialId, gender: 'none' }],
      ['PUT', '/api/participant', { id: f.participantId, gender: 'male' }],
      ['PATCH', `/api/trialParticipants/${f.trialId}/${f.participantId}/code`, { suffix: '9' }],
      ['DELETE', '/api/participant', { id: f.participantId }],
    ] as const) {
      const response = await ctx.app.inject({ method, url, payload, headers: { cookie } });
      expect(response.statusCode, `${method} ${url}`).toBe(403);
      expect(response.json().reason).toBe('CSRF_TOKEN_INVALID');
    }
    expect(await teamState(teamA)).toEqual(before);
    expect(await auditSince(db(), auditMark)).toEqual([]);
  });

  it('odd inputs never cause a server error (400/404/409 only) and never touch another team', async () => {
    const f = await fixture();
    const bState = await teamState(teamB);
    const odd: unknown[] = [
      null,
      true,
      -1,
      0,
      1.5,
      2 ** 31,
      2 ** 53,
      '',
      ' ',
      'x'.repeat(5000),
      '1; drop table participants',
      "' OR 1=1 --",
      '\u0000',
      '١٢٣',
      [],
      [1],
      {},
      { $gt: 0 },
    ];
    const statuses = new Set<number>();
    const client = clientsA.Admin;
    for (const value of odd) {
      const responses = [
        await client.post('/api/trialParticipants', { trialId: value, gender: 'none' }),
        await client.post('/api/trialParticipants', { trialId: f.trialId, gender: value }),
        await client.post('/api/trialParticipants', {
          trialId: f.trialId,
          gender: 'none',
          age: value,
        }),
        await client.post('/api/trialParticipants', {
          trialId: f.trialId,
          gender: 'none',
          email: value,
        }),
        await client.post('/api/trialParticipants', {
          trialId: f.trialId,
          gender: 'none',
          notes: value,
        }),
        await client.post('/api/trialParticipants', {
          trialId: f.trialId,
          gender: 'none',
          codeSuffix: value,
        }),
        await client.request('PUT', '/api/participant', { id: value, gender: 'none' }),
        await client.request(
          'PATCH',
          `/api/trialParticipants/${f.trialId}/${f.participantId}/code`,
          {
            suffix: value,
          },
        ),
        await client.request('DELETE', '/api/participant', { id: value }),
        await client.get(`/api/participant/${encodeURIComponent(String(value))}`),
        await client.get(`/api/trialParticipants/${encodeURIComponent(String(value))}`),
      ];
      for (const response of responses) {
        statuses.add(response.statusCode);
        expect(response.statusCode, `${JSON.stringify(value)}: ${response.body}`).toBeLessThan(500);
        expect(response.body).not.toMatch(/drizzle|select |insert |SQLSTATE|constraint/i);
      }
    }
    // 414: a 5000-character path parameter (beyond the router's limit).
    expect([...statuses].filter((s) => ![200, 400, 404, 409, 414].includes(s))).toEqual([]);
    expect(await teamState(teamB)).toEqual(bState);
    // The fixture participant is still there (no odd id deleted it).
    const [row] = await db()
      .select()
      .from(participants)
      .where(eq(participants.id, f.participantId));
    expect(row).toBeDefined();
  });
});
