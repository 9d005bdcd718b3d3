import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A private PostgreSQL cluster for fault tests: `initdb` + `pg_ctl` into a temporary folder,
 * on 127.0.0.1 and a free port, which the test may stop, restart and kill at will (the
 * machine's shared server is never touched). initdb refuses root: as root the folder is
 * handed to the `postgres` user and every binary runs through `runuser -u postgres --`.
 */

/** The folder holding initdb, pg_ctl and postgres (PG_BIN, else the newest /usr/lib/postgresql/<ver>/bin), or why there is none. */
export function findPgBin(): { bin: string } | { missing: string } {
  const has = (dir: string) =>
    ['initdb', 'pg_ctl', 'postgres'].every((name) => fs.existsSync(path.join(dir, name)));
  if (process.env.PG_BIN) {
    return has(process.env.PG_BIN)
      ? { bin: process.env.PG_BIN }
      : { missing: `PG_BIN=${process.env.PG_BIN} holds no initdb, pg_ctl and postgres` };
  }
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const version of versions) {
    const dir = path.join(root, version, 'bin');
    if (has(dir)) return { bin: dir };
  }
  return {
    missing: `no PostgreSQL server binaries (initdb, pg_ctl, postgres) under ${root}/<version>/bin; set PG_BIN`,
  };
}

export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

export type PgCluster = Awaited<ReturnType<typeof startPgCluster>>;

export async function startPgCluster(options: { bin: string; name: string }) {
  const { bin } = options;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `trialpulse-${options.name}-`));
  const dataDir = path.join(root, 'data');
  const logFile = path.join(root, 'postgres.log');
  const asRoot = isRoot();
  if (asRoot) {
    fs.chmodSync(root, 0o755);
    spawnSync('chown', ['-R', 'postgres:postgres', root], { stdio: 'ignore' });
  }
  const port = await freePort();
  const pg = async (tool: string, args: string[], timeoutMs = 60_000) => {
    const file = path.join(bin, tool);
    const [command, commandArgs] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', file, ...args]]
      : [file, args];
    try {
      return await run(command, commandArgs, { timeout: timeoutMs, cwd: root });
    } catch (error) {
      const failure = error as Error & { stdout?: string; stderr?: string };
      throw new Error(
        `${tool} ${args.join(' ')} failed: ${failure.message}\n${failure.stdout ?? ''}${failure.stderr ?? ''}`,
      );
    }
  };

  await pg('initdb', [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
    '--no-instructions',
  ]);
  // fsync off: only an operating-system crash loses data then, not a PostgreSQL crash. Every
  // commit stays synchronous (synchronous_commit on), so an acknowledged write survives
  // `-m immediate` and kill -9.
  const serverOptions = `-k ${root} -h 127.0.0.1 -p ${port} -c fsync=off -c full_page_writes=off -c max_connections=200`;
  const start = async () => {
    // After kill -9 of the postmaster its backends go on a moment, holding the shared
    // memory: the start is refused until they have gone.
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await pg('pg_ctl', [
          'start',
          '-w',
          '-t',
          '60',
          '-D',
          dataDir,
          '-l',
          logFile,
          '-o',
          serverOptions,
        ]);
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  };
  await start();

  const postmasterPid = () =>
    Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;

  return {
    port,
    url,
    logFile,
    start,
    async stop(mode: 'fast' | 'immediate') {
      await pg('pg_ctl', ['stop', '-w', '-t', '60', '-D', dataDir, '-m', mode]);
    },
    async restart(mode: 'fast') {
      await pg('pg_ctl', [
        'restart',
        '-w',
        '-t',
        '60',
        '-D',
        dataDir,
        '-m',
        mode,
        '-l',
        logFile,
        '-o',
        serverOptions,
      ]);
    },
    /** SIGKILL to the postmaster only (its backends notice and exit by themselves). */
    killPostmaster() {
      process.kill(postmasterPid(), 'SIGKILL');
    },
    async createDatabase(name: string) {
      await pg('createdb', ['-h', root, '-p', String(port), '-U', 'postgres', name]);
    },
    logTail(lines = 30) {
      try {
        return fs.readFileSync(logFile, 'utf8').split('\n').slice(-lines).join('\n');
      } catch {
        return '';
      }
    },
    /** Stops the cluster (immediately, whatever state it is in) and removes its folder. */
    async destroy() {
      try {
        await pg('pg_ctl', ['stop', '-w', '-D', dataDir, '-m', 'immediate'], 30_000);
      } catch {
        // Already stopped.
      }
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
