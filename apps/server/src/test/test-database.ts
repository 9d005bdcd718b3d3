import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { MIGRATIONS_DIR } from '../config/paths';
import { openDatabase, runMigrations, type Database } from '../db/client';

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or — when
 * TEST_DATABASE_URL is set — a new database `tp_test_<pid>_<random>` on that PostgreSQL
 * server, dropped again by `close()`.
 *
 * PGlite speed: creating a cluster (initdb) and migrating costs ~3 s, so the first test
 * database builds a migrated template and dumps it to the OS temp directory, keyed by the
 * migration files and the PGlite version; later ones start from that dump (~0.5 s).
 * `runMigrations` still runs on every database, so a stale template cannot hide a migration.
 */
export async function createTestDatabase(): Promise<Database> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  return serverUrl ? createPostgresTestDatabase(serverUrl) : createPgliteTestDatabase();
}

async function createPgliteTestDatabase(): Promise<Database> {
  const templateFile = path.join(os.tmpdir(), `trialpulse-pglite-template-${templateKey()}.tar`);
  if (fs.existsSync(templateFile)) {
    try {
      const database = await openDatabase({
        kind: 'pglite',
        loadDataDir: new Blob([fs.readFileSync(templateFile)]),
      });
      await migrateOrClose(database);
      return database;
    } catch {
      // A damaged template (e.g. an interrupted write elsewhere): rebuild it below.
      fs.rmSync(templateFile, { force: true });
    }
  }

  const database = await openDatabase({ kind: 'pglite' });
  await migrateOrClose(database);
  await writeTemplate(database, templateFile).catch(() => undefined);
  return database;
}

async function createPostgresTestDatabase(serverUrl: string): Promise<Database> {
  const name = `tp_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, `CREATE DATABASE "${name}"`);
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

async function migrateOrClose(database: Database): Promise<void> {
  try {
    await runMigrations(database);
  } catch (error) {
    await database.close();
    throw error;
  }
}

/** Dumps a freshly migrated PGlite database; written to a temp name, then renamed (atomic). */
async function writeTemplate(database: Database, templateFile: string): Promise<void> {
  // Drizzle exposes the driver client as `$client`; here it is the PGlite instance.
  const client = (database.db as unknown as { $client: { dumpDataDir(c: 'none'): Promise<Blob> } })
    .$client;
  const dump = await client.dumpDataDir('none');
  const partial = `${templateFile}.${process.pid}.${randomBytes(4).toString('hex')}.partial`;
  fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  fs.renameSync(partial, templateFile);
  removeStaleTemplates(templateFile);
}

/** Templates of older migration sets, unused for an hour, are removed (they are ~40 MB each). */
function removeStaleTemplates(current: string): void {
  const dir = path.dirname(current);
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name);
    if (!name.startsWith('trialpulse-pglite-template-') || file === current) continue;
    try {
      if (Date.now() - fs.statSync(file).mtimeMs > 60 * 60 * 1000) fs.rmSync(file, { force: true });
    } catch {
      // Another process removed it first.
    }
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
