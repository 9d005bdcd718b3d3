import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Db } from '../../db/client';
import { exportJobs } from '../../db/schema';
import type { JobLogger } from '../../jobs/types';
import { createStaffUser } from '../../test/fixtures';
import { createTestDatabase } from '../../test/test-database';
import { createParticipants, readingsServiceFor } from '../sync/test-support';
import type { ExportStorage } from './export-storage';
import { exportStorageFor, sweepExports, type ExportJobOptions } from './export.job';
import { runExport } from './export.service';
import { createExportRepository } from './export.repository';
import { createExportDevice } from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const DAY = 86_400_000;
const quiet: JobLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const readingsFor = (db: Db) => readingsServiceFor(db);

/**
 * A run taken over (its worker cut off from the database, or stalled, for over a minute)
 * may come back. Each claim numbers the row (export_jobs.claim) and every later write of a
 * run — heartbeat, completion, failure, its files — is its claim's own: the run that comes
 * back changes nothing of the run that took over and stops quietly (decision 0121).
 */
describe(`an export run taken over changes nothing when it comes back (${MODE})`, () => {
  let database: Database;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trialpulse-export-claim-'));
  let storage: ExportStorage;
  let setup: {
    teamId: number;
    trialId: number;
    userId: number;
    deviceId: number;
    participantIds: number[];
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    storage = exportStorageFor({ DATA_DIR: dataDir });
    const { teamId, trialId, participantIds } = await createParticipants(database.db, 2);
    const { deviceId } = await createExportDevice(database.db, teamId);
    const user = await createStaffUser(database.db, { role: 'User', teamId });
    const todayMs = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
    await readingsServiceFor(database.db).store(
      participantIds.flatMap((participantId) =>
        Array.from({ length: 1440 }, (_, minute) => ({
          teamId,
          participantId,
          brand: 'Fitbit' as const,
          upstream: 'google-health' as const,
          metricKey: 'heart_rate',
          recordedAt: new Date(todayMs - 3 * DAY + minute * 60_000),
          utcOffsetMinutes: 0,
          value: 60 + (minute % 40),
        })),
      ),
    );
    setup = { teamId, trialId, userId: user.id, deviceId, participantIds };
  });
  afterAll(async () => {
    await database?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const createJob = async (fileName: string) => {
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const job = await createExportRepository(database.db).insertJob({
      teamId: setup.teamId,
      trialId: setup.trialId,
      createdBy: setup.userId,
      jobParams: {
        fileName,
        startDate: day(Date.now() - 5 * DAY),
        endDate: day(Date.now() - DAY),
        participantIds: setup.participantIds,
        metrics: ['heart_rate', 'steps'],
        deviceId: setup.deviceId,
        exportMode: 'separate-tabs',
        format: 'csv',
      },
    });
    return job.id;
  };
  const row = async (id: number) =>
    (await database.db.select().from(exportJobs).where(eq(exportJobs.id, id)))[0]!;
  /** The run has been silent for ten minutes (its worker cut off): the next claim takes over. */
  const silence = (id: number) =>
    database.db.execute(
      sql`update export_jobs set updated_at = now() - interval '10 minutes' where id = ${id}`,
    );
  const gate = () => {
    let open!: () => void;
    let reached!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    const atGate = new Promise<void>((resolve) => (reached = resolve));
    return { open, atGate, pass: async () => (reached(), await opened) };
  };
  /** A run held at its first page (a worker that stopped reporting), with no keepalive of its own. */
  const heldRun = (id: number, options: ExportJobOptions = {}, runStorage = storage) => {
    const hold = gate();
    const run = runExport(
      database.db,
      id,
      { storage: runStorage, logger: quiet, readingsFor },
      {
        pageSize: 200,
        keepaliveMs: 3_600_000,
        ...options,
        afterPage: async (_job, page) => {
          if (page === 1) await hold.pass();
        },
      },
    );
    return { run, ...hold };
  };
  const parts = (id: number) =>
    fs
      .readdirSync(path.join(dataDir, 'exports', 'parts'))
      .filter((name) => name.startsWith(`${id}.`))
      .sort();
  const files = (id: number) =>
    fs
      .readdirSync(path.join(dataDir, 'exports', 'files'))
      .filter((name) => name.startsWith(`${id}-`) || name === `${id}.zip`)
      .sort();
  /** The job's file is served whole: every file the manifest names, with its SHA-256 and size. */
  const expectWholeExport = async (id: number, fileName: string) => {
    const job = await row(id);
    expect(job).toMatchObject({ status: 'completed' });
    const opened = await storage.open(job.filePath!);
    expect(opened).not.toBeNull();
    const chunks: Buffer[] = [];
    for await (const chunk of opened!.stream) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    expect(bytes.length).toBe(job.fileSize);
    const zip = await JSZip.loadAsync(bytes, { checkCRC32: true });
    const manifest = JSON.parse(
      await zip.file(`TrialPulse-${fileName}-manifest.json`)!.async('string'),
    );
    for (const file of manifest.files as { name: string; sha256: string; bytes: number }[]) {
      const content = await zip.file(file.name)!.async('nodebuffer');
      expect(createHash('sha256').update(content).digest('hex'), file.name).toBe(file.sha256);
      expect(content.length, file.name).toBe(file.bytes);
    }
    expect(manifest.totalRows).toBe(2 * 1440);
    return job;
  };

  it('the first run’s late heartbeat, failure and cleanup leave the taker’s row and part file alone; the taker’s file is whole', async () => {
    const id = await createJob('late-heartbeat');
    const first = heldRun(id);
    await first.atGate;
    const firstClaim = (await row(id)).claim;
    expect(parts(id)).toEqual([`${id}.${firstClaim}.work`, `${id}.${firstClaim}.zip.part`]);

    await silence(id);
    const second = heldRun(id);
    await second.atGate;
    const taken = await row(id);
    expect(taken).toMatchObject({ status: 'processing', claim: firstClaim + 1 });
    // The first run's writes with its claim are refused, whatever they would do.
    const repository = createExportRepository(database.db);
    const late = new Date();
    expect(await repository.heartbeat(id, firstClaim, 77, late)).toBe(false);
    expect(await repository.fail(id, 'late failure', late, late, firstClaim)).toBe(false);
    expect(
      await repository.complete(id, firstClaim, {
        filePath: `${id}-${firstClaim}.zip`,
        fileSize: 1,
        now: late,
        expiresAt: late,
      }),
    ).toBe(false);
    expect(await row(id)).toEqual(taken);

    // The first run comes back: its next heartbeat is refused, it removes only its own files and stops.
    first.open();
    expect(await first.run).toEqual({ status: 'taken_over' });
    expect(await row(id)).toEqual(taken);
    expect(parts(id)).toEqual([`${id}.${taken.claim}.work`, `${id}.${taken.claim}.zip.part`]);

    second.open();
    expect(await second.run).toMatchObject({ status: 'completed', rows: 2 * 1440 });
    await expectWholeExport(id, 'late-heartbeat');
    expect(parts(id)).toEqual([]);
  });

  it('the first run’s late completion neither completes the job the taker is building nor takes, replaces or removes its file', async () => {
    const id = await createJob('late-complete');
    // The first run stops just before it commits its file (cut off after its last page).
    const beforeCommit = gate();
    const stalling: ExportStorage = {
      ...storage,
      async commit(jobId, claim) {
        await beforeCommit.pass();
        return storage.commit(jobId, claim);
      },
    };
    const first = runExport(
      database.db,
      id,
      { storage: stalling, logger: quiet, readingsFor },
      { pageSize: 200, keepaliveMs: 3_600_000 },
    );
    await beforeCommit.atGate;
    await silence(id);
    const second = heldRun(id);
    await second.atGate;
    const taken = await row(id);

    // The first run comes back and commits: its completion is refused and its own file removed.
    beforeCommit.open();
    expect(await first).toEqual({ status: 'taken_over' });
    expect(await row(id)).toEqual(taken);
    expect(files(id)).toEqual([]);
    expect(parts(id)).toEqual([`${id}.${taken.claim}.work`, `${id}.${taken.claim}.zip.part`]);

    second.open();
    expect(await second.run).toMatchObject({ status: 'completed' });
    const done = await expectWholeExport(id, 'late-complete');
    expect(files(id)).toEqual([done.filePath]);
    expect(parts(id)).toEqual([]);
  });

  it('the first run’s late failure does not fail the job the taker is still building', async () => {
    const id = await createJob('late-failure');
    const beforeCommit = gate();
    const failing: ExportStorage = {
      ...storage,
      async commit() {
        await beforeCommit.pass();
        throw new Error('the disk went away');
      },
    };
    const first = runExport(
      database.db,
      id,
      { storage: failing, logger: quiet, readingsFor },
      { pageSize: 200, keepaliveMs: 3_600_000 },
    );
    await beforeCommit.atGate;
    await silence(id);
    const second = heldRun(id);
    await second.atGate;
    const taken = await row(id);

    beforeCommit.open();
    expect(await first).toEqual({ status: 'taken_over' });
    expect(await row(id)).toEqual(taken);
    expect(parts(id)).toEqual([`${id}.${taken.claim}.work`, `${id}.${taken.claim}.zip.part`]);

    second.open();
    expect(await second.run).toMatchObject({ status: 'completed' });
    await expectWholeExport(id, 'late-failure');
  });

  it('the taking run and the sweep remove a dead run’s files, never those of the run that holds the job', async () => {
    const id = await createJob('sweep-claims');
    const first = heldRun(id);
    await first.atGate;
    await silence(id);
    const second = heldRun(id);
    await second.atGate;
    const { claim } = await row(id);
    // The claim removed what the first run had left…
    expect(parts(id)).toEqual([`${id}.${claim}.work`, `${id}.${claim}.zip.part`]);
    // …and the sweep removes what it writes after that (a part file of an earlier claim).
    fs.writeFileSync(
      path.join(dataDir, 'exports', 'parts', `${id}.${claim - 1}.zip.part`),
      'stray bytes',
    );
    const swept = await sweepExports(database.db, storage, new Date());
    expect(swept.orphans).toBe(1);
    expect(parts(id)).toEqual([`${id}.${claim}.work`, `${id}.${claim}.zip.part`]);
    first.open();
    second.open();
    expect(await first.run).toEqual({ status: 'taken_over' });
    expect(await second.run).toMatchObject({ status: 'completed' });
    await expectWholeExport(id, 'sweep-claims');
  });
});
