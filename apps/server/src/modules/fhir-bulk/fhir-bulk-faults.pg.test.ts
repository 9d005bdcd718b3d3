import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, runMigrations, type Database } from '../../db/client';
import { exportJobs } from '../../db/schema';
import { findPgBin, startPgCluster, type PgCluster } from '../../test/fault/pg-cluster';
import { createTestApp, type TestApp } from '../../test/test-app';
import { backendClientOfTeam } from '../backend-clients/test-support';
import { startExportWorkerProcess } from '../export/test-support';
import { createParticipants, readingsServiceFor } from '../sync/test-support';
import type { ReadingInput } from '../sync/readings.service';

const pgBin = findPgBin();
if ('missing' in pgBin) console.warn(`Bulk Data fault test skipped: ${pgBin.missing}`);

const T0 = Date.parse('2026-03-02T08:00:00Z');
/** Per participant: 60 heart rates, a blood-pressure panel and a day of steps. */
const OBSERVATIONS_PER_PARTICIPANT = 62;

type Manifest = { output: { type: string; url: string; count: number }[]; error: unknown[] };

/**
 * A FHIR Bulk Data export (issue 31) through the faults the ZIP export survives (export.test's
 * worker processes, the database fault test): its worker process killed mid-export, and
 * PostgreSQL stopped and started under a running export. Its files are written in the run's
 * work directory and renamed into place whole, and the job completes only after that: the
 * status URL answers 202 while the export is unfinished, the file URLs 404, and once done
 * every file the manifest lists is whole. The cluster is the test's own (initdb in a temporary
 * folder, decision 0125), so stopping it disturbs nobody; the worker is a real process
 * (export/test-export-worker.ts, what the pg-boss handler runs) that the test holds after its first page.
 */
describe.skipIf('missing' in pgBin)(
  'Bulk Data exports through worker and database faults (own cluster)',
  () => {
    let cluster: PgCluster;
    let database: Database;
    let t: TestApp;
    let trialId: number;
    let token: string;
    const children: ChildProcess[] = [];

    beforeAll(async () => {
      cluster = await startPgCluster({ bin: (pgBin as { bin: string }).bin, name: 'bulk-faults' });
      await cluster.createDatabase('bulk');
      database = await openDatabase({
        kind: 'postgres',
        connectionString: cluster.url('bulk'),
        maxConnections: 5,
      });
      await runMigrations(database);
      t = await createTestApp({ database });
      const fixture = await createParticipants(database.db, 3);
      trialId = fixture.trialId;
      await readingsServiceFor(database.db).store(
        fixture.participantIds.flatMap((id) => readingsOf(fixture.teamId, id)),
      );
      ({ token } = await backendClientOfTeam(t, fixture.teamId));
    });
    afterAll(async () => {
      for (const child of children)
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await t?.close();
      await database?.close().catch(() => undefined);
      await cluster?.destroy();
    });

    const call = (method: 'GET' | 'DELETE', url: string, headers: Record<string, string> = {}) =>
      t.app.inject({
        method,
        url: url.replace(t.config.PUBLIC_URL, ''),
        headers: { authorization: `Bearer ${token}`, ...headers },
      });
    const kickOff = async () => {
      const response = await call('GET', `/fhir/Group/${trialId}/$export`, {
        accept: 'application/fhir+json',
        prefer: 'respond-async',
      });
      expect(response.statusCode, response.body).toBe(202);
      const statusUrl = response.headers['content-location'] as string;
      return { statusUrl, id: Number(statusUrl.split('/').at(-1)) };
    };
    const root = () => path.join(t.config.DATA_DIR, 'exports');
    const entries = (dir: 'files' | 'parts', id: number) =>
      fs.existsSync(path.join(root(), dir))
        ? fs
            .readdirSync(path.join(root(), dir))
            .filter((name) => name.startsWith(`${id}-`) || name.startsWith(`${id}.`))
        : [];
    /** A worker process running the export job `id`, held after its first page when `hold`. */
    const startWorker = (id: number, hold: boolean) =>
      startExportWorkerProcess({
        jobId: id,
        databaseUrl: cluster.url('bulk'),
        dataDir: t.config.DATA_DIR,
        hold,
        children,
        pageSize: 20,
        resourcesPerFile: 50,
      });
    /** The export is served whole: every file of the manifest with as many resources as it says. */
    const expectWhole = async (statusUrl: string) => {
      const status = await call('GET', statusUrl);
      expect(status.statusCode, status.body).toBe(200);
      const manifest = status.json() as Manifest;
      for (const file of manifest.output) {
        const response = await call('GET', file.url, { accept: 'application/fhir+ndjson' });
        expect(response.statusCode).toBe(200);
        expect(response.body.endsWith('\n')).toBe(true);
        const lines = response.body.trimEnd().split('\n');
        expect([file.url, lines.length]).toEqual([file.url, file.count]);
        for (const line of lines) expect(JSON.parse(line).resourceType).toBe(file.type);
      }
      const observations = manifest.output
        .filter((file) => file.type === 'Observation')
        .reduce((sum, file) => sum + file.count, 0);
      expect(observations).toBe(3 * OBSERVATIONS_PER_PARTICIPANT);
      return manifest;
    };

    it('a worker process killed mid-export: nothing is served while it is unfinished; the retry in another process writes every file whole', async () => {
      const { statusUrl, id } = await kickOff();
      const first = startWorker(id, true);
      await first.held;
      // Mid-export: running, its files in the run's work directory only, none served.
      expect((await call('GET', statusUrl)).statusCode).toBe(202);
      expect(entries('parts', id)).toEqual([`${id}.1.work`]);
      // The first file is being written: its write stream opens the file asynchronously, so
      // on a busy machine the file may appear just after the worker reported its first page.
      await expect
        .poll(() => fs.readdirSync(path.join(root(), 'parts', `${id}.1.work`)))
        .toContain('Patient-1.ndjson');
      expect(entries('files', id)).toEqual([]);
      const fileUrl = `/fhir/bulkfiles/${id}/Patient-1.ndjson`;
      expect((await call('GET', fileUrl)).statusCode).toBe(404);

      first.child.kill('SIGKILL');
      await first.exited;
      expect(first.child.signalCode).toBe('SIGKILL');
      expect((await call('GET', statusUrl)).statusCode).toBe(202);
      expect((await call('GET', fileUrl)).statusCode).toBe(404);

      // pg-boss runs the job again once the dead run expires; the retry takes over a job
      // silent for longer than the takeover time.
      await database.db.execute(
        sql`update export_jobs set updated_at = now() - interval '10 minutes' where id = ${id}`,
      );
      const retry = startWorker(id, false);
      expect(await retry.outcome()).toMatchObject({ status: 'completed' });
      await expectWhole(statusUrl);
      // The dead run's work directory went with the retry's claim.
      expect(entries('parts', id)).toEqual([]);
      expect(entries('files', id)).toEqual([`${id}-2.bulk`]);
    });

    it('PostgreSQL stopped and started under a running export: 503 OperationOutcome while it is away, then the export is whole or failed, never half-written', async () => {
      const { statusUrl, id } = await kickOff();
      const worker = startWorker(id, true);
      await worker.held;

      await cluster.stop('fast');
      const away = await call('GET', statusUrl);
      expect(away.statusCode).toBe(503);
      expect(away.headers['content-type']).toBe('application/fhir+json; charset=utf-8');
      expect(away.json()).toMatchObject({ resourceType: 'OperationOutcome' });
      expect((await call('GET', `/fhir/bulkfiles/${id}/Patient-1.ndjson`)).statusCode).toBe(503);
      await cluster.start();

      worker.release();
      const outcome = await worker.outcome();
      // The run's connection died with the server: it either failed (its files removed) or,
      // reconnected, finished. Either way the status URL never serves a partial export.
      expect(['completed', 'failed']).toContain(outcome.status);
      const deadline = Date.now() + 30_000;
      let status = await call('GET', statusUrl);
      while (status.statusCode === 503 && Date.now() < deadline)
        status = await call('GET', statusUrl);
      const row = (await database.db.select().from(exportJobs).where(eq(exportJobs.id, id)))[0]!;
      if (outcome.status === 'completed') {
        expect(row.status).toBe('completed');
        await expectWhole(statusUrl);
      } else {
        expect(row.status).toBe('failed');
        expect(status.statusCode).toBe(500);
        expect(status.json()).toMatchObject({ resourceType: 'OperationOutcome' });
        expect(entries('files', id)).toEqual([]);
      }
      expect(entries('parts', id)).toEqual([]);

      // And the next export after the restart is whole.
      const next = await kickOff();
      expect(await startWorker(next.id, false).outcome()).toMatchObject({ status: 'completed' });
      await expectWhole(next.statusUrl);
    });
  },
);

function readingsOf(teamId: number, participantId: number): ReadingInput[] {
  return [
    ...Array.from({ length: 60 }, (_, minute) => ({
      teamId,
      participantId,
      brand: 'Fitbit' as const,
      upstream: 'google-health' as const,
      metricKey: 'heart_rate',
      recordedAt: new Date(T0 + minute * 60_000),
      utcOffsetMinutes: 60,
      value: 60 + (minute % 30),
      dataSource: 'Charge 6',
    })),
    ...['systolic', 'diastolic'].map((metricKey, k) => ({
      teamId,
      participantId,
      brand: 'Omron' as const,
      upstream: 'omron' as const,
      metricKey,
      recordedAt: new Date(T0 + 3_600_000),
      utcOffsetMinutes: 60,
      value: [118, 77][k]!,
    })),
    {
      teamId,
      participantId,
      brand: 'Fitbit' as const,
      upstream: 'google-health' as const,
      metricKey: 'steps',
      recordedAt: new Date(Date.UTC(2026, 2, 2)),
      value: 9120,
    },
  ];
}
