import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PAGING,
  PAGING_MESSAGES,
  ROLES,
  SYS_ADMIN_TABLES,
  sysAdminColumns,
} from '@trialpulse/shared';
import {
  globalDeviceCatalog,
  participantDevices,
  participants,
  teamAllowedBrands,
  teamDeviceDataStorageSettings,
  teamSupportedDevices,
  trials,
} from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient } from '../../test/fixtures';
import { signIn } from '../trials/test-support';

let ctx: TestApp;
const db = () => ctx.database.db;
const clients = {} as Record<(typeof ROLES)[number], TestClient>;
let open: { id: number; teamName: string };
let hiding: { id: number; teamName: string };
let openDevice: number;

beforeAll(async () => {
  ctx = await createTestApp();
  open = await createTeam(db(), { hiddenFields: [] });
  hiding = await createTeam(db(), { hiddenFields: ['email', 'notes'] });
  let ownerId = 0;
  for (const role of ROLES) {
    const account = await createStaffUser(db(), { role, teamId: open.id });
    if (role === 'Admin') ownerId = account.id;
    clients[role] = await signIn(ctx.app, db(), account);
  }
  const [device] = await db()
    .insert(globalDeviceCatalog)
    .values({ manufacturer: 'Omron', deviceType: 'OMRON_SCALE', deviceName: `Scale ${Date.now()}` })
    .returning();
  await db().insert(teamAllowedBrands).values({ teamId: open.id, brandName: 'Omron' });
  const supported = await db()
    .insert(teamSupportedDevices)
    .values([
      { teamId: open.id, globalDeviceCatalogId: device!.id },
      { teamId: hiding.id, globalDeviceCatalogId: device!.id },
    ])
    .returning();
  openDevice = supported[0]!.id;
  await db().insert(teamDeviceDataStorageSettings).values({
    teamId: open.id,
    teamSupportedDeviceId: openDevice,
    metricKey: 'weight',
    metricName: 'Weight',
  });
  const trialRows = await db()
    .insert(trials)
    .values([
      {
        teamId: open.id,
        trialNumber: 'OPEN-1',
        trialName: 'Open trial',
        trialCode: 'OPEN',
        ownerUserId: ownerId,
      },
      {
        teamId: hiding.id,
        trialNumber: 'HIDE-1',
        trialName: 'Hiding trial',
        trialCode: 'HIDE',
        ownerUserId: ownerId,
      },
    ])
    .returning();
  // 120 participants in the open team, 3 in the hiding team.
  const rows = [
    ...Array.from({ length: 120 }, (_, index) => ({
      teamId: open.id,
      trialId: trialRows[0]!.id,
      participantCode: `OPEN-${String(index + 1).padStart(3, '0')}`,
      participantCodeSuffix: String(index + 1).padStart(3, '0'),
      email: `open.${String(index + 1).padStart(3, '0')}@example.org`,
      age: 20 + (index % 50),
      notes: 'visible note',
    })),
    ...[1, 2, 3].map((n) => ({
      teamId: hiding.id,
      trialId: trialRows[1]!.id,
      participantCode: `HIDE-${n}`,
      participantCodeSuffix: String(n),
      email: `secret.${n}@example.org`,
      notes: 'secret note',
    })),
  ];
  const inserted = await db().insert(participants).values(rows).returning();
  await db()
    .insert(participantDevices)
    .values([
      {
        teamId: open.id,
        participantId: inserted[0]!.id,
        globalDeviceCatalogId: device!.id,
        upstream: 'omron',
      },
      {
        teamId: hiding.id,
        participantId: inserted.at(-1)!.id,
        globalDeviceCatalogId: device!.id,
        upstream: 'omron',
      },
    ]);
});
afterAll(() => ctx.close());

type PageBody = {
  rows: Record<string, unknown>[];
  total: number;
  totalIsExact: boolean;
};

describe('Database Info lists (/api/sysAdmin*Data)', () => {
  it('each of the ten answers Sys_Admin a page of 50 with exactly its fields, and 403 to every other role', async () => {
    for (const table of SYS_ADMIN_TABLES) {
      const response = await clients.Sys_Admin.get(`/api${table.path}?pageSize=50`);
      expect(response.statusCode, `${table.path} ${response.body}`).toBe(200);
      const body = response.json() as PageBody;
      expect(body.rows.length).toBeLessThanOrEqual(50);
      expect(body.totalIsExact).toBe(true);
      expect(body.total, table.path).toBeGreaterThan(0);
      const optional = new Set(['email', 'notes', 'participant_email']);
      const open = body.rows.find(
        (row) => Object.keys(row).length === sysAdminColumns(table.key).length,
      );
      expect(Object.keys(open ?? body.rows[0]!).sort(), table.path).toEqual(
        sysAdminColumns(table.key)
          .filter((column) => open || !optional.has(column))
          .sort(),
      );
      for (const role of ['Admin', 'User', 'Viewer'] as const) {
        expect(
          (await clients[role].get(`/api${table.path}`)).statusCode,
          `${role} ${table.path}`,
        ).toBe(403);
      }
    }
  });

  it('pages the participant table 50 rows at a time on the server, with the filtered total', async () => {
    const sys = clients.Sys_Admin;
    const url = (query: string) => `/api/sysAdminParticipantsData?pageSize=50&${query}`;
    const pages = [];
    for (const page of [0, 1, 2]) {
      pages.push(
        (await sys.get(url(`filter=open.&sortBy=email&pageIndex=${page}`))).json() as PageBody,
      );
    }
    expect(pages.map((page) => page.rows.length)).toEqual([50, 50, 20]);
    expect(pages.every((page) => page.total === 120)).toBe(true);
    expect(pages[0]!.rows[0]!.email).toBe('open.001@example.org');
    expect(pages[2]!.rows.at(-1)!.email).toBe('open.120@example.org');
    const desc = (
      await sys.get(
        url('filter=OPEN.&sortBy=email&sortDir=desc').replace('pageSize=50', 'pageSize=10'),
      )
    ).json() as PageBody;
    expect(desc.rows.map((row) => row.email)).toEqual(
      Array.from({ length: 10 }, (_, index) => `open.${120 - index}@example.org`),
    );
    const one = (await sys.get(url('filter=open.077'))).json() as PageBody;
    expect(one.total).toBe(1);
    expect(one.rows[0]).toMatchObject({
      email: 'open.077@example.org',
      team_name: open.teamName,
      trial_number: 'OPEN-1',
    });
    // "%" and "_" are text, not patterns.
    expect(((await sys.get(url('filter=%25'))).json() as PageBody).total).toBe(0);
  });

  it('leaves out the email (and notes) of a team that hides them, and never matches the filter on them', async () => {
    const sys = clients.Sys_Admin;
    const body = (
      await sys.get(
        `/api/sysAdminParticipantsData?pageSize=50&filter=${encodeURIComponent(hiding.teamName)}`,
      )
    ).json() as PageBody;
    expect(body.total).toBe(3);
    for (const row of body.rows) {
      expect(row).not.toHaveProperty('email');
      expect(row).not.toHaveProperty('notes');
      expect(row.team_name).toBe(hiding.teamName);
    }
    expect(
      (
        (
          await sys.get('/api/sysAdminParticipantsData?pageSize=50&filter=secret')
        ).json() as PageBody
      ).total,
    ).toBe(0);
    const devices = (
      await sys.get('/api/sysAdminParticipantDevicesData?pageSize=50')
    ).json() as PageBody;
    const hidden = devices.rows.find((row) => row.team_name === hiding.teamName)!;
    expect(hidden).not.toHaveProperty('participant_email');
    expect(devices.rows.find((row) => row.team_name === open.teamName)!.participant_email).toBe(
      'open.001@example.org',
    );
    expect(body.rows.some((row) => JSON.stringify(row).includes('secret'))).toBe(false);
  });

  it('narrows the team supported devices to one team (the manager’s device dropdown)', async () => {
    const body = (
      await clients.Sys_Admin.get(
        `/api/sysAdminTeamSupportedDevicesData?pageSize=50&team_id=${open.id}`,
      )
    ).json() as PageBody;
    expect(body.total).toBe(1);
    expect(body.rows[0]).toMatchObject({
      id: openDevice,
      team_id: open.id,
      device_type: 'OMRON_SCALE',
      is_active: true,
    });
  });

  it('refuses an unknown sort column and out-of-range paging with 400; no paging answers the whole list', async () => {
    const sys = clients.Sys_Admin;
    const bad = await sys.get('/api/sysAdminTeamsData?sortBy=password_hash');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe(PAGING_MESSAGES.sortBy);
    expect((await sys.get('/api/sysAdminTeamsData?pageSize=0')).json().message).toBe(
      PAGING_MESSAGES.pageSize,
    );
    expect((await sys.get('/api/sysAdminTeamsData?pageIndex=-1')).json().message).toBe(
      PAGING_MESSAGES.pageIndex,
    );
    // The manager's team dropdown: every team, as the spec's call answers (an array).
    const teams = (await sys.get('/api/sysAdminTeamsData?sortBy=team_name')).json() as {
      team_id: number;
    }[];
    expect(Array.isArray(teams)).toBe(true);
    expect(teams.map((row) => row.team_id)).toEqual(expect.arrayContaining([open.id, hiding.id]));
    const everyone = (await sys.get('/api/sysAdminParticipantsData')).json() as unknown[];
    expect(everyone).toHaveLength(123);
  });

  it('counts exactly up to 10,000 rows, then answers an estimate marked inexact', async () => {
    const sys = clients.Sys_Admin;
    await db().execute(sql`
      INSERT INTO global_device_catalog (manufacturer, device_type, device_name)
      SELECT 'Fitbit', 'TRACKER', 'Bulk device ' || n FROM generate_series(1, 10050) AS n`);
    const counted = await db().execute(sql`SELECT count(*)::int AS n FROM global_device_catalog`);
    const actual = (counted.rows[0] as { n: number }).n;
    const before = (
      await sys.get('/api/sysAdminGlobalDeviceCatalogData?pageSize=50')
    ).json() as PageBody;
    expect(before).toMatchObject({ totalIsExact: false });
    expect(before.total).toBeGreaterThan(PAGING.exactCountLimit);
    await db().execute(sql`ANALYZE global_device_catalog`);
    const after = (
      await sys.get('/api/sysAdminGlobalDeviceCatalogData?pageSize=50&pageIndex=3')
    ).json() as PageBody;
    expect(after).toMatchObject({ total: actual, totalIsExact: false });
    expect(after.rows).toHaveLength(50);
    // A filtered list below the limit is exact again.
    const one = (
      await sys.get('/api/sysAdminGlobalDeviceCatalogData?pageSize=50&filter=Bulk%20device%2010050')
    ).json() as PageBody;
    expect(one).toMatchObject({ total: 1, totalIsExact: true });
  });
});
