import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMINS, ALL_STAFF, EDITORS, ROLES, TRIAL_MESSAGES, type Role } from '@trialpulse/shared';
import { trialUsers, trials } from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient, type TestUser } from '../../test/fixtures';
import { auditSince, lastAuditId, signIn } from './test-support';

/**
 * Spec §6 through the API: each role × each trial and trial-user call, and tenancy: a
 * user of team B reaches none of team A's trials (404, nothing changes, nothing leaks).
 */
let ctx: TestApp;
const db = () => ctx.database.db;
let teamA: number;
let teamB: number;
const usersA = {} as Record<Role, TestUser>;
const clientsA = {} as Record<Role, TestClient>;
let member: TestUser;
let outsider: TestUser;
const clientsB = {} as Record<'Sys_Admin' | 'Admin', TestClient>;

beforeAll(async () => {
  ctx = await createTestApp();
  teamA = (await createTeam(db(), { maxTrials: 100 })).id;
  teamB = (await createTeam(db(), { maxTrials: 100 })).id;
  for (const role of ROLES) {
    usersA[role] = await createStaffUser(db(), { role, teamId: teamA });
    clientsA[role] = await signIn(ctx.app, db(), usersA[role]);
  }
  member = await createStaffUser(db(), { role: 'User', teamId: teamA });
  outsider = await createStaffUser(db(), { role: 'User', teamId: teamB });
  for (const role of ['Sys_Admin', 'Admin'] as const) {
    clientsB[role] = await signIn(
      ctx.app,
      db(),
      await createStaffUser(db(), { role, teamId: teamB }),
    );
  }
});
afterAll(() => ctx.close());

let counter = 0;
const uniqueNumber = () => `ACC-${++counter}`;

/** A trial of team A made by its Admin, with the User and Viewer as trial users. */
async function fixtureTrial(): Promise<number> {
  const admin = clientsA.Admin;
  const created = await admin.post('/api/userTrials', {
    trialNumber: uniqueNumber(),
    trialName: 'Access fixture',
    trialNotes: '',
  });
  expect(created.statusCode, created.body).toBe(200);
  const trialId = created.json().trialId as number;
  for (const role of ['User', 'Viewer'] as const) {
    const added = await admin.post('/api/trialUsers', { userEmail: usersA[role].email, trialId });
    expect(added.statusCode, added.body).toBe(200);
  }
  return trialId;
}

type Call = {
  allowed: readonly Role[];
  /** Prepares what the call needs (run by team A's Admin) and answers its arguments. */
  prepare: () => Promise<{ trialId: number }>;
  send: (client: TestClient, trialId: number) => ReturnType<TestClient['get']>;
};

/** Every trial and trial-user route with the roles spec §6 allows. */
const CALLS: Record<string, Call> = {
  'GET /api/userTrials': {
    allowed: ALL_STAFF,
    prepare: async () => ({ trialId: await fixtureTrial() }),
    send: (client) => client.get('/api/userTrials/'),
  },
  'POST /api/userTrials': {
    allowed: ADMINS,
    prepare: async () => ({ trialId: 0 }),
    send: (client) =>
      client.post('/api/userTrials', {
        trialNumber: uniqueNumber(),
        trialName: 'New',
        trialNotes: 'n',
      }),
  },
  'PUT /api/userTrials': {
    allowed: EDITORS,
    prepare: async () => ({ trialId: await fixtureTrial() }),
    send: (client, trialId) =>
      client.request('PUT', '/api/userTrials', {
        trialId,
        trialNumber: uniqueNumber(),
        trialName: 'Edited',
        trialNotes: '',
      }),
  },
  'DELETE /api/userTrials': {
    allowed: ADMINS,
    prepare: async () => ({ trialId: await fixtureTrial() }),
    send: (client, trialId) => client.request('DELETE', '/api/userTrials', { trialId }),
  },
  'GET /api/trialUsers/{trialId}': {
    allowed: ADMINS,
    prepare: async () => ({ trialId: await fixtureTrial() }),
    send: (client, trialId) => client.get(`/api/trialUsers/${trialId}`),
  },
  'GET /api/teamUsers/{trialId}': {
    allowed: ADMINS,
    prepare: async () => ({ trialId: await fixtureTrial() }),
    send: (client, trialId) => client.get(`/api/teamUsers/${trialId}`),
  },
  'POST /api/trialUsers': {
    allowed: ADMINS,
    prepare: async () => ({ trialId: await fixtureTrial() }),
    send: (client, trialId) => client.post('/api/trialUsers', { userEmail: member.email, trialId }),
  },
  'DELETE /api/trialUsers': {
    allowed: ADMINS,
    prepare: async () => {
      const trialId = await fixtureTrial();
      expect(
        (await clientsA.Admin.post('/api/trialUsers', { userEmail: member.email, trialId }))
          .statusCode,
      ).toBe(200);
      return { trialId };
    },
    send: (client, trialId) =>
      client.request('DELETE', '/api/trialUsers', {
        userId: member.id,
        userEmail: member.email,
        trialId,
      }),
  },
};

/** Snapshot of everything a call could change about one trial. */
async function trialState(trialId: number) {
  const [trial] = await db().select().from(trials).where(eq(trials.id, trialId));
  const users = (
    await db()
      .select({ userId: trialUsers.userId })
      .from(trialUsers)
      .where(eq(trialUsers.trialId, trialId))
  )
    .map((row) => row.userId)
    .sort();
  return { trial, users };
}

describe('role matrix (spec §6)', () => {
  it('covers every trial and trial-user route the API documents', async () => {
    const docs = (await ctx.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, object>;
    };
    const documented = Object.entries(docs.paths)
      .filter(([path]) => /\/(userTrials|trialUsers|teamUsers)\b/.test(path))
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
        const { trialId } = await call.prepare();
        const before = trialId ? await trialState(trialId) : undefined;
        const auditMark = await lastAuditId(db());
        const response = await call.send(clientsA[role], trialId);
        if (allowed) {
          expect(response.statusCode, response.body).toBe(200);
        } else {
          expect(response.statusCode, response.body).toBe(403);
          expect(response.json().reason).toBe('FORBIDDEN');
          if (before) expect(await trialState(trialId)).toEqual(before);
          expect(await auditSince(db(), auditMark)).toEqual([]);
        }
      });
    }
  }
});

describe('tenancy: a user of team B and team A trials', () => {
  for (const role of ['Sys_Admin', 'Admin'] as const) {
    it(`${role} of team B gets 404 "Trial not found." on every call, and nothing changes`, async () => {
      const trialId = await fixtureTrial();
      await clientsA.Admin.post('/api/trialUsers', { userEmail: member.email, trialId });
      const before = await trialState(trialId);
      const auditMark = await lastAuditId(db());
      const client = clientsB[role];

      const list = await client.get('/api/userTrials');
      expect(list.statusCode).toBe(200);
      expect(list.json().map((trial: { trialId: number }) => trial.trialId)).not.toContain(trialId);
      expect(list.json().every((trial: { teamId: number }) => trial.teamId === teamB)).toBe(true);

      const attempts = [
        client.request('PUT', '/api/userTrials', {
          trialId,
          trialNumber: 'HIJACK',
          trialName: 'Hijacked',
          trialNotes: 'x',
        }),
        client.request('DELETE', '/api/userTrials', { trialId }),
        client.request('DELETE', '/api/userTrials', { trialId, cascade: true }),
        client.get(`/api/trialUsers/${trialId}`),
        client.get(`/api/teamUsers/${trialId}`),
        client.post('/api/trialUsers', { userEmail: outsider.email, trialId }),
        client.post('/api/trialUsers', { userEmail: member.email, trialId }),
        client.request('DELETE', '/api/trialUsers', {
          userId: member.id,
          userEmail: member.email,
          trialId,
        }),
        client.request('DELETE', '/api/trialUsers', {
          userId: usersA.Admin.id,
          userEmail: usersA.Admin.email,
          trialId,
        }),
      ];
      for (const response of await Promise.all(attempts)) {
        expect(response.statusCode, response.body).toBe(404);
        expect(response.json().message).toBe(TRIAL_MESSAGES.notFound);
        expect(response.body).not.toContain('Access fixture');
        expect(response.body).not.toContain(usersA.Admin.email);
      }
      expect(await trialState(trialId)).toEqual(before);
      expect(await auditSince(db(), auditMark)).toEqual([]);
    });
  }

  it('an id that cannot exist is a 404 too, not a server error', async () => {
    for (const response of [
      await clientsA.Admin.get('/api/trialUsers/2147483648'),
      await clientsA.Admin.get('/api/teamUsers/99999999999999'),
      await clientsA.Admin.request('PUT', '/api/userTrials', {
        trialId: 2 ** 40,
        trialNumber: 'X',
        trialName: 'Y',
      }),
      await clientsA.Admin.request('DELETE', '/api/trialUsers', {
        userId: 2 ** 40,
        trialId: 2 ** 40,
      }),
    ]) {
      expect(response.statusCode, response.body).toBe(404);
    }
  });

  it("team A's Admin cannot add a member of team B to a trial (400, not in team)", async () => {
    const trialId = await fixtureTrial();
    const response = await clientsA.Admin.post('/api/trialUsers', {
      userEmail: outsider.email,
      trialId,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      message: 'This user is not a member of your team.',
      displayToUser: true,
    });
    const teamUsers = (await clientsA.Admin.get(`/api/teamUsers/${trialId}`)).json() as {
      email: string;
    }[];
    expect(teamUsers.map((user) => user.email)).not.toContain(outsider.email);
  });

  it('mass assignment: teamId and ownership in a body are ignored', async () => {
    const response = await clientsB.Admin.post('/api/userTrials', {
      trialNumber: uniqueNumber(),
      trialName: 'Mass assignment',
      trialNotes: '',
      teamId: teamA,
      team_id: teamA,
      ownerUserId: usersA.Admin.id,
    });
    expect(response.statusCode).toBe(200);
    const [row] = await db().select().from(trials).where(eq(trials.id, response.json().trialId));
    expect(row).toMatchObject({ teamId: teamB });
    expect(row!.ownerUserId).not.toBe(usersA.Admin.id);
  });
});
