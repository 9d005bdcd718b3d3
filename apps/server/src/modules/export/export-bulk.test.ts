import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Db } from '../../db/client';
import { backendClients, exportJobs, type BulkExportParams } from '../../db/schema';
import type { JobLogger } from '../../jobs/types';
import { createStaffUser } from '../../test/fixtures';
import { createTestDatabase } from '../../test/test-database';
import { fhirResourceValidator } from '../../test/fhir-validator';
import { readingDevice } from '../sync/reading-device';
import { createParticipants, readingsServiceFor } from '../sync/test-support';
import type { ReadingInput } from '../sync/readings.service';
import { BULK_FILES_ENTRY, type BulkFiles } from './export-bulk';
import { exportStorageFor, sweepExports } from './export.job';
import { createExportRepository } from './export.repository';
import { runExport } from './export.service';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const quiet: JobLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const readingsFor = (db: Db) => readingsServiceFor(db);
const T0 = Date.parse('2026-03-02T00:00:00Z');

/**
 * The FHIR Bulk Data export of a trial (issue 31) on the export machinery: the run claims a
 * job a backend client kicked off and writes its NDJSON files into a directory that appears
 * whole (one rename). Service level: the job row is inserted as the kick-off does, the run is
 * `runExport` (what the pg-boss handler runs); the HTTP protocol is fhir-bulk's tests.
 */
describe(`FHIR Bulk Data export runs (${MODE})`, () => {
  let database: Database;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trialpulse-export-bulk-'));
  const storage = exportStorageFor({ DATA_DIR: dataDir });
  let setup: { teamId: number; trialId: number; participantIds: number[]; clientId: string };

  /** Per participant: an hour of minute heart rate (Fitbit), two blood pressures and a pulse (Omron), and a metric without a FHIR code. */
  const readingsOf = (teamId: number, participantId: number, start: number): ReadingInput[] => [
    ...Array.from({ length: 60 }, (_, minute) => ({
      teamId,
      participantId,
      brand: 'Fitbit' as const,
      upstream: 'google-health' as const,
      metricKey: 'heart_rate',
      recordedAt: new Date(start + minute * 60_000),
      utcOffsetMinutes: 60,
      value: 60 + (minute % 30),
      dataSource: 'Charge 6',
    })),
    ...[0, 1].flatMap((n) =>
      ['systolic', 'diastolic', 'pulse'].map((metricKey, k) => ({
        teamId,
        participantId,
        brand: 'Omron' as const,
        upstream: 'omron' as const,
        metricKey,
        recordedAt: new Date(start + n * 3_600_000 + 1_800_000),
        utcOffsetMinutes: 60,
        value: [121, 79, 66][k]! + n,
        dataSource: 'HEM-7155T',
      })),
    ),
    {
      teamId,
      participantId,
      brand: 'Fitbit' as const,
      upstream: 'google-health' as const,
      metricKey: 'floors',
      recordedAt: new Date(start),
      utcOffsetMinutes: null,
      value: 7,
    },
  ];

  beforeAll(async () => {
    database = await createTestDatabase();
    const { teamId, trialId, participantIds } = await createParticipants(database.db, 3);
    const admin = await createStaffUser(database.db, { role: 'Admin', teamId });
    const clientId = `bulk-test-${teamId}`;
    await database.db.insert(backendClients).values({
      teamId,
      clientId,
      name: 'pipeline',
      keyFormat: 'jwks',
      jwks: { keys: [] },
      scopes: ['system/*.rs'],
      createdBy: admin.id,
    });
    await readingsServiceFor(database.db).store(
      participantIds.flatMap((id) => readingsOf(teamId, id, T0)),
    );
    setup = { teamId, trialId, participantIds, clientId };
  });
  afterAll(async () => {
    await database?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const kickOff = async (params: Partial<Omit<BulkExportParams, 'kind'>> = {}) => {
    const job = await createExportRepository(database.db).insertBulkJob({
      teamId: setup.teamId,
      trialId: setup.trialId,
      backendClientId: setup.clientId,
      jobParams: {
        kind: 'fhir-bulk',
        types: ['Group', 'Patient', 'Device', 'Observation'],
        since: null,
        request: `http://localhost/fhir/Group/${setup.trialId}/$export`,
        ...params,
      },
    });
    return job;
  };
  const row = async (id: number) =>
    (await database.db.select().from(exportJobs).where(eq(exportJobs.id, id)))[0]!;
  /** The finished directory's listing and every file's resources, by file name. */
  const filesOf = async (id: number) => {
    const job = await row(id);
    expect(job).toMatchObject({ status: 'completed' });
    const read = async (name: string) => {
      const opened = await storage.openEntry(job.filePath!, name);
      expect(opened, name).not.toBeNull();
      const chunks: Buffer[] = [];
      for await (const chunk of opened!.stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    };
    const listing = JSON.parse(await read(BULK_FILES_ENTRY)) as BulkFiles;
    const resources = new Map<string, Record<string, unknown>[]>();
    for (const file of [...listing.output, ...listing.error]) {
      const text = await read(file.name);
      expect(text.endsWith('\n')).toBe(true);
      resources.set(
        file.name,
        text
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>),
      );
    }
    return {
      listing,
      resources,
      ofType: (type: string) => resourcesOfType(listing, resources, type),
    };
  };

  it('writes the trial as a Group, its Patients, Devices and Observations (split into files), valid FHIR R4, and counts what has no FHIR code', async () => {
    const job = await kickOff();
    const result = await runExport(
      database.db,
      job.id,
      { storage, logger: quiet, readingsFor },
      { pageSize: 50, bulkResourcesPerFile: 100 },
    );
    expect(result).toMatchObject({ status: 'completed' });
    const { listing, resources, ofType } = await filesOf(job.id);

    // Per participant: 60 heart rates, 2 blood-pressure panels, 2 pulses = 64 Observations.
    const observations = ofType('Observation');
    expect(observations).toHaveLength(3 * 64);
    expect(
      listing.output.filter((file) => file.type === 'Observation').map((f) => f.count),
    ).toEqual([100, 92]);
    for (const file of [...listing.output, ...listing.error])
      expect(resources.get(file.name)).toHaveLength(file.count);
    expect(new Set(observations.map((o) => o.id)).size).toBe(observations.length);
    const panels = observations.filter(
      (o) => (o.code as { coding: { code: string }[] }).coding[0]!.code === '85354-9',
    );
    expect(panels).toHaveLength(6);

    const [group] = ofType('Group');
    expect(group).toMatchObject({ resourceType: 'Group', quantity: 3, actual: true });
    const patients = ofType('Patient');
    expect(patients.map((p) => p.id).sort()).toEqual(
      setup.participantIds.map((id) => `participant-${id}`).sort(),
    );
    // Every reference resolves within the export: members and subjects are its Patients,
    // every Observation's device is one of its Devices (by the name they carry).
    const patientRefs = new Set(patients.map((p) => `Patient/${p.id}`));
    for (const member of group!.member as { entity: { reference: string } }[])
      expect(patientRefs.has(member.entity.reference)).toBe(true);
    const devices = ofType('Device');
    const deviceNames = new Set(
      devices.map((d) => (d.identifier as { value: string }[])[0]!.value),
    );
    for (const observation of observations) {
      expect(patientRefs.has((observation.subject as { reference: string }).reference)).toBe(true);
      expect(deviceNames.has((observation.device as { display: string }).display)).toBe(true);
    }
    const expectedDevices = new Set(
      readingsOf(setup.teamId, 0, T0).map((reading) =>
        readingDevice({ ...reading, dataSource: reading.dataSource ?? null, valueJson: null }),
      ),
    );
    expect(deviceNames).toEqual(expectedDevices);

    // The readings without a FHIR code: one OperationOutcome per metric, in `error`.
    const outcomes = ofType('OperationOutcome');
    expect(listing.error.map((file) => file.type)).toEqual(['OperationOutcome']);
    expect(outcomes).toHaveLength(1);
    expect(JSON.stringify(outcomes[0])).toContain('3 readings of the metric floors');

    const validate = fhirResourceValidator();
    for (const resource of [...resources.values()].flat())
      expect(validate(resource), JSON.stringify(validate.errors)).toBe(true);
  });

  it('`_type` writes only the types asked for', async () => {
    const job = await kickOff({ types: ['Patient'] });
    await runExport(database.db, job.id, { storage, logger: quiet, readingsFor });
    const { listing } = await filesOf(job.id);
    expect(listing.output.map((file) => [file.type, file.count])).toEqual([['Patient', 3]]);
    expect(listing.error).toEqual([]);
  });

  it('`_since`: only readings stored or changed after it, none changed after the transaction time; a pipeline chaining transaction times misses none', async () => {
    const first = await kickOff({ types: ['Observation'] });
    await runExport(database.db, first.id, { storage, logger: quiet, readingsFor });
    const transactionTime = (await row(first.id)).createdAt;
    expect((await filesOf(first.id)).ofType('Observation').length).toBeGreaterThan(0);

    // After the first kick-off: a new hour for one participant and one changed value.
    const [p1, p2] = setup.participantIds;
    const later = readingsOf(setup.teamId, p1!, T0 + 86_400_000).filter(
      (r) => r.metricKey === 'heart_rate',
    );
    const changed = { ...readingsOf(setup.teamId, p2!, T0)[0]!, value: 99 };
    // The clock of synced_at is the database's: the rows below are stored after the kick-off.
    await readingsServiceFor(database.db).store([...later, changed]);

    // Kicked off before the new rows: they are not in it, even though it runs after them.
    const stale = await kickOff({ types: ['Observation'], since: null });
    await database.db
      .update(exportJobs)
      .set({ createdAt: transactionTime })
      .where(eq(exportJobs.id, stale.id));
    await runExport(database.db, stale.id, { storage, logger: quiet, readingsFor });
    const staleValues = (await filesOf(stale.id))
      .ofType('Observation')
      .filter((o) => (o.subject as { reference: string }).reference === `Patient/participant-${p2}`)
      .map((o) => (o.valueQuantity as { value: number } | undefined)?.value);
    expect(staleValues).not.toContain(99);

    const next = await kickOff({ types: ['Observation'], since: transactionTime.toISOString() });
    await runExport(database.db, next.id, { storage, logger: quiet, readingsFor });
    const since = (await filesOf(next.id)).ofType('Observation');
    // Every reading stored or changed since (a dense stream's whole chunk may come along:
    // Bulk Data clients take a resource twice, never miss one), and nothing of the others.
    expect(since.length).toBeGreaterThanOrEqual(later.length + 1);
    expect(since.map((o) => (o.valueQuantity as { value: number }).value)).toContain(99);
    expect(
      since.filter(
        (o) => (o.subject as { reference: string }).reference === `Patient/participant-${p1}`,
      ),
    ).toHaveLength(later.length);
    expect(new Set(since.map((o) => (o.subject as { reference: string }).reference))).toEqual(
      new Set([`Patient/participant-${p1}`, `Patient/participant-${p2}`]),
    );
  });

  it('cancelled mid-run (its row deleted): the run stops, and no directory is left', async () => {
    const job = await kickOff();
    const result = await runExport(
      database.db,
      job.id,
      { storage, logger: quiet, readingsFor },
      {
        pageSize: 20,
        heartbeatMs: 0,
        afterPage: async (_job, page) => {
          if (page === 2) await database.db.delete(exportJobs).where(eq(exportJobs.id, job.id));
        },
      },
    );
    expect(result).toMatchObject({ status: 'cancelled' });
    const leftovers = ['files', 'parts'].flatMap((dir) =>
      fs
        .readdirSync(path.join(dataDir, 'exports', dir))
        .filter((name) => name.startsWith(`${job.id}-`) || name.startsWith(`${job.id}.`)),
    );
    expect(leftovers).toEqual([]);
  });

  it('a run taken over while it stalled comes back: it commits nothing, removes only its own directory, and the taker’s files are served whole', async () => {
    const job = await kickOff();
    let reached!: () => void;
    let open!: () => void;
    const atGate = new Promise<void>((resolve) => (reached = resolve));
    const opened = new Promise<void>((resolve) => (open = resolve));
    const first = runExport(
      database.db,
      job.id,
      { storage, logger: quiet, readingsFor },
      {
        pageSize: 20,
        keepaliveMs: 3_600_000,
        afterPage: async (_job, page) => {
          if (page === 2) {
            reached();
            await opened;
          }
        },
      },
    );
    await atGate;
    const firstClaim = (await row(job.id)).claim;
    // Silent for ten minutes (its worker cut off): the next run takes the job over.
    await database.db
      .update(exportJobs)
      .set({ updatedAt: new Date(Date.now() - 600_000) })
      .where(eq(exportJobs.id, job.id));
    const second = await runExport(database.db, job.id, { storage, logger: quiet, readingsFor });
    expect(second).toMatchObject({ status: 'completed' });
    const taken = await row(job.id);
    expect(taken.claim).toBe(firstClaim + 1);

    open();
    expect(await first).toEqual({ status: 'taken_over' });
    expect(await row(job.id)).toEqual(taken);
    const names = (dir: string) =>
      fs
        .readdirSync(path.join(dataDir, 'exports', dir))
        .filter((name) => name.startsWith(`${job.id}-`) || name.startsWith(`${job.id}.`));
    expect(names('files')).toEqual([`${job.id}-${taken.claim}.bulk`]);
    expect(names('parts')).toEqual([]);
    const { listing, resources } = await filesOf(job.id);
    for (const file of listing.output) expect(resources.get(file.name)).toHaveLength(file.count);
  });

  it('the retention sweep deletes a Bulk export past its 7 days: its directory and its row', async () => {
    const job = await kickOff({ types: ['Patient'] });
    await runExport(database.db, job.id, { storage, logger: quiet, readingsFor });
    const done = await row(job.id);
    expect(fs.existsSync(path.join(dataDir, 'exports', 'files', done.filePath!))).toBe(true);
    const counts = await sweepExports(
      database.db,
      storage,
      new Date(done.expiresAt!.getTime() + 1_000),
    );
    expect(counts.expired).toBeGreaterThanOrEqual(1);
    expect(await database.db.select().from(exportJobs).where(eq(exportJobs.id, job.id))).toEqual(
      [],
    );
    expect(fs.existsSync(path.join(dataDir, 'exports', 'files', done.filePath!))).toBe(false);
  });
});

function resourcesOfType(
  listing: BulkFiles,
  resources: Map<string, Record<string, unknown>[]>,
  type: string,
) {
  return [...listing.output, ...listing.error]
    .filter((file) => file.type === type)
    .flatMap((file) => resources.get(file.name)!);
}
