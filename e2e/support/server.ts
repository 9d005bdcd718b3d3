import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { openDatabase, type Db } from '../../apps/server/src/db/client';
import { serverNodeArgs } from '../../apps/server/src/test/server-bundle';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type RunningServer = {
  baseUrl: string;
  dataDir: string;
  /** Base URLs of the provider simulators the server started in-process (demo mode). */
  simulators: SimulatorUrls;
  /** Terminal output that is not a log line (the start banner). */
  terminalText(): string;
  stop(): Promise<void>;
};

/** Environment overrides of one server; `undefined` removes a variable (the server's own default applies). */
export type ServerEnv = Record<string, string | undefined>;

export type SimulatorUrls = {
  googleHealth: string;
  fitbitLegacy: string;
  omron: string;
  dexcom: string;
};

/**
 * Starts the real server (`apps/server/src/main.ts`, bundled by test/server-bundle.ts; demo
 * mode, the built web app) on a free port with its own data directory, as `npm start`
 * does, and waits until it answers.
 * PUBLIC_URL is the origin the browser uses, so provider redirects come back to it with
 * the session cookies; the simulators get a free block of four ports (SIMULATOR_BASE_PORT).
 * JSON log lines go to TEST_LOG_DIR for the run's log check; other output is kept apart.
 */
export async function startServer(
  options: {
    dataDir?: string;
    env?: ServerEnv;
    /** Start from an empty data directory (migrations, demo seed) instead of the run's seeded copy. */
    fresh?: boolean;
    /** Called with each JSON log line the server writes, parsed. */
    onLogLine?: (line: Record<string, unknown>) => void;
  } = {},
): Promise<RunningServer> {
  const dataDir =
    options.dataDir ??
    (options.fresh ? emptyDataDir() : (seededDataDir(options.env) ?? emptyDataDir()));
  // The server's port and, unless given (a restart keeps its simulators' ports), the four
  // simulators' after it: one block, so neither takes a port picked for the other.
  const given = options.env?.SIMULATOR_BASE_PORT ? Number(options.env.SIMULATOR_BASE_PORT) : null;
  const port = await freePortBlock(given ? 1 : 5, given);
  const baseUrl = `http://127.0.0.1:${port}`;
  const simulatorBasePort = given ?? port + 1;
  const env: ServerEnv = {
    ...process.env,
    TRIALPULSE_MODE: 'demo',
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    PUBLIC_URL: baseUrl,
    SIMULATOR_BASE_PORT: String(simulatorBasePort),
    // The demo's background sync backfills one day only, so the demo readings the
    // scenarios expect are not rewritten by synced data while they run.
    SYNC_BACKFILL_DAYS: '1',
    ...options.env,
  };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  // main.ts as one bundle of our code (decision 0279): the same files, started in less CPU.
  const child = spawn(process.execPath, await serverNodeArgs(), {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logFile = process.env.TEST_LOG_DIR
    ? path.join(process.env.TEST_LOG_DIR, `e2e-server-${port}.log`)
    : undefined;
  let terminal = '';
  const onLine = (line: string) => {
    if (!line) return;
    if (!line.startsWith('{')) {
      terminal += `${line}\n`;
      return;
    }
    if (logFile) fs.appendFileSync(logFile, `${line}\n`);
    if (options.onLogLine) {
      try {
        options.onLogLine(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log line after all
      }
    }
  };
  // Whole lines: a chunk of output may end inside a line.
  createInterface({ input: child.stdout!, crlfDelay: Infinity }).on('line', onLine);
  createInterface({ input: child.stderr!, crlfDelay: Infinity }).on('line', onLine);

  inUse.add(dataDir);
  child.once('exit', () => inUse.delete(dataDir));
  await waitUntilHealthy(baseUrl, child, () => terminal);
  const simulatorUrl = (offset: number) => `http://127.0.0.1:${simulatorBasePort + offset}`;
  return {
    baseUrl,
    dataDir,
    simulators: {
      googleHealth: simulatorUrl(0),
      fitbitLegacy: simulatorUrl(1),
      omron: simulatorUrl(2),
      dexcom: simulatorUrl(3),
    },
    terminalText: () => terminal,
    stop: () => stopChild(child),
  };
}

/**
 * Starts the demo server once (migrations and the demo seed), stops it, lets `prepare`
 * write the scenario's own starting data into its database, and starts it again on the
 * same data directory and simulator ports. The server is stopped meanwhile because its
 * embedded database has one owner at a time; with DATABASE_URL the same steps apply.
 */
export async function startServerWithData(
  prepare: (db: Db) => Promise<void>,
  options: { env?: ServerEnv } = {},
): Promise<RunningServer> {
  const seeded = seededDataDir(options.env);
  if (seeded) {
    await withServerDatabase(seeded, prepare);
    return startServer({ dataDir: seeded, env: options.env });
  }
  const first = await startServer(options);
  const env = {
    ...options.env,
    SIMULATOR_BASE_PORT: String(new URL(first.simulators.googleHealth).port),
  };
  await first.stop();
  await withServerDatabase(first.dataDir, prepare);
  return startServer({ dataDir: first.dataDir, env });
}

/** Opens the database of a stopped server's data directory for `use`, then closes it. */
export async function withServerDatabase<T>(
  dataDir: string,
  use: (db: Db) => Promise<T>,
): Promise<T> {
  const database = process.env.DATABASE_URL
    ? await openDatabase({ kind: 'postgres', connectionString: process.env.DATABASE_URL })
    : await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'db') });
  try {
    return await use(database.db);
  } finally {
    await database.close();
  }
}

/** The data directories this test file created (each a demo database, ~100 MB). */
const createdDataDirs = new Set<string>();
/** The data directories of servers still running. */
const inUse = new Set<string>();

function emptyDataDir(): string {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trialpulse-e2e-'));
  createdDataDirs.add(dataDir);
  return dataDir;
}

/**
 * Removes the data directories this test file created whose servers have stopped (after
 * the file's own hooks: e2e/support/cleanup.ts). Scenarios restart servers on a stopped
 * one's directory, so a directory outlives its server until then; a run used to leave ~25
 * of them in the temporary folder.
 */
export function removeStoppedDataDirs(): void {
  for (const dataDir of createdDataDirs) {
    if (inUse.has(dataDir)) continue;
    fs.rmSync(dataDir, { recursive: true, force: true });
    createdDataDirs.delete(dataDir);
  }
}

/**
 * A new data directory holding a copy of the browser pass's seeded demo server
 * (e2e/support/demo-template.setup.ts), or undefined where a copy would not be the same as
 * a first start: outside that set-up, on an external database (DATABASE_URL), or with
 * another demo backfill (the seeded readings stop where the backfill starts).
 */
export function seededDataDir(env: ServerEnv = {}): string | undefined {
  const template = safeInject();
  if (!template || process.env.DATABASE_URL || env.DATABASE_URL) return undefined;
  if ((env.SYNC_BACKFILL_DAYS ?? '1') !== '1') return undefined;
  const dataDir = emptyDataDir();
  fs.cpSync(template, dataDir, { recursive: true });
  return dataDir;
}

function safeInject(): string | undefined {
  try {
    const dir = inject('demoTemplateDir');
    return dir && fs.existsSync(dir) ? dir : undefined;
  } catch {
    return undefined; // not inside a Vitest run with the set-up (e.g. a script)
  }
}

// A budget against hanging, not a speed check: a demo start (migrations, seed, simulators)
// took 60 s on the 2-core machine while other test runs shared it, and the first one of a
// run (the template, from nothing) passed 240 s at a load of 13; the e2e hooks allow 600 s.
const HEALTHY_WITHIN_MS = 480_000;

async function waitUntilHealthy(baseUrl: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + HEALTHY_WITHIN_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`server exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(`${baseUrl}/api/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not become healthy:\n${output()}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Ports a server of this file may take: below Linux's ephemeral range (32768+), so outgoing
 * connections and `listen(0)` never take them between the check and the server's bind, and
 * split among the browser pass's workers (VITEST_POOL_ID), so two files starting servers at
 * the same moment never pick the same one (two workers once both got port 46833 from the
 * OS, and one server failed with EADDRINUSE).
 */
function portSlice(): { first: number; size: number } {
  const slices = 4;
  const size = Math.floor(12_000 / slices);
  const worker = Math.max(1, Number(process.env.VITEST_POOL_ID ?? 1));
  return { first: 20_000 + ((worker - 1) % slices) * size, size };
}

/**
 * The first of `count` consecutive ports of this worker's slice that are all free now, none
 * of the four simulator ports from `simulatorBase` (a stopped server's, to be bound again).
 */
async function freePortBlock(count: number, simulatorBase: number | null = null): Promise<number> {
  const slice = portSlice();
  const reserved = (port: number) =>
    simulatorBase !== null && port >= simulatorBase && port < simulatorBase + 4;
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = slice.first + Math.floor(Math.random() * (slice.size - count));
    const ports = Array.from({ length: count }, (_, offset) => first + offset);
    if (ports.some(reserved)) continue;
    if ((await Promise.all(ports.map(isFree))).every(Boolean)) return first;
  }
  throw new Error(`no block of ${count} free ports found`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
