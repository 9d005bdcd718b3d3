import path from 'node:path';
import { is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import * as schema from '../db/schema';
import { REPO_ROOT } from '../config/paths';

/**
 * The table boundary of eslint.config.js run through ESLint's API on snippets placed in
 * module folders: a module may import its own tables and its listed exceptions from
 * db/schema, never another module's table.
 */
const eslint = new ESLint({ cwd: REPO_ROOT });
const config = (await import(path.join(REPO_ROOT, 'eslint.config.js'))) as {
  TABLE_OWNERS: Record<string, string[]>;
  TABLE_EXCEPTIONS: Record<string, { tables: string[]; reason: string }>;
};

/** The messages of the table rule for `code` as if it were `file` (relative to the repository). */
async function tableErrors(file: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO_ROOT, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const snippet = (names: string, from = '../../db/schema') =>
  `import { ${names} } from '${from}';\nexport const used = [${names.replace(/type \w+,?/g, '')}];\n`;

describe('one owner per table (lint)', () => {
  it("fails when a module imports another module's table, reads included", async () => {
    const errors = await tableErrors(
      'apps/server/src/modules/participants/snippet.ts',
      snippet('users'),
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("'users' import from '../../db/schema' is restricted");
    // From a sub-folder and a schema file directly, too.
    expect(
      await tableErrors(
        'apps/server/src/modules/devices/core/snippet.ts',
        snippet('trialUsers', '../../../db/schema/trials'),
      ),
    ).toHaveLength(1);
  });

  it("sends a module that only shows another module's rows to that module's service", async () => {
    // Participants answer /teamAllowedDevices and /teamSupportedDevices through the
    // team-admin service, which owns those tables.
    for (const table of ['teamAllowedBrands', 'teamSupportedDevices', 'globalDeviceCatalog']) {
      expect(
        await tableErrors('apps/server/src/modules/participants/snippet.ts', snippet(table)),
        table,
      ).toHaveLength(1);
    }
  });

  it('lets a module import its own tables, its listed exceptions and schema types', async () => {
    expect(
      await tableErrors('apps/server/src/modules/participants/snippet.ts', snippet('participants')),
    ).toEqual([]);
    expect(
      await tableErrors('apps/server/src/modules/access/snippet.ts', snippet('trials, trialUsers')),
    ).toEqual([]);
    expect(
      await tableErrors(
        'apps/server/src/modules/trials/snippet.ts',
        `import type { DeviceBrand } from '../../db/schema';\nexport type B = DeviceBrand;\n`,
      ),
    ).toEqual([]);
  });

  it('sends participants and completeness to the readings service for stored readings', async () => {
    // Issue 27: device_readings is read through ReadingsService (the participants' deletion
    // count, the completeness grid), no longer imported by these modules.
    for (const module of ['participants', 'completeness']) {
      expect(
        await tableErrors(
          `apps/server/src/modules/${module}/snippet.ts`,
          snippet('deviceReadings'),
        ),
        module,
      ).toHaveLength(1);
    }
  });

  it('keeps the simulators out of product modules', async () => {
    const errors = await tableErrors(
      'apps/server/src/modules/devices/snippet.ts',
      `import { consentAtSimulator } from '@trialpulse/provider-simulators/embedded';\nexport const c = consentAtSimulator;\n`,
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('never imports the simulators');
  });

  it('leaves tests alone (they arrange rows directly)', async () => {
    expect(
      await tableErrors('apps/server/src/modules/participants/snippet.test.ts', snippet('users')),
    ).toEqual([]);
  });

  it('every table of db/schema has exactly one owner, and every exception a reason', () => {
    const tables = Object.entries(schema)
      .filter(([, value]) => is(value, PgTable))
      .map(([name]) => name)
      .sort();
    const owned = Object.values(config.TABLE_OWNERS).flat();
    expect(tables.filter((table) => !owned.includes(table))).toEqual([]);
    expect(owned.length).toBe(new Set(owned).size);
    for (const [module, exception] of Object.entries(config.TABLE_EXCEPTIONS)) {
      expect(exception.reason.length, module).toBeGreaterThan(20);
    }
  });
});
