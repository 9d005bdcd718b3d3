import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { MIGRATIONS_DIR } from '../config/paths';
import * as schema from './schema';
import { upsertMetricCatalog } from './reference/metric-catalog';
import type { Db } from './types';

// The database types live in types.ts (reference data imports them without importing this file).
export type { Db, DbOrTx, DbQueryResultHKT, QueryRows, Schema } from './types';

/** Runs raw SQL with positional parameters; what pg-boss needs from us on PGlite. */
export type SqlExecutor = {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
};

export type Database = {
  kind: 'pglite' | 'postgres';
  db: Db;
  executor: SqlExecutor;
  /** Connection string for PostgreSQL mode (pg-boss opens its own pool there). */
  connectionString?: string;
  close(): Promise<void>;
};

export type DatabaseOptions =
  | { kind: 'postgres'; connectionString: string; maxConnections?: number }
  /**
   * dataDir undefined → in-memory (tests). loadDataDir: start from a `dumpDataDir()` tarball
   * instead of an empty cluster (tests use a migrated template; much faster than initdb).
   */
  | { kind: 'pglite'; dataDir?: string; loadDataDir?: Blob };

/**
 * A broken connection must never crash the process: idle ones report to the pool, and every
 * client gets its own listener too, because a client checked out (e.g. inside a transaction)
 * when the server goes away emits 'error' on itself — unhandled, that event would end the
 * process. The query in flight fails (503) and the pool connects anew for the next one.
 */
export function ignoreConnectionErrors(pool: pg.Pool): pg.Pool {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return pool;
}

/** Opens the database: PGlite files under dataDir, in memory, or a PostgreSQL pool. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.kind === 'postgres') {
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: 5_000,
    });
    ignoreConnectionErrors(pool);
    const db = drizzlePg({ client: pool, schema }) as unknown as Db;
    return {
      kind: 'postgres',
      db,
      connectionString: options.connectionString,
      executor: { executeSql: async (text, values) => pool.query(text, values as unknown[]) },
      close: () => pool.end(),
    };
  }

  if (options.dataDir) fs.mkdirSync(path.dirname(options.dataDir), { recursive: true });
  const client = new PGlite({
    dataDir: options.dataDir,
    loadDataDir: options.loadDataDir,
    // The list filters' trigram indexes (migration 0016, decision 0203).
    extensions: { pg_trgm },
  });
  await client.waitReady;
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    executor: {
      // PGlite's `query` runs one statement with parameters; `exec` runs a script.
      executeSql: async (text, values) => {
        if (values && values.length > 0) return client.query(text, values);
        const results = await client.exec(text);
        return { rows: results.at(-1)?.rows ?? [] };
      },
    },
    close: () => client.close(),
  };
}

/**
 * Applies the committed drizzle-kit migrations, then the product's reference data (the
 * metric catalog), so every mode — demo, production, tests, the admin command — has it.
 * Throws (and so exits non-zero) on failure.
 */
export async function runMigrations(database: Database): Promise<void> {
  if (database.kind === 'postgres') {
    await migratePg(database.db as never, { migrationsFolder: MIGRATIONS_DIR });
  } else {
    await migratePglite(database.db as never, { migrationsFolder: MIGRATIONS_DIR });
  }
  await upsertMetricCatalog(database.db);
}
