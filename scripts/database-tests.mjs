// Which server test files depend on the database server under test, i.e. behave differently
// when TEST_DATABASE_URL is set: the PostgreSQL pass of `npm test` runs only those (the rest
// already ran, identically, in the PGlite pass). A test file counts when it, or any module it
// imports (relative static or dynamic imports, followed transitively), mentions
// TEST_DATABASE_URL — every test database comes from apps/server/src/test/test-database.ts,
// which reads it, and a test that starts a process on PostgreSQL reads it itself.
// `node scripts/database-tests.mjs` lists them (and, with --others, the rest).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVER_SRC = path.join(ROOT, 'apps/server/src');
const MARKER = 'TEST_DATABASE_URL';

// `import … from '…'`, `export … from '…'`, `import '…'`, `import('…')`. Type-only imports
// and exports are erased at run time, so they are not followed.
const IMPORT =
  /(?:^|[\s;])(import|export)\s+(type\s+)?(?:[^'"`;]*?\sfrom\s*)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every server test file, relative to the repository root, sorted. */
export function serverTestFiles() {
  return walk(SERVER_SRC)
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.relative(ROOT, file).split(path.sep).join('/'))
    .sort();
}

/** The server test files that depend on TEST_DATABASE_URL (see the file comment). */
export function databaseTestFiles() {
  const memo = new Map();
  return serverTestFiles().filter(
    (file) => file.endsWith('.pg.test.ts') || reaches(path.join(ROOT, file), memo, new Set()),
  );
}

function reaches(file, memo, visiting) {
  if (memo.has(file)) return memo.get(file);
  if (visiting.has(file)) return false; // a cycle: decided by the module that started it
  visiting.add(file);
  const text = fs.readFileSync(file, 'utf8');
  let found = text.includes(MARKER);
  for (const match of found ? [] : text.matchAll(IMPORT)) {
    const isTypeOnly = Boolean(match[2]);
    const specifier = match[3] ?? match[4];
    if (isTypeOnly || !specifier.startsWith('.')) continue;
    const target = resolve(path.dirname(file), specifier);
    if (target && reaches(target, memo, visiting)) {
      found = true;
      break;
    }
  }
  visiting.delete(file);
  memo.set(file, found);
  return found;
}

function resolve(directory, specifier) {
  const base = path.resolve(directory, specifier);
  const stem = base.replace(/\.(m?js|ts|tsx)$/, '');
  const candidates = [
    base,
    `${stem}.ts`,
    `${stem}.tsx`,
    `${stem}.mts`,
    path.join(base, 'index.ts'),
  ];
  return candidates.find(
    (candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile(),
  );
}

function walk(directory) {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : walk(full);
    return [full];
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const database = databaseTestFiles();
  const list = process.argv.includes('--others')
    ? serverTestFiles().filter((file) => !database.includes(file))
    : database;
  console.log(list.join('\n'));
}
