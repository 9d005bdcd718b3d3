import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const root = import.meta.dirname;
const web = 'apps/web/src';
const serverModules = 'apps/server/src/modules';

/** Sub-folders of a repository folder, read at lint time so new features need no config. */
function foldersIn(relative) {
  const dir = path.join(root, relative);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

/** Web: shared code (components, hooks, lib, utils, …) → features → app, never backwards. */
const webZones = [
  ...foldersIn(`${web}/features`).map((feature) => ({
    target: `./${web}/features/${feature}`,
    from: `./${web}/features`,
    except: [`./${feature}`],
    message: 'A feature never imports another feature; move shared code to components/ or lib/.',
  })),
  {
    target: `./${web}/features`,
    from: `./${web}/app`,
    message: 'Features must not import from app/ (imports flow shared → features → app).',
  },
  {
    target: ['components', 'hooks', 'lib', 'utils', 'types', 'config'].map(
      (folder) => `./${web}/${folder}`,
    ),
    from: [`./${web}/features`, `./${web}/app`],
    message: 'Shared code must not import from features/ or app/.',
  },
];

/**
 * Server: a module reaches another module only through its service, so another module's
 * repository files are off limits (a module's own sub-folders are the same module).
 */
const serverZones = foldersIn(serverModules).map((module) => ({
  target: `./${serverModules}/${module}`,
  from: [path.join(root, serverModules, '*/**/*.repository.ts')],
  except: [path.join(root, serverModules, module, '**')],
  message: "Use the other module's service, never its repository.",
}));

export default defineConfig(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/.data/**',
      '**/coverage/**',
      'apps/server/src/db/migrations/**',
      'playwright-report/**',
      'test-results/**',
      '.tmp/**',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        fetch: 'readonly',
      },
    },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
  },
  {
    files: ['apps/**/*.{ts,tsx}', 'packages/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [resolver()] },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        { basePath: root, zones: [...webZones, ...serverZones] },
      ],
    },
  },
  {
    // The web app imports through the `@/` alias of its tsconfig.
    files: ['apps/web/**/*.{ts,tsx}'],
    settings: { 'import-x/resolver-next': [resolver('apps/web/tsconfig.json')] },
  },
);

function resolver(tsconfig) {
  return createNodeResolver({
    extensions: ['.ts', '.tsx', '.mts', '.js', '.jsx', '.mjs', '.json'],
    conditionNames: ['import', 'types', 'default'],
    ...(tsconfig ? { tsconfig: { configFile: path.join(root, tsconfig) } } : {}),
  });
}
