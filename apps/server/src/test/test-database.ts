import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { MIGRATIONS_DIR } from '../config/paths';
import { ignoreConnectionErrors, openDatabase, runMigrations, type Database } from '../db/client';

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or — when
 * TEST_DATABASE_URL is set — a new database `tp_test_<pid>_<random>` on that PostgreSQL
 * server, dropped again by `close()`.
 *
 * PGlite speed: creating a cluster (initdb) and migrating costs ~6 s of CPU, so the first test
 * database builds a migrated template data directory (scratchDirectory(): /dev/shm), keyed by the
 * migration files and the PGlite version; later ones start on a copy of that directory. A
 * copy on disk starts in about half the CPU of loading a `dumpDataDir()` tarball into
 * PGlite's in-memory file system (which unpacks ~44 MB through Blob slices on every start),
 * and runs queries as fast; close() removes it.
 * PostgreSQL likewise: the first test database of a migration set is migrated under the name
 * `tp_template_<key>`, and later ones are created as copies of it (`CREATE DATABASE … TEMPLATE`,
 * a file copy) instead of running every migration again (~0.4 s of the server's CPU each, for
 * ~150 databases a CI run).
 * `runMigrations` still runs on every database, so a stale template cannot hide a migration.
 */
export async function createTestDatabase(): Promise<Database> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  return serverUrl ? createPostgresTestDatabase(serverUrl) : createPgliteTestDatabase();
}

/**
 * Where PGlite test data directories (and their template) live: /dev/shm, a memory file
 * system, where the system has a writable one, else the OS temp directory. Each test database
 * copies the ~42 MB, ~1,270-file template and removes it again at close; on the ext4 disk
 * here that cost ~0.7-1.3 s of CPU to copy and 0.2 s (2 s wall) to remove, in /dev/shm
 * 0.13-0.29 s and 0.05 s (0.1 s wall). A data directory lives only while its file runs.
 */
export function scratchDirectory(): string {
  const memory = '/dev/shm';
  try {
    fs.accessSync(memory, fs.constants.W_OK);
    if (fs.statSync(memory).isDirectory()) return memory;
  } catch {
    // No /dev/shm (macOS, Windows) or not writable: the OS temp directory below.
  }
  return os.tmpdir();
}

async function createPgliteTestDatabase(): Promise<Database> {
  const scratch = scratchDirectory();
  const templateDir = path.join(scratch, `trialpulse-pglite-template-${templateKey()}`);
  if (!fs.existsSync(templateDir)) await writeTemplate(templateDir).catch(() => undefined);
  // What killed runs left behind holds memory under /dev/shm: looked for at every start.
  else removeStaleTemplates(templateDir);
  if (fs.existsSync(templateDir)) {
    const dataDir = fs.mkdtempSync(path.join(scratch, 'trialpulse-pglite-test-'));
    try {
      fs.cpSync(templateDir, dataDir, { recursive: true });
      const database = await openDatabase({ kind: 'pglite', dataDir });
      await migrateOrClose(database);
      return withDataDirRemoved(database, dataDir);
    } catch {
      // A damaged template (e.g. an interrupted write elsewhere): start from nothing below.
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(templateDir, { recursive: true, force: true });
    }
  }
  const database = await openDatabase({ kind: 'pglite' });
  await migrateOrClose(database);
  return database;
}

/** The database, whose close() also removes its data directory. */
function withDataDirRemoved(database: Database, dataDir: string): Database {
  const closeClient = database.close;
  return {
    ...database,
    async close() {
      try {
        await closeClient();
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

async function createPostgresTestDatabase(serverUrl: string): Promise<Database> {
  const name = `tp_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  const template = await postgresTemplate(serverUrl);
  try {
    await onServer(
      serverUrl,
      `CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`,
    );
  } catch (error) {
    // The copy needs the template without sessions: another run's removal of an old
    // template, or a template being renamed into place, may hold one for a moment.
    if (!template) throw error;
    await onServer(serverUrl, `CREATE DATABASE "${name}"`);
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let database: Database;
  try {
    database = await openDatabase({
      kind: 'postgres',
      connectionString: url.toString(),
      maxConnections: 5,
    });
    await migrateOrClose(database);
  } catch (error) {
    await onServer(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    throw error;
  }
  const closePool = database.close;
  return {
    ...database,
    async close() {
      try {
        await closePool();
      } finally {
        await onServer(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      }
    },
  };
}

/**
 * The name of this migration set's template database on the server, built on first use;
 * null when it cannot be built (every database is then migrated from nothing). Built under a
 * temporary name and renamed into place, so a copy never starts from a half-migrated one.
 */
async function postgresTemplate(serverUrl: string): Promise<string | null> {
  const name = `tp_template_${templateKey()}`;
  const existing = await serverDatabases(serverUrl, 'tp\\_template\\_%');
  if (existing.includes(name)) return name;
  const partial = `tp_partial_${process.pid}_${randomBytes(4).toString('hex')}`;
  try {
    await onServer(serverUrl, `CREATE DATABASE "${partial}"`);
    const url = new URL(serverUrl);
    url.pathname = `/${partial}`;
    const database = await openDatabase({
      kind: 'postgres',
      connectionString: url.toString(),
      maxConnections: 1,
    });
    try {
      await runMigrations(database);
    } finally {
      await database.close();
    }
    // No sessions on a template (a copy needs none): autovacuum and strays stay out.
    await onServer(serverUrl, `ALTER DATABASE "${partial}" ALLOW_CONNECTIONS false`);
    await onServer(serverUrl, `ALTER DATABASE "${partial}" RENAME TO "${name}"`);
  } catch {
    // Another worker renamed its template first, or the build failed: theirs, or none.
    await onServer(serverUrl, `DROP DATABASE IF EXISTS "${partial}" WITH (FORCE)`).catch(
      () => undefined,
    );
    return (await serverDatabases(serverUrl, 'tp\\_template\\_%')).includes(name) ? name : null;
  }
  // Templates of older migration sets: dropped unless a copy is being made from one right now.
  for (const old of existing)
    await onServer(serverUrl, `DROP DATABASE IF EXISTS "${old}"`).catch(() => undefined);
  return name;
}

/** The server's databases whose names match a LIKE pattern. */
async function serverDatabases(serverUrl: string, pattern: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const result = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1',
      [pattern],
    );
    return result.rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
}

async function migrateOrClose(database: Database): Promise<void> {
  try {
    await runMigrations(database);
  } catch (error) {
    await database.close();
    throw error;
  }
}

/**
 * Migrates a new PGlite data directory and closes it (a clean shutdown: copies start without
 * recovery); built under a temporary name, then renamed into place (atomic).
 */
async function writeTemplate(templateDir: string): Promise<void> {
  const partial = `${templateDir}.${process.pid}.${randomBytes(4).toString('hex')}.partial`;
  try {
    const database = await openDatabase({ kind: 'pglite', dataDir: partial });
    await migrateOrClose(database);
    await database.close();
    fs.renameSync(partial, templateDir);
  } catch (error) {
    // Another worker renamed its template first, or the build failed: use theirs, or none.
    fs.rmSync(partial, { recursive: true, force: true });
    if (!fs.existsSync(templateDir)) throw error;
  }
  removeStaleTemplates(templateDir);
}

/**
 * Templates of older migration sets, and data directories a killed test run left behind,
 * unused for an hour, are removed (they are ~45 MB each, in memory under /dev/shm); the OS
 * temp directory too, where they lived before.
 */
function removeStaleTemplates(current: string): void {
  const now = fileSystemNow(path.dirname(current));
  for (const dir of new Set([path.dirname(current), os.tmpdir()])) {
    for (const name of fs.readdirSync(dir)) {
      const file = path.join(dir, name);
      const ours = ['trialpulse-pglite-template-', 'trialpulse-pglite-test-'];
      // The current template under its old place too: clones on the previous code use it.
      if (!ours.some((prefix) => name.startsWith(prefix)) || name === path.basename(current))
        continue;
      try {
        if (now - fs.statSync(file).mtimeMs > 60 * 60 * 1000)
          fs.rmSync(file, { recursive: true, force: true });
      } catch {
        // Another process removed it first.
      }
    }
  }
}

/**
 * The time as the file system stamps it, to compare with the stamps of the directories: not
 * `Date.now()`, which a test may have moved (TEST_NOW, fake timers). With a moved clock three
 * hours on, every live data directory of the other workers looked an hour old and was removed
 * under its database (`could not open file`, seen in a TEST_NOW sweep).
 */
function fileSystemNow(dir: string): number {
  const marker = path.join(
    dir,
    `trialpulse-clock-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  fs.writeFileSync(marker, '');
  try {
    return fs.statSync(marker).mtimeMs;
  } finally {
    fs.rmSync(marker, { force: true });
  }
}

/** Changes whenever a migration file or the PGlite version changes. */
function templateKey(): string {
  const digest = createHash('sha256');
  const require = createRequire(import.meta.url);
  const pgliteEntry = require.resolve('@electric-sql/pglite');
  digest.update(pgliteVersion(pgliteEntry));
  for (const file of listFiles(MIGRATIONS_DIR)) {
    digest.update(path.relative(MIGRATIONS_DIR, file));
    digest.update(fs.readFileSync(file));
  }
  return digest.digest('hex').slice(0, 16);
}

function pgliteVersion(entry: string): string {
  let dir = path.dirname(entry);
  while (dir !== path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      const parsed = JSON.parse(fs.readFileSync(manifest, 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (parsed.name === '@electric-sql/pglite') return parsed.version ?? 'unknown';
    }
    dir = path.dirname(dir);
  }
  return 'unknown';
}

function listFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? listFiles(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
    )
    .sort();
}

/**
 * A pg pool of a test's own (e.g. on a test database, to record or explain its queries), whose
 * connections' errors are ignored as the app's pool's are (ignoreConnectionErrors).
 * `pool.end()` resolves before its connections have closed, so the test database's
 * `DROP … WITH (FORCE)` at close() can still terminate one (57P01); a pool with no 'error'
 * listener then throws that outside any test and fails the whole run (a CI run beside a
 * second one did, in list-pages-plans).
 */
export function openTestPool(connectionString: string, max: number): pg.Pool {
  return ignoreConnectionErrors(new pg.Pool({ connectionString, max }));
}

/** Runs one statement on the server's maintenance database (CREATE/DROP DATABASE). */
async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
