import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, TEAM_MESSAGES } from '@trialpulse/shared';
import {
  globalDeviceCatalog,
  teamAllowedBrands,
  teamSupportedDevices,
  teams,
} from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient } from '../../test/fixtures';
import { auditSince, lastAuditId, signIn } from '../trials/test-support';
import { teamRecordSchema } from '@trialpulse/shared';

let ctx: TestApp;
const db = () => ctx.database.db;
let homeTeam: number;
const clients = {} as Record<(typeof ROLES)[number], TestClient>;
let sysAdminId: number;
let deviceIds: number[];

beforeAll(async () => {
  ctx = await createTestApp();
  homeTeam = (await createTeam(db())).id;
  for (const role of ROLES) {
    const account = await createStaffUser(db(), { role, teamId: homeTeam });
    if (role === 'Sys_Admin') sysAdminId = account.id;
    clients[role] = await signIn(ctx.app, db(), account);
  }
  const suffix = Date.now();
  deviceIds = (
    await db()
      .insert(globalDeviceCatalog)
      .values([
        { manufacturer: 'Fitbit', deviceType: 'TRACKER', deviceName: `Tracker ${suffix}` },
        { manufacturer: 'Omron', deviceType: 'OMRON_SCALE', deviceName: `Scale ${suffix}` },
        { manufacturer: 'Dexcom', deviceType: 'DEXCOM_CGM', deviceName: `CGM ${suffix}` },
      ])
      .returning({ id: globalDeviceCatalog.id })
  ).map((row) => row.id);
});
afterAll(() => ctx.close());

let counter = 0;
const teamName = () => `Admin test team ${Date.now()}-${++counter}`;
const fullInput = (name: string) => ({
  team_name: name,
  is_active: true,
  subscription_starts: '2026-01-01T00:00:00Z',
  subscription_ends: '2027-01-01T00:00:00+01:00',
  subscription_type: 'Annual',
  max_users: 25,
  max_trials: 5,
  max_participants: 500,
  team_admin_email: 'Lead@Example.org',
  team_admin_phone: '+44 20 7946 0000',
  organization: 'Example Institute',
  notes: 'Pilot customer',
  monthly_rate_per_participant: 12.5,
  retention_days: 90,
  storage_location: 'eu-west',
  hidden_fields: ['email'],
  allowed_brands: ['Fitbit', 'Dexcom'],
  supported_device_ids: [deviceIds[0], deviceIds[2]],
});

describe('team administration (Sys_Admin only)', () => {
  it('every call is refused for Admin, User and Viewer (403) and changes nothing', async () => {
    const before = await db().select().from(teams);
    const mark = await lastAuditId(db());
    for (const role of ['Admin', 'User', 'Viewer'] as const) {
      const client = clients[role];
      for (const response of [
        await client.get('/api/admin/teams'),
        await client.get(`/api/admin/teams/${homeTeam}`),
        await client.post('/api/admin/teams', fullInput(teamName())),
        await client.request('PUT', `/api/admin/teams/${homeTeam}`, fullInput('Hijacked')),
        await client.get('/api/admin/deviceCatalog'),
      ]) {
        expect(response.statusCode, `${role} ${response.body}`).toBe(403);
      }
    }
    expect(await db().select().from(teams)).toEqual(before);
    expect(await auditSince(db(), mark)).toEqual([]);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/admin/teams' })).statusCode).toBe(401);
  });

  it('creates a team with every field, its brands and devices, and audits it', async () => {
    const name = teamName();
    const mark = await lastAuditId(db());
    const created = await clients.Sys_Admin.post('/api/admin/teams', fullInput(name));
    expect(created.statusCode, created.body).toBe(200);
    const teamId = created.json().team_id as number;

    const record = (await clients.Sys_Admin.get(`/api/admin/teams/${teamId}`)).json();
    expect(teamRecordSchema.strict().parse(record)).toEqual({
      team_id: teamId,
      team_name: name,
      is_active: true,
      subscription_starts: '2026-01-01T00:00:00.000Z',
      subscription_ends: '2026-12-31T23:00:00.000Z',
      subscription_type: 'Annual',
      max_users: 25,
      actual_num_of_users: 0,
      max_trials: 5,
      actual_num_of_trials: 0,
      max_participants: 500,
      actual_num_of_participants: 0,
      team_admin_email: 'lead@example.org',
      team_admin_phone: '+44 20 7946 0000',
      organization: 'Example Institute',
      notes: 'Pilot customer',
      monthly_rate_per_participant: 12.5,
      retention_days: 90,
      storage_location: 'eu-west',
      hidden_fields: ['email'],
      allowed_brands: ['Fitbit', 'Dexcom'],
      supported_device_ids: [deviceIds[0], deviceIds[2]],
    });
    const list = (await clients.Sys_Admin.get('/api/admin/teams')).json() as { team_id: number }[];
    expect(list.find((team) => team.team_id === teamId)).toEqual(record);

    const audit = await auditSince(db(), mark);
    expect(audit.map((a) => [a.action, a.entityId, a.actorUserId])).toEqual([
      ['team.create', String(teamId), sysAdminId],
    ]);
    expect(audit[0]!.after).toEqual(record);
  });

  it('replaces the record and the brand and device sets (left-out ones switched off, not deleted)', async () => {
    const teamId = (await clients.Sys_Admin.post('/api/admin/teams', fullInput(teamName()))).json()
      .team_id as number;
    const before = (await clients.Sys_Admin.get(`/api/admin/teams/${teamId}`)).json();
    const mark = await lastAuditId(db());
    const changed = {
      ...fullInput(`${before.team_name} renamed`),
      is_active: false,
      max_trials: 7,
      monthly_rate_per_participant: null,
      organization: null,
      allowed_brands: ['Omron'],
      supported_device_ids: [deviceIds[1]],
    };
    const response = await clients.Sys_Admin.request('PUT', `/api/admin/teams/${teamId}`, changed);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ message: expect.any(String) });
    const after = (await clients.Sys_Admin.get(`/api/admin/teams/${teamId}`)).json();
    expect(after).toMatchObject({
      team_name: changed.team_name,
      is_active: false,
      max_trials: 7,
      monthly_rate_per_participant: null,
      organization: null,
      allowed_brands: ['Omron'],
      supported_device_ids: [deviceIds[1]],
    });
    // Rows are kept (metric settings hang off supported devices), only switched off.
    expect(
      await db().select().from(teamAllowedBrands).where(eq(teamAllowedBrands.teamId, teamId)),
    ).toHaveLength(3);
    expect(
      await db().select().from(teamSupportedDevices).where(eq(teamSupportedDevices.teamId, teamId)),
    ).toHaveLength(3);

    const [audit] = await auditSince(db(), mark);
    expect(audit).toMatchObject({
      action: 'team.update',
      entityId: String(teamId),
      actorUserId: sysAdminId,
    });
    expect(audit!.before).toEqual(before);
    expect(audit!.after).toEqual(after);

    // Empty sets switch everything off.
    await clients.Sys_Admin.request('PUT', `/api/admin/teams/${teamId}`, {
      ...changed,
      allowed_brands: [],
      supported_device_ids: [],
    });
    expect((await clients.Sys_Admin.get(`/api/admin/teams/${teamId}`)).json()).toMatchObject({
      allowed_brands: [],
      supported_device_ids: [],
    });
  });

  it('refuses a taken name (any case), unknown teams and devices, and invalid values — changing nothing', async () => {
    const name = teamName();
    const teamId = (await clients.Sys_Admin.post('/api/admin/teams', fullInput(name))).json()
      .team_id as number;
    const otherId = (await clients.Sys_Admin.post('/api/admin/teams', fullInput(teamName()))).json()
      .team_id as number;
    const snapshot = await db().select().from(teams);
    const mark = await lastAuditId(db());

    const duplicate = await clients.Sys_Admin.post(
      '/api/admin/teams',
      fullInput(name.toUpperCase()),
    );
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().message).toBe(TEAM_MESSAGES.nameTaken);
    const renameClash = await clients.Sys_Admin.request(
      'PUT',
      `/api/admin/teams/${otherId}`,
      fullInput(` ${name} `),
    );
    expect(renameClash.statusCode).toBe(409);

    const cases: [string, 'POST' | 'PUT', unknown, number, string?][] = [
      [
        'unknown device',
        'POST',
        { ...fullInput(teamName()), supported_device_ids: [2_000_000_000] },
        400,
      ],
      [
        'huge device id',
        'POST',
        { ...fullInput(teamName()), supported_device_ids: [2 ** 40] },
        400,
      ],
      ['no name', 'POST', { ...fullInput(''), team_name: ' ' }, 400, TEAM_MESSAGES.nameRequired],
      [
        'negative limit',
        'POST',
        { ...fullInput(teamName()), max_trials: -1 },
        400,
        TEAM_MESSAGES.limitNegative,
      ],
      [
        'retention 0',
        'POST',
        { ...fullInput(teamName()), retention_days: 0 },
        400,
        TEAM_MESSAGES.retentionMin,
      ],
      ['huge limit', 'POST', { ...fullInput(teamName()), max_users: 2 ** 40 }, 400],
      ['huge rate', 'POST', { ...fullInput(teamName()), monthly_rate_per_participant: 1e12 }, 400],
      ['unknown brand', 'POST', { ...fullInput(teamName()), allowed_brands: ['Garmin'] }, 400],
      [
        'ends before start',
        'PUT',
        {
          ...fullInput(name),
          subscription_starts: '2027-01-01T00:00:00Z',
          subscription_ends: '2026-01-01T00:00:00Z',
        },
        400,
        TEAM_MESSAGES.endsBeforeStart,
      ],
      [
        'ends before start across offsets',
        'PUT',
        {
          ...fullInput(name),
          subscription_starts: '2026-06-01T09:00:00Z',
          subscription_ends: '2026-06-01T10:00:00+05:00',
        },
        400,
        TEAM_MESSAGES.endsBeforeStart,
      ],
      ['unknown team', 'PUT', fullInput(teamName()), 404],
    ];
    for (const [label, method, body, status, message] of cases) {
      const url =
        method === 'POST'
          ? '/api/admin/teams'
          : label === 'unknown team'
            ? '/api/admin/teams/2000000000'
            : `/api/admin/teams/${teamId}`;
      const response = await clients.Sys_Admin.request(method, url, body);
      expect(response.statusCode, `${label}: ${response.body}`).toBe(status);
      if (message) expect(response.json().message, label).toBe(message);
    }
    expect((await clients.Sys_Admin.get('/api/admin/teams/99999999999')).statusCode).toBe(404);
    expect(await db().select().from(teams)).toEqual(snapshot);
    expect(await auditSince(db(), mark)).toEqual([]);
  });

  it('lists the device catalog', async () => {
    const catalog = (await clients.Sys_Admin.get('/api/admin/deviceCatalog')).json() as {
      id: number;
    }[];
    expect(catalog).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: deviceIds[1],
          manufacturer: 'Omron',
          device_type: 'OMRON_SCALE',
        }),
      ]),
    );
    expect(Object.keys(catalog[0]!).sort()).toEqual([
      'device_name',
      'device_type',
      'id',
      'manufacturer',
    ]);
  });
});
