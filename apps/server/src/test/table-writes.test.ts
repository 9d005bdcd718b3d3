import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../config/paths';

/**
 * The write boundary of eslint.config.js (`trialpulse/table-writes`, TABLE_WRITE_EXCEPTIONS)
 * run through ESLint's API on snippets placed in the server's folders: inserts, updates and
 * deletes only on the file owner's tables, in modules, jobs and plugins alike, Drizzle calls
 * and raw SQL alike. Each refusal below is a snippet the rule must flag, so a rule that stops
 * running fails this file.
 */
const eslint = new ESLint({ cwd: REPO_ROOT });

async function writeErrors(file: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO_ROOT, file) });
  expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
  return result!.messages
    .filter((m) => m.ruleId === 'trialpulse/table-writes')
    .map((m) => m.message);
}

/** A repository-like snippet that writes `table` with `call` (insert / update / delete). */
const drizzleWrite = (table: string, call: string, from: string) =>
  `import { eq } from 'drizzle-orm';\nimport type { DbOrTx } from '${from}/db/client';\nimport { ${table} } from '${from}/db/schema';\n` +
  `export async function write(tx: DbOrTx, id: number) {\n  await tx.${call}(${table})${
    call === 'insert'
      ? '.values({} as never)'
      : call === 'update'
        ? `.set({} as never).where(eq(${table}.id, id))`
        : `.where(eq(${table}.id, id))`
  };\n}\n`;

const rawWrite = (statement: string, from: string) =>
  `import { sql } from 'drizzle-orm';\nimport type { Db } from '${from}/db/client';\nexport async function write(db: Db, id: number) {\n  await db.execute(sql\`${statement}\`);\n}\n`;

describe('a module writes only its own tables (lint)', () => {
  it("refuses the sync writing the devices module's participant_devices (its old end of run)", async () => {
    const errors = await writeErrors(
      'apps/server/src/modules/sync/snippet.ts',
      drizzleWrite('participantDevices', 'update', '../..'),
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(
      "'sync' updates table 'participantDevices', which belongs to 'devices'",
    );
  });

  it('refuses insert and delete too, and raw SQL by name or by interpolated table', async () => {
    expect(
      await writeErrors(
        'apps/server/src/modules/export/snippet.ts',
        drizzleWrite('deviceReadings', 'insert', '../..'),
      ),
    ).toHaveLength(1);
    expect(
      await writeErrors(
        'apps/server/src/modules/completeness/snippet.ts',
        drizzleWrite('participants', 'delete', '../..'),
      ),
    ).toHaveLength(1);
    expect(
      await writeErrors(
        'apps/server/src/modules/metrics/snippet.ts',
        rawWrite('DELETE FROM device_readings WHERE id = ${id}', '../..'),
      ),
    ).toEqual([
      expect.stringContaining("'metrics' deletes table 'deviceReadings', which belongs to 'sync'"),
    ]);
    const interpolated =
      `import { sql } from 'drizzle-orm';\nimport type { Db } from '../../db/client';\nimport { participantDevices } from '../../db/schema';\n` +
      'export async function write(db: Db) {\n  await db.execute(sql`update ${participantDevices} set last_sync_at = now()`);\n}\n';
    expect(await writeErrors('apps/server/src/modules/sync/snippet.ts', interpolated)).toHaveLength(
      1,
    );
  });

  it('covers jobs/ and plugins/, which own no table', async () => {
    expect(
      await writeErrors(
        'apps/server/src/jobs/snippet.ts',
        drizzleWrite('mailOutbox', 'delete', '..'),
      ),
    ).toEqual([
      expect.stringContaining("'jobs' deletes table 'mailOutbox', which belongs to 'mail'"),
    ]);
    expect(
      await writeErrors(
        'apps/server/src/plugins/snippet.ts',
        drizzleWrite('sessions', 'update', '..'),
      ),
    ).toEqual([
      expect.stringContaining("'plugins' updates table 'sessions', which belongs to 'auth'"),
    ]);
  });

  it('lets an owner write its tables, and the listed exceptions theirs', async () => {
    expect(
      await writeErrors(
        'apps/server/src/modules/devices/snippet.ts',
        drizzleWrite('participantDevices', 'update', '../..'),
      ),
    ).toEqual([]);
    expect(
      await writeErrors(
        'apps/server/src/modules/sync/snippet.ts',
        rawWrite('update sync_runs set outcome = ${"failed"}', '../..'),
      ),
    ).toEqual([]);
    expect(
      await writeErrors(
        'apps/server/src/plugins/rate-limit-store.ts',
        drizzleWrite('rateLimitHits', 'insert', '..'),
      ),
    ).toEqual([]);
    // A write exception is its owner's only: the maintenance purge may delete one-time
    // tokens, another job may not; and sfa no longer writes sessions (auth publishes it).
    expect(
      await writeErrors(
        'apps/server/src/jobs/maintenance.ts',
        drizzleWrite('oneTimeTokens', 'delete', '..'),
      ),
    ).toEqual([]);
    expect(
      await writeErrors(
        'apps/server/src/jobs/snippet.ts',
        drizzleWrite('oneTimeTokens', 'delete', '..'),
      ),
    ).toHaveLength(1);
    expect(
      await writeErrors(
        'apps/server/src/modules/sfa/snippet.ts',
        drizzleWrite('sessions', 'update', '../..'),
      ),
    ).toHaveLength(1);
  });

  it('reads are not writes; tests are not checked', async () => {
    const read =
      `import { eq } from 'drizzle-orm';\nimport type { Db } from '../../db/client';\nimport { participantDevices } from '../../db/schema';\n` +
      'export const read = (db: Db, id: number) => db.select().from(participantDevices).where(eq(participantDevices.id, id));\n';
    expect(await writeErrors('apps/server/src/modules/sync/snippet.ts', read)).toEqual([]);
    expect(
      await writeErrors(
        'apps/server/src/modules/sync/snippet.test.ts',
        drizzleWrite('participantDevices', 'update', '../..'),
      ),
    ).toEqual([]);
  });
});
