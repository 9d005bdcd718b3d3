import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../config/paths';

/**
 * docs/architecture.md is the guide a newcomer copies from ("add a provider", "add a sync
 * stream", "add an export format"): every file or folder it names in backticks must exist,
 * so a move or rename that forgets the guide fails here instead of misleading the reader.
 * A name counts as a path when it has a slash or a file extension; templates (`<feature>`,
 * `*.ts`, `{api,pages}`) and package specifiers (`@trialpulse/…`) are not paths. The guide
 * names paths relative to whichever folder the section is about (`lib/errors.ts` under
 * the server, `features/…` under the web app), so a name exists when some file or folder
 * of the repository ends with it.
 */
const GUIDE = path.join(REPO_ROOT, 'docs/architecture.md');
const SKIPPED_FOLDERS = new Set(['node_modules', '.git', 'dist', '.data', '.tmp', 'coverage']);
const EXTENSION = /\.(ts|tsx|js|mjs|cjs|json|md|css|sql|yml|yaml)$/;
/** Lint rule names look like paths (`plugin/rule`). */
const RULE_NAMESPACES = ['trialpulse/', 'import-x/', 'react-hooks/', '@typescript-eslint/'];

function repositoryPaths(): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(REPO_ROOT, relative), { withFileTypes: true })) {
      if (SKIPPED_FOLDERS.has(entry.name)) continue;
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        found.push(`${child}/`);
        walk(child);
      } else found.push(child);
    }
  };
  walk('');
  return found;
}

/** The backticked names of the guide that are paths (see above). */
export function namedPaths(markdown: string): string[] {
  const names = new Set<string>();
  for (const [, code] of markdown.matchAll(/`([^`\n]+)`/g)) {
    const name = code!.trim();
    if (
      /[<>*{}…\s(),:'"=]/.test(name) ||
      name.startsWith('@') ||
      name.startsWith('-') ||
      name.startsWith('.')
    )
      continue;
    if (RULE_NAMESPACES.some((namespace) => name.startsWith(namespace))) continue;
    if (name.includes('/') || EXTENSION.test(name)) names.add(name);
  }
  return [...names].sort();
}

describe('docs/architecture.md', () => {
  it('names only files and folders that exist', () => {
    const guide = fs.readFileSync(GUIDE, 'utf8');
    const names = namedPaths(guide);
    expect(names.length).toBeGreaterThan(40);
    const paths = repositoryPaths();
    const exists = (name: string) => {
      const wanted = name.replace(/\/$/, '');
      return paths.some((candidate) => {
        const bare = candidate.replace(/\/$/, '');
        return bare === wanted || bare.endsWith(`/${wanted}`);
      });
    };
    expect(names.filter((name) => !exists(name))).toEqual([]);
  });

  it('the check itself tells a missing path from a present one', () => {
    const names = namedPaths(
      'see `apps/server/src/services.ts`, `modules/<feature>/`, `@trialpulse/shared`, `trialpulse/table-writes`, `no/such/file.ts` and `ACTION_ROLES`',
    );
    expect(names).toEqual(['apps/server/src/services.ts', 'no/such/file.ts']);
  });
});
