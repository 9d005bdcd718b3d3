import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../config/paths';
import { serverNodeArgs } from '../test/server-bundle';
import type { Database } from '../db/client';
import { participantDevices, syncRuns } from '../db/schema';
import { simulatorEnvironment } from '@trialpulse/provider-simulators/embedded';
import {
  createParticipants,
  enrolledOn,
  linkForSync,
  startSyncSimulators,
  type SyncSimulators,
} from '../modules/sync/test-support';
import { providerPlugin } from '../providers';
import { createTestDatabase } from '../test/test-database';

const GOOGLE_HEALTH_WEBHOOK_PATH = providerPlugin('google-health').webhook!.path;

/**
 * PROCESS_ROLE=web hands what its requests enqueue to the worker processes: a provider
 * webhook posted to a web-only process (`main.ts`) ends as a sync run done by a separate
 * worker-only process on the same PostgreSQL database. Before, the web process's enqueue
 * answered null when it ran no workers: the webhook answered 204 and nothing was queued.
 */
const SECRET = 'web-role-webhook-secret-0123456789';

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('a web process and a worker process on one database (PostgreSQL)', () => {
  let database: Database;
  let sims: SyncSimulators;
  const children: Array<{ child: ChildProcess; output: () => string }> = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trialpulse-roles-'));

  let nodeArgs: string[];

  const startMain = (role: 'web' | 'worker', port: number) => {
    const { TEST_DATABASE_URL: _ignored, ...env } = process.env;
    const child = spawn(process.execPath, nodeArgs, {
      cwd: REPO_ROOT,
      env: {
        ...env,
        TRIALPULSE_MODE: 'test',
        PROCESS_ROLE: role,
        PORT: String(port),
        DATA_DIR: path.join(dataDir, role),
        DATABASE_URL: database.connectionString!,
        APP_SECRET: randomBytes(32).toString('hex'),
        TOKEN_ENCRYPTION_KEY: sims.encryptionKey,
        PUBLIC_URL: 'http://localhost:5173',
        GOOGLE_HEALTH_WEBHOOK_SECRET: SECRET,
        SERVE_WEB: 'false',
        SIMULATORS: 'off',
        LOG_LEVEL: 'warn',
        ...simulatorEnvironment({
          googleHealth: sims.googleHealth.baseUrl,
          fitbitLegacy: sims.fitbitLegacy.baseUrl,
          omron: sims.omron.baseUrl,
          dexcom: sims.dexcom.baseUrl,
        }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const entry = { child, output: () => output };
    children.push(entry);
    return entry;
  };
  const until = async (
    what: string,
    check: () => Promise<boolean> | boolean,
    describeState: () => Promise<string> | string,
  ) => {
    const deadline = Date.now() + 90_000;
    while (!(await check())) {
      for (const { child, output } of children)
        if (child.exitCode !== null) throw new Error(`a process exited: ${output()}`);
      if (Date.now() > deadline) throw new Error(`${what}: ${await describeState()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    sims = await startSyncSimulators();
    nodeArgs = await serverNodeArgs();
  });
  afterAll(async () => {
    await Promise.all(
      children.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
            child.once('exit', () => (clearTimeout(timer), resolve()));
            child.kill('SIGTERM');
          }),
      ),
    );
    await sims?.close();
    await database?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a webhook posted to the web process is synced by the worker process', async () => {
    const webPort = await freePort();
    const web = startMain('web', webPort);
    const worker = startMain('worker', await freePort());
    const baseUrl = `http://127.0.0.1:${webPort}`;
    await until(
      'web process not serving',
      () =>
        fetch(`${baseUrl}/api/health`).then(
          (r) => r.ok,
          () => false,
        ),
      web.output,
    );
    await until(
      'worker process without jobs',
      () => worker.output().includes('jobs started'),
      worker.output,
    );

    // Linked once both run (the worker's start-up sync of every connection is over by then).
    const fixture = await createParticipants(database.db, 1);
    const participantId = fixture.participantIds[0]!;
    await enrolledOn(database.db, participantId, new Date(sims.clock.nowMs() - 86_400_000));
    const connectionId = await linkForSync(database.db, sims, {
      teamId: fixture.teamId,
      participantId,
      brand: 'Fitbit',
      account: 'ava-thompson',
      metrics: ['heart_rate'],
    });
    const [connection] = await database.db
      .select()
      .from(participantDevices)
      .where(eq(participantDevices.id, connectionId));

    const webhookJobs = async () =>
      (
        await database.db.execute<{ state: string }>(
          sql`select state from pgboss.job where name = 'sync.connection' and data->>'connectionId' = ${String(connectionId)} and data->>'kind' = 'webhook'`,
        )
      ).rows;
    const webhookRuns = () =>
      database.db
        .select()
        .from(syncRuns)
        .where(and(eq(syncRuns.participantDeviceId, connectionId), eq(syncRuns.kind, 'webhook')));

    // The provider's notification, as Google Health delivers it (delivered again if a waiting
    // job of the connection absorbed it: the queue keeps one waiting job per connection).
    await until(
      'no webhook sync queued by the web process',
      async () => {
        const response = await fetch(`${baseUrl}${GOOGLE_HEALTH_WEBHOOK_PATH}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            data: {
              version: '1',
              healthUserId: connection!.providerUserId,
              operation: 'UPSERT',
              dataType: 'heart-rate',
              intervals: [],
            },
          }),
        });
        expect(response.status).toBe(204);
        return (await webhookJobs()).length > 0;
      },
      web.output,
    );

    // The worker process ran it: the web process has no workers.
    await until(
      'the webhook sync did not run',
      async () => (await webhookRuns()).some((run) => run.outcome !== 'running'),
      async () =>
        JSON.stringify({ jobs: await webhookJobs(), worker: worker.output(), web: web.output() }),
    );
    const [run] = await webhookRuns();
    expect(run).toMatchObject({ outcome: 'succeeded', upstream: 'google-health' });
    expect(run!.metrics).toEqual(['heart_rate']);
    expect(web.child.exitCode).toBeNull();
    expect(worker.child.exitCode).toBeNull();
  });
});
