import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS_MESSAGES, ROLES } from '@trialpulse/shared';
import {
  deviceMetricSettings,
  globalDeviceCatalog,
  participants,
  teamDeviceDataStorageSettings,
  teamSupportedDevices,
  trials,
} from '../../db/schema';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient } from '../../test/fixtures';
import { auditSince, lastAuditId, signIn } from '../trials/test-support';
import { readingsServiceFor } from '../sync/test-support';

let ctx: TestApp;
const db = () => ctx.database.db;
const clients = {} as Record<(typeof ROLES)[number], TestClient>;
let otherAdmin: TestClient;
let adminId: number;
let home: { id: number };
let other: { id: number };
/** Team supported device ids: a tracker and a device without a type in the home team, a tracker in the other. */
let tracker: number;
let untyped: number;
let otherTracker: number;
let trackerCatalogId: number;

async function addDevice(teamId: number, catalogId: number) {
  const [row] = await db()
    .insert(teamSupportedDevices)
    .values({ teamId, globalDeviceCatalogId: catalogId })
    .returning({ id: teamSupportedDevices.id });
  return row!.id;
}

beforeAll(async () => {
  ctx = await createTestApp();
  home = await createTeam(db(), { retentionDays: 400 });
  other = await createTeam(db(), { retentionDays: null });
  for (const role of ROLES) {
    const account = await createStaffUser(db(), { role, teamId: home.id });
    if (role === 'Admin') adminId = account.id;
    clients[role] = await signIn(ctx.app, db(), account);
  }
  otherAdmin = await signIn(
    ctx.app,
    db(),
    await createStaffUser(db(), { role: 'Admin', teamId: other.id }),
  );
  const suffix = Date.now();
  const catalog = await db()
    .insert(globalDeviceCatalog)
    .values([
      { manufacturer: 'Fitbit', deviceType: 'TRACKER', deviceName: `Tracker ${suffix}` },
      { manufacturer: 'Fitbit', deviceType: null, deviceName: `Untyped ${suffix}` },
    ])
    .returning({ id: globalDeviceCatalog.id });
  trackerCatalogId = catalog[0]!.id;
  tracker = await addDevice(home.id, trackerCatalogId);
  untyped = await addDevice(home.id, catalog[1]!.id);
  otherTracker = await addDevice(other.id, trackerCatalogId);
});
afterAll(() => ctx.close());

const settingsUrl = (teamId: number, deviceId: number) =>
  `/api/deviceSettings/${teamId}/${deviceId}`;
const row = (key: string, name: string, extra: Record<string, unknown> = {}) => ({
  metric_key: key,
  metric_name: name,
  metric_units: null,
  is_enabled: true,
  retention_days: 60,
  ...extra,
});
const storedSettings = (deviceId: number) =>
  db()
    .select()
    .from(deviceMetricSettings)
    .where(eq(deviceMetricSettings.teamSupportedDeviceId, deviceId))
    .orderBy(deviceMetricSettings.metricKey);
const storedSelections = (teamId: number) =>
  db()
    .select()
    .from(teamDeviceDataStorageSettings)
    .where(eq(teamDeviceDataStorageSettings.teamId, teamId))
    .orderBy(teamDeviceDataStorageSettings.metricKey);

describe('device settings (Sys_Admin)', () => {
  it('Admin, User and Viewer are refused (403) on every call and nothing changes', async () => {
    await clients.Sys_Admin.request('PUT', settingsUrl(home.id, tracker), {
      settings: [row('steps', 'Steps')],
    });
    const before = await storedSettings(tracker);
    const mark = await lastAuditId(db());
    for (const role of ['Admin', 'User', 'Viewer'] as const) {
      for (const response of [
        await clients[role].get(
          `/api/deviceSettings/enhanced/deviceSettings/${home.id}/${tracker}`,
        ),
        await clients[role].get(
          `/api/deviceSettings/enhanced/availableMetrics/${home.id}/${tracker}/TRACKER`,
        ),
        await clients[role].request('PUT', settingsUrl(home.id, tracker), { settings: [] }),
        await clients[role].get('/api/sysAdminTeamsData'),
      ]) {
        expect(response.statusCode, `${role} ${response.body}`).toBe(403);
      }
    }
    expect(await storedSettings(tracker)).toEqual(before);
    expect(await auditSince(db(), mark)).toEqual([]);
  });

  it('answers 404 for an unknown team, a device of another team, or another device type', async () => {
    const sys = clients.Sys_Admin;
    expect(
      (await sys.get(`/api/deviceSettings/enhanced/deviceSettings/999999/${tracker}`)).statusCode,
    ).toBe(404);
    const wrongTeam = await sys.get(
      `/api/deviceSettings/enhanced/deviceSettings/${home.id}/${otherTracker}`,
    );
    expect(wrongTeam.statusCode).toBe(404);
    expect(wrongTeam.json().message).toBe(METRICS_MESSAGES.deviceNotFound);
    const put = await sys.request('PUT', settingsUrl(home.id, otherTracker), { settings: [] });
    expect(put.statusCode).toBe(404);
    expect(
      (await sys.get(`/api/deviceSettings/enhanced/availableMetrics/${home.id}/${tracker}/SCALE`))
        .statusCode,
    ).toBe(404);
  });

  it('lists the catalog for the device type, and every type for a device without one', async () => {
    const sys = clients.Sys_Admin;
    const typed = await sys.get(
      `/api/deviceSettings/enhanced/availableMetrics/${home.id}/${tracker}/TRACKER`,
    );
    expect(typed.statusCode).toBe(200);
    const keys = typed.json().map((metric: { metric_key: string }) => metric.metric_key);
    expect(keys).toContain('steps');
    expect(keys).not.toContain('systolic');
    expect(typed.json()[0]).toEqual(
      expect.objectContaining({
        device_type: 'TRACKER',
        available: true,
        default_retention_days: expect.any(Number),
      }),
    );
    const all = await sys.get(
      `/api/deviceSettings/enhanced/availableMetrics/${home.id}/${untyped}/all`,
    );
    const types = new Set(all.json().map((metric: { device_type: string }) => metric.device_type));
    expect([...types].sort()).toEqual([
      'DEXCOM_CGM',
      'OMRON_BP_MONITOR',
      'OMRON_SCALE',
      'SCALE',
      'TRACKER',
    ]);
  });

  it('replaces the whole list: bulk enable/disable sends all rows, delete sends the list without them', async () => {
    const sys = clients.Sys_Admin;
    const mark = await lastAuditId(db());
    const first = await sys.request('PUT', settingsUrl(home.id, tracker), {
      settings: [
        row('steps', 'Steps'),
        row('distance', 'Distance'),
        row('heart_rate', 'Heart Rate', { retention_days: undefined }),
      ],
    });
    expect(first.statusCode, first.body).toBe(200);
    const listed = await sys.get(
      `/api/deviceSettings/enhanced/deviceSettings/${home.id}/${tracker}`,
    );
    expect(listed.json()).toEqual(first.json().settings);
    const stepsId = listed.json().find((s: { metric_key: string }) => s.metric_key === 'steps').id;
    // Missing retention: the metric's default (heart rate 90), units from the catalog.
    expect(
      listed.json().find((s: { metric_key: string }) => s.metric_key === 'heart_rate'),
    ).toMatchObject({
      retention_days: 90,
      metric_units: 'bpm',
    });

    // Bulk disable: the full list with changed flags.
    const disabled = listed.json().map((s: Record<string, unknown>) => ({
      ...s,
      is_enabled: s.metric_key === 'steps' ? false : s.is_enabled,
    }));
    expect(
      (await sys.request('PUT', settingsUrl(home.id, tracker), { settings: disabled })).statusCode,
    ).toBe(200);
    let stored = await storedSettings(tracker);
    expect(stored.map((s) => [s.metricKey, s.isEnabled])).toEqual([
      ['distance', true],
      ['heart_rate', true],
      ['steps', false],
    ]);
    expect(stored.find((s) => s.metricKey === 'steps')!.id).toBe(stepsId);

    // Delete: the list without the deleted row.
    const kept = disabled.filter((s: { metric_key: string }) => s.metric_key !== 'distance');
    expect(
      (await sys.request('PUT', settingsUrl(home.id, tracker), { settings: kept })).statusCode,
    ).toBe(200);
    stored = await storedSettings(tracker);
    expect(stored.map((s) => s.metricKey)).toEqual(['heart_rate', 'steps']);

    const audit = await auditSince(db(), mark);
    expect(audit.map((entry) => entry.action)).toEqual([
      'device_settings.replace',
      'device_settings.replace',
      'device_settings.replace',
    ]);
    const last = audit.at(-1)!;
    expect(last).toMatchObject({
      teamId: home.id,
      entityId: String(tracker),
      entityType: 'team_supported_device',
    });
    expect((last.before as { metric_key: string }[]).map((s) => s.metric_key)).toEqual([
      'steps',
      'distance',
      'heart_rate',
    ]);
    expect((last.after as { metric_key: string }[]).map((s) => s.metric_key)).toEqual([
      'steps',
      'heart_rate',
    ]);
  });

  it('one bad row saves nothing and answers the spec messages for every problem', async () => {
    const sys = clients.Sys_Admin;
    const before = await storedSettings(tracker);
    const mark = await lastAuditId(db());
    const cases: [unknown[], string, string][] = [
      [
        [row('steps', 'Steps'), row('floors', '  ')],
        'settings.1.metric_name',
        'Metric name is required',
      ],
      [
        [row('steps', 'Steps'), row('floors', 'Floors', { retention_days: 0 })],
        'settings.1.retention_days',
        'Retention days must be at least 1',
      ],
      [
        [row('floors', 'Floors', { retention_days: 'abc' })],
        'settings.0.retention_days',
        'Retention days must be at least 1',
      ],
      [
        [row('steps', 'Steps'), row('systolic', 'Systolic')],
        'settings.1.metric_key',
        METRICS_MESSAGES.metricNotInCatalog,
      ],
      [
        [row('steps', 'Steps'), row('steps', 'Steps')],
        'settings.1.metric_key',
        METRICS_MESSAGES.duplicateMetric,
      ],
    ];
    for (const [settings, field, message] of cases) {
      const response = await sys.request('PUT', settingsUrl(home.id, tracker), { settings });
      expect(response.statusCode, JSON.stringify(settings)).toBe(400);
      expect(response.json()).toMatchObject({ message, displayToUser: true });
      expect(response.json().errors).toContainEqual({ field, message });
    }
    // Retention days as integer text is accepted (§5: parsed as integers)…
    expect(
      (
        await sys.request('PUT', settingsUrl(home.id, untyped), {
          settings: [row('weight', 'Weight', { retention_days: '45' })],
        })
      ).statusCode,
    ).toBe(200);
    expect((await storedSettings(untyped))[0]).toMatchObject({
      metricKey: 'weight',
      retentionDays: 45,
    });
    expect(await storedSettings(tracker)).toEqual(before);
    expect((await auditSince(db(), mark)).map((entry) => entry.action)).toEqual([
      'device_settings.replace',
    ]);
  });

  it('refuses a metric the catalog marks unavailable', async () => {
    const { metricCatalog } = await import('../../db/schema');
    const vo2 = and(
      eq(metricCatalog.deviceType, 'TRACKER'),
      eq(metricCatalog.metricKey, 'vo2_max'),
    );
    await db().update(metricCatalog).set({ available: false }).where(vo2);
    try {
      const response = await clients.Sys_Admin.request('PUT', settingsUrl(home.id, tracker), {
        settings: [row('vo2_max', 'Cardio Fitness Score (VO2 Max)')],
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toBe(METRICS_MESSAGES.metricNotInCatalog);
    } finally {
      await db().update(metricCatalog).set({ available: true }).where(vo2);
    }
  });
});

describe('team data storage (Sys_Admin and Admin)', () => {
  const base = (teamId: number) => `/api/dataStorageService/team/${teamId}`;

  beforeAll(async () => {
    // The system administrator enables steps, distance and resting heart rate (distance off).
    const response = await clients.Sys_Admin.request('PUT', settingsUrl(home.id, tracker), {
      settings: [
        row('steps', 'Steps'),
        row('resting_heart_rate', 'Resting Heart Rate'),
        row('distance', 'Distance', { is_enabled: false }),
      ],
    });
    expect(response.statusCode).toBe(200);
  });

  it('User and Viewer are refused (403); an Admin of another team gets 404 and changes nothing', async () => {
    const before = await storedSelections(home.id);
    const mark = await lastAuditId(db());
    const calls = (client: TestClient) => [
      client.get(`${base(home.id)}/devices`),
      client.get(`${base(home.id)}/retention`),
      client.get(`${base(home.id)}/device/TRACKER/selections`),
      client.post(`${base(home.id)}/device/TRACKER/metric`, { metric_key: 'steps' }),
      client.request('DELETE', `${base(home.id)}/device/TRACKER/metric/steps`),
      client.get(`${base(home.id)}/device/TRACKER/metric/steps/storedReadings`),
    ];
    for (const role of ['User', 'Viewer'] as const) {
      for (const response of await Promise.all(calls(clients[role])))
        expect(response.statusCode).toBe(403);
      expect((await clients[role].get('/api/dataStorageService/metrics/TRACKER')).statusCode).toBe(
        403,
      );
    }
    for (const response of await Promise.all(calls(otherAdmin))) {
      expect(response.statusCode, response.body).toBe(404);
      expect(response.json().message).toBe(METRICS_MESSAGES.teamNotFound);
    }
    expect(await storedSelections(home.id)).toEqual(before);
    expect(await auditSince(db(), mark)).toEqual([]);
  });

  it('devices, retention and the catalog of a type', async () => {
    const admin = clients.Admin;
    const devices = await admin.get(`${base(home.id)}/devices`);
    expect(devices.statusCode).toBe(200);
    expect(devices.json()).toContainEqual({
      team_supported_device_id: tracker,
      device_name: expect.stringMatching(/^Tracker /),
      device_type: 'TRACKER',
    });
    expect((await admin.get(`${base(home.id)}/retention`)).json()).toEqual({ retention_days: 400 });
    expect((await otherAdmin.get(`${base(other.id)}/retention`)).json()).toEqual({
      retention_days: null,
    });
    const catalog = await admin.get('/api/dataStorageService/metrics/TRACKER');
    expect(catalog.json()).toContainEqual(
      expect.objectContaining({
        metric_key: 'steps',
        metric_name: 'Steps',
        units: 'steps',
        category: 'activity',
      }),
    );
    const unknown = await admin.get('/api/dataStorageService/metrics/NO_SUCH_TYPE');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe(METRICS_MESSAGES.unknownDeviceType);
    // The Sys_Admin reaches any team.
    expect((await clients.Sys_Admin.get(`${base(other.id)}/devices`)).json()).toEqual([
      expect.objectContaining({ team_supported_device_id: otherTracker }),
    ]);
  });

  it('selections list only the metrics the system administrator enabled; adds and removes are audited', async () => {
    const admin = clients.Admin;
    const url = `${base(home.id)}/device/TRACKER`;
    expect((await admin.get(`${url}/selections`)).json()).toEqual([
      { metric_key: 'resting_heart_rate', is_enabled: false },
      { metric_key: 'steps', is_enabled: false },
    ]);
    const mark = await lastAuditId(db());
    const added = await admin.post(`${url}/metric`, {
      metric_key: 'steps',
      metric_name: 'Steps',
      units: 'steps',
      device_metric_id: 1,
    });
    expect(added.statusCode, added.body).toBe(200);
    expect((await admin.get(`${url}/selections`)).json()).toContainEqual({
      metric_key: 'steps',
      is_enabled: true,
    });
    expect(
      (await storedSelections(home.id)).map((s) => [
        s.metricKey,
        s.teamSupportedDeviceId,
        s.retentionDays,
      ]),
    ).toEqual([['steps', tracker, 30]]);

    // Not enabled (distance is switched off, floors never added) or unknown: 400, nothing stored.
    for (const key of ['distance', 'floors', 'systolic']) {
      const refused = await admin.post(`${url}/metric`, { metric_key: key });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().message).toBe(METRICS_MESSAGES.metricNotEnabled);
    }
    expect((await admin.post(`${url}/metric`, { metric_key: ' ' })).json().message).toBe(
      'Metric name is required',
    );

    const removed = await admin.request('DELETE', `${url}/metric/steps`);
    expect(removed.statusCode).toBe(200);
    expect(await storedSelections(home.id)).toEqual([]);
    expect((await admin.request('DELETE', `${url}/metric/steps`)).statusCode).toBe(404);

    const audit = await auditSince(db(), mark);
    expect(audit.map((entry) => entry.action)).toEqual([
      'data_storage.metric_add',
      'data_storage.metric_remove',
    ]);
    expect(audit[0]).toMatchObject({ teamId: home.id, before: [] });
    expect((audit[0]!.after as { metricKey: string }[])[0]!.metricKey).toBe('steps');
    expect((audit[1]!.before as { metricKey: string }[])[0]!.metricKey).toBe('steps');
    expect(audit[1]!.after).toEqual([]);
  });

  it('a team without a device of the type answers 404 (the page shows an empty list)', async () => {
    const response = await clients.Admin.get(`${base(home.id)}/device/DEXCOM_CGM/selections`);
    expect(response.statusCode).toBe(404);
  });

  it('counts the stored readings a removal would let the next purge delete', async () => {
    const [trial] = await db()
      .insert(trials)
      .values({
        teamId: home.id,
        trialNumber: `M-${Date.now()}`,
        trialName: 'Metrics',
        trialCode: 'MET',
        ownerUserId: adminId,
      })
      .returning();
    const [participant] = await db()
      .insert(participants)
      .values({
        teamId: home.id,
        trialId: trial!.id,
        participantCode: 'MET-1',
        participantCodeSuffix: '1',
      })
      .returning();
    const day = (n: number) => new Date(Date.UTC(2026, 0, n));
    const reading = (metricKey: string, n: number, brand: 'Fitbit' | 'Omron' = 'Fitbit') => ({
      participantId: participant!.id,
      teamId: home.id,
      brand,
      metricKey,
      recordedAt: day(n),
      value: 1000 * n,
      upstream: brand === 'Fitbit' ? ('google-health' as const) : ('omron' as const),
    });
    // Through the sync module's real write path (partitions are made on demand).
    await readingsServiceFor(db()).store([
      reading('steps', 1),
      reading('steps', 2),
      reading('steps', 3),
      reading('resting_heart_rate', 1),
      // Another brand's reading of the same key is not this device type's.
      reading('steps', 4, 'Omron'),
    ]);
    const url = `${base(home.id)}/device/TRACKER/metric`;
    expect((await clients.Admin.get(`${url}/steps/storedReadings`)).json()).toEqual({
      metric_key: 'steps',
      stored_readings: 3,
    });
    expect((await clients.Admin.get(`${url}/floors/storedReadings`)).json()).toEqual({
      metric_key: 'floors',
      stored_readings: 0,
    });
  });
});
