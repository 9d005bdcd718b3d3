import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Issue 17: ECharts, drag-and-drop and XLSX code load only on the device data routes, so
 * the login route's JavaScript does not grow. The login route loads the entry module and
 * the login page; this walks their static imports (the ones a bundler puts in the same
 * chunk) and checks that none of those libraries is among them. The size itself is
 * measured by `bench/`.
 */
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const HEAVY = /^(echarts|exceljs|@dnd-kit)(\/|$)/;

describe('the login route module graph', () => {
  it('imports neither ECharts, @dnd-kit nor ExcelJS statically', () => {
    const { packages, files } = staticGraph(['main.tsx', 'features/auth/pages/login-page.tsx']);
    // The walk reaches the router, whose route table holds the data routes.
    expect(files.has(resolve(SRC, 'app/router.tsx'))).toBe(true);
    expect([...packages].filter((name) => HEAVY.test(name))).toEqual([]);
  });

  it('(the same walk finds them from the data routes and the chart canvas)', () => {
    const packages = [
      ...staticGraph(['app/routes/device-data-routes.tsx', 'components/charts/echart-canvas.tsx'])
        .packages,
    ];
    expect(packages.some((name) => name.startsWith('echarts/'))).toBe(true);
    expect(packages.some((name) => name.startsWith('@dnd-kit/'))).toBe(true);
  });
});

/** The files and bare specifiers reached from `entries` (under src) by static imports. */
function staticGraph(entries: string[]): { packages: Set<string>; files: Set<string> } {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const queue = entries.map((entry) => resolve(SRC, entry));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of staticImports(readFileSync(file, 'utf8'))) {
      // `?url`, `?raw`: the bundler emits a file name or text, not the module's code.
      if (specifier.includes('?')) continue;
      const local = specifier.startsWith('@/')
        ? resolve(SRC, specifier.slice(2))
        : specifier.startsWith('.')
          ? resolve(dirname(file), specifier)
          : null;
      if (local === null) packages.add(specifier);
      else queue.push(resolveModule(local));
    }
  }
  return { packages, files: seen };
}

/** `import … from`, `import '…'` and `export … from`, leaving out `import type` / `export type`. */
function staticImports(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const pattern =
    /^\s*(?:import|export)\s+(?!type\s)(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/gm;
  return [...code.matchAll(pattern)].map((match) => match[1]!);
}

function resolveModule(base: string): string {
  const suffixes = ['', '.ts', '.tsx', '/index.ts', '/index.tsx'];
  const found = suffixes.map((suffix) => base + suffix).find(isFile);
  if (!found) throw new Error(`cannot resolve ${base}`);
  return found;
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}
