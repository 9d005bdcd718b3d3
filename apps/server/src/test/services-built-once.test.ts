import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Services are built once per process, by `createServices` (services.ts, decision 0156):
 * product code elsewhere never calls the factories of the services the jobs and routes share.
 * Tests and their helpers are not product code (they build through test/test-services.ts).
 */
const SRC = path.resolve(import.meta.dirname, '..');
const SHARED_FACTORIES = [
  'createReadingsService',
  'createSyncService',
  'createCompletenessDigest',
  'createMailService',
];

function productFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'test' || entry.name === 'test-support' ? [] : productFiles(file);
    const testOnly = /\.test\.ts$|^test-|test-support\.ts$|contract-support\.ts$/.test(entry.name);
    return entry.name.endsWith('.ts') && !testOnly ? [file] : [];
  });
}

/** `file:line name` for each call of one of `names` in product code. */
function callsOf(names: string[]): string[] {
  const pattern = new RegExp(`\\b(${names.join('|')})\\(`, 'g');
  return productFiles(SRC).flatMap((file) =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) =>
        [...line.matchAll(pattern)]
          .filter(() => !/^\s*(export\s+)?(async\s+)?function\b/.test(line))
          .map((match) => `${path.relative(SRC, file)}:${index + 1} ${match[1]}`),
      ),
  );
}

describe('services built once (createServices)', () => {
  it('builds the readings, sync, digest and mail services only in services.ts', () => {
    const outside = callsOf(SHARED_FACTORIES).filter((call) => !call.startsWith('services.ts:'));
    expect(outside).toEqual([]);
    // The readings service exactly once.
    expect(callsOf(['createReadingsService'])).toHaveLength(1);
  });

  it('builds no service outside services.ts (any create…Service factory)', () => {
    const outside = callsOf(['create[A-Z]\\w*Service']).filter(
      (call) => !call.startsWith('services.ts:'),
    );
    expect(outside).toEqual([]);
  });

  it('calls createServices only from main.ts and the CLI (once per process) and app.ts (when not given them)', () => {
    const files = callsOf(['createServices']).map((call) => call.split(':')[0]);
    expect(files.sort()).toEqual(['app.ts', path.join('cli', 'admin-commands.ts'), 'main.ts']);
  });
});
