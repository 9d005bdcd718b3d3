import type { EnqueueSync } from '../modules/sync/webhooks.routes';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app';
import { loadConfig, type Config } from '../config/env';
import type { Database } from '../db/client';
import { createTestDatabase } from './test-database';
import type { Clock } from '../lib/clock';
import type { PasswordHasher } from '../lib/passwords';

export type TestApp = {
  app: FastifyInstance;
  database: Database;
  config: Config;
  /** Every log line the app wrote, as text. */
  logLines(): string[];
  close(): Promise<void>;
};

/**
 * The real app on a fresh test database (PGlite, or PostgreSQL when TEST_DATABASE_URL is
 * set). Logs are kept in memory for assertions and appended to TEST_LOG_DIR, so the test
 * runner can check the logs of the whole run.
 */
export async function createTestApp(
  options: {
    env?: Record<string, string>;
    database?: Database;
    clock?: Clock;
    passwordHasher?: PasswordHasher;
    /** Where webhooks enqueue targeted syncs (a test's pg-boss). */
    enqueueSync?: EnqueueSync;
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trialpulse-test-'));
  const config = loadConfig({
    TRIALPULSE_MODE: 'test',
    DATA_DIR: dataDir,
    APP_SECRET: randomBytes(32).toString('hex'),
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SERVE_WEB: 'false',
    JOBS_ENABLED: 'false',
    LOG_LEVEL: 'info',
    // A cheap proof of work: tests solve many human checks; the mechanism is the same.
    HUMAN_CHECK_DIFFICULTY: '1000',
    ...options.env,
  });
  const lines: string[] = [];
  const logFile = process.env.TEST_LOG_DIR
    ? path.join(process.env.TEST_LOG_DIR, `server-${process.pid}.log`)
    : undefined;
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      const text = chunk.toString();
      lines.push(text);
      if (logFile) fs.appendFileSync(logFile, text);
      callback();
    },
  });
  const app = await buildApp({
    config,
    database,
    logger: { stream },
    clock: options.clock,
    passwordHasher: options.passwordHasher,
    ...(options.enqueueSync && { enqueueSync: options.enqueueSync }),
  });
  return {
    app,
    database,
    config,
    logLines: () => lines.join('').split('\n').filter(Boolean),
    async close() {
      await app.close();
      if (!options.database) await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A CSRF token and the cookie that goes with it, as a browser would hold them. */
export async function csrfSession(
  app: FastifyInstance,
): Promise<{ token: string; cookie: string }> {
  const response = await app.inject({ method: 'GET', url: '/api/csrf-token' });
  const cookie = response.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  return { token: response.json().csrfToken, cookie };
}
