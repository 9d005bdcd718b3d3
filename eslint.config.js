import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import { tableWritesPlugin } from './scripts/eslint-table-writes.js';

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

/** A package (shared vocabulary, the provider simulators) stands on its own: never an app. */
const packageZone = {
  target: './packages',
  from: './apps',
  message: 'A package never imports an app; shared vocabulary belongs in packages/shared.',
};

/**
 * One owner per table (docs/architecture.md "Tables and their owners"): only the owning
 * module imports a table from `db/schema` (reads included); others go through its service.
 * A table missing here is not checked: add a new table with its owner
 * (`eslint.table-owners.test.ts` fails on an unlisted table).
 */
export const TABLE_OWNERS = {
  auth: ['users', 'credentials', 'sessions', 'refreshTokens', 'loginThrottles'],
  sfa: ['sfaSecrets', 'oneTimeCodes', 'rememberedDevices'],
  'human-check': ['humanCheckSpent'],
  teams: ['teams', 'teamUserMappings'],
  'team-admin': ['teamAllowedBrands', 'teamSupportedDevices'],
  // The list totals are kept by triggers on their tables (decision 0202); only read here.
  trials: ['trials', 'trialUsers', 'teamTrialTotals'],
  participants: ['participants', 'trialParticipantTotals'],
  devices: [
    'globalDeviceCatalog',
    'participantDevices',
    'participantDeviceStatus',
    'deviceAuthorizationRequests',
  ],
  sync: [
    'deviceReadings',
    'syncRuns',
    'syncCursors',
    'syncStates',
    'syncCallBudgets',
    'fitbitWeeklySummaries',
    // Derived from deviceReadings on its write path and purge (decision 0058).
    'deviceReadingDays',
    // High-rate streams as chunks, and the view readers read rows and chunks through (0255).
    'deviceReadingChunks',
    'storedReadings',
    // Readings counted per participant × metric × brand, kept by triggers on the two
    // readings tables (decision 0257); only read here.
    'deviceReadingTotals',
  ],
  metrics: ['metricCatalog', 'deviceMetricSettings', 'teamDeviceDataStorageSettings'],
  export: ['exportJobs'],
  completeness: [
    'completenessThresholds',
    'completenessAlertStates',
    'completenessDigestRuns',
    'completenessDigestSubscriptions',
  ],
  mail: ['mailOutbox'],
  contact: ['contactMessages'],
  // SMART Backend Services clients and the assertion ids seen (issue 31).
  'backend-clients': ['backendClients', 'backendClientAssertions'],
  // The rate-limit counters of @fastify/rate-limit's store: the plugin is their only user.
  'plugins/rate-limit-store': ['rateLimitHits'],
  // Written only through recordAudit (lib/audit.ts); no module imports it.
  'lib/audit': ['auditLog'],
  // One table keyed by `purpose`; each module reads and writes only its own purposes.
  'shared by purpose': ['oneTimeTokens'],
};

/**
 * The deliberate exceptions: other modules' tables a module may import, and why. Keep it
 * short; a new entry needs a reason a reviewer accepts.
 */
export const TABLE_EXCEPTIONS = {
  access: {
    tables: ['teams', 'trials', 'trialUsers', 'participants'],
    reason:
      'The access module answers "may this caller reach this row" in one query per check and takes the team row lock (decision 0025); it only reads.',
  },
  auth: {
    tables: ['teams', 'teamUserMappings'],
    reason:
      'The session context (role, selected team and its status) is one join on every request.',
  },
  'backend-clients': {
    tables: ['teams'],
    reason:
      "A backend client's team status (switched on, inside its subscription) is one join on every /fhir request, as the session context's is; it only reads.",
  },
  passwords: {
    tables: ['users', 'credentials', 'oneTimeTokens'],
    reason:
      'Sign-in family (auth, sfa, passwords): reads the account and its current hash (a new password goes through accounts); its reset tokens are its purpose of one_time_tokens.',
  },
  'team-admin': {
    tables: ['teams', 'users', 'globalDeviceCatalog'],
    reason:
      'The Sys_Admin team editor creates and edits team rows (members and counters go through the teams service), looks accounts up by email and lists the device catalog.',
  },
  signup: {
    tables: ['teams', 'teamUserMappings', 'users', 'oneTimeTokens'],
    reason:
      'Invitations: reads the team list, membership and accounts by email; writes its own invitation tokens.',
  },
  'participant-accounts': {
    tables: ['users', 'participants', 'oneTimeTokens'],
    reason:
      'Marks its own account email verified, counts participant records with that email; writes its own verification tokens.',
  },
  trials: {
    tables: ['users', 'teamUserMappings'],
    reason:
      'The trial-users list and "add user" lookup join account emails and team membership for display.',
  },
  participants: {
    tables: ['participantDevices', 'trials'],
    reason:
      "Reads only: counts the device connections a deletion takes with it for the audit row (its readings are counted by the readings service), and joins trials so the paged list applies the access module's trial scope in the same query (decision 0042).",
  },
  devices: {
    tables: [
      'participants',
      'trials',
      'teams',
      'users',
      'teamAllowedBrands',
      'teamSupportedDevices',
      'oneTimeTokens',
    ],
    reason:
      "Reads only (plus its own consent-link tokens): a participant's record, trial, team status and account email for linking, consent links and the participant portal.",
  },
  sync: {
    tables: [
      'participants',
      'teams',
      'globalDeviceCatalog',
      'participantDevices',
      'teamSupportedDevices',
      'teamDeviceDataStorageSettings',
      'deviceMetricSettings',
    ],
    reason:
      'Reads only: the sync jobs walk every linked connection with its participant, team and metric settings in batches (one query per batch).',
  },
  'device-data': {
    tables: ['participants'],
    reason:
      "Reads only: the participant's email checks the Fitbit call's {email} segment (decision 0061). Stored readings, their pages included, come from the readings service.",
  },
  export: {
    tables: [
      'participants',
      'trials',
      'participantDevices',
      'globalDeviceCatalog',
      'metricCatalog',
      'teamSupportedDevices',
    ],
    reason:
      "Reads only: the form's trials, devices, metrics and the participants with a connection of the brand (those with readings and the readings themselves come from the readings service).",
  },
  completeness: {
    tables: [
      'participants',
      'trials',
      'trialUsers',
      'teams',
      'teamUserMappings',
      'users',
      'participantDevices',
      'syncRuns',
      'globalDeviceCatalog',
    ],
    reason:
      'Reads only: the grid lists participants, connections and sync runs per trial in SQL (readings come from the readings service), and the digest picks its recipients by team membership.',
  },
  metrics: {
    tables: ['teams', 'globalDeviceCatalog', 'teamSupportedDevices'],
    reason:
      "Reads only: metric settings are edited per team and catalog device; the retention page's count of the readings the next purge would delete (decision 0033) comes from the readings service.",
  },
  sysadmin: {
    tables: Object.values(TABLE_OWNERS).flat(),
    reason:
      "Database Info (Sys_Admin) shows read-only lists of the application's tables by design (spec).",
  },
};

/** The tables of db/schema a module may not import: every owned table but its own and its exceptions. */
export function forbiddenTablesFor(module) {
  const allowed = new Set([
    ...(TABLE_OWNERS[module] ?? []),
    ...(TABLE_EXCEPTIONS[module]?.tables ?? []),
  ]);
  return Object.values(TABLE_OWNERS)
    .flat()
    .filter((table) => !allowed.has(table));
}

/**
 * Writes beyond a module's own tables (`trialpulse/table-writes`, scripts/eslint-table-writes.js):
 * inserts, updates and deletes on another owner's table are refused everywhere in the server's
 * product code (modules, jobs, plugins, lib, cli) but for these, each with its reason.
 */
export const TABLE_WRITE_EXCEPTIONS = {
  passwords: {
    tables: ['oneTimeTokens'],
    reason:
      'Its reset tokens are its purpose of one_time_tokens (the new hash, token version, sessions and lockout go through accounts, the auth module).',
  },
  'participant-accounts': {
    tables: ['oneTimeTokens'],
    reason: 'Writes its own verification tokens (its purpose of one_time_tokens).',
  },
  signup: {
    tables: ['oneTimeTokens'],
    reason: 'Writes its own invitation tokens (its purpose of one_time_tokens).',
  },
  devices: {
    tables: ['oneTimeTokens'],
    reason: 'Writes its own consent-link tokens (its purpose of one_time_tokens).',
  },
  'jobs/maintenance': {
    tables: ['oneTimeTokens'],
    reason:
      "The 15-minute purge deletes expired one-time tokens of every purpose (the table is shared by purpose: four modules own one each), in the transaction where each other owner's purge function deletes its expired rows.",
  },
};

/** The write rule's options: owners and, per owner, the tables its write exceptions allow. */
const tableWriteOptions = {
  owners: TABLE_OWNERS,
  writeExceptions: Object.fromEntries(
    Object.entries(TABLE_WRITE_EXCEPTIONS).map(([owner, { tables }]) => [owner, tables]),
  ),
};

/**
 * Product code of each module (tests arrange and inspect rows directly and drive the
 * simulators, and are not checked): no other module's table, no simulator.
 */
const tableZones = foldersIn(serverModules).map((module) => ({
  files: [`${serverModules}/${module}/**/*.ts`],
  ignores: ['**/*.test.ts', '**/test-support.ts', '**/test-support/**'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          // A module allowed every table it imports (sysadmin's Database Info) has nothing to forbid.
          ...(forbiddenTablesFor(module).length > 0
            ? [
                {
                  regex: '(^|/)db/schema(/[^/]+)?$',
                  importNames: forbiddenTablesFor(module),
                  message: `This table belongs to another module (TABLE_OWNERS in eslint.config.js): use that module's service.`,
                },
              ]
            : []),
          {
            regex: '^@trialpulse/provider-simulators(/|$)',
            message:
              'Product code never imports the simulators: main.ts passes what demo mode needs from @trialpulse/provider-simulators/embedded.',
          },
        ],
      },
    ],
  },
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
    files: ['apps/web/**/*.{ts,tsx}'],
    rules: {
      // TanStack Query drops the callbacks given to mutate() when the component re-mounts
      // before the answer: a confirmation toast went missing that way (stop 42's CI).
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='mutate'][arguments.length>1]",
          message:
            "mutate()'s own callbacks are dropped when the component re-mounts during the call: await mutateAsync() instead, or give the hook its onSuccess/onError.",
        },
      ],
    },
  },
  {
    files: ['apps/**/*.{ts,tsx}', 'packages/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [resolver()] },
    rules: {
      // No import cycles (type-only imports are not followed by the rule; keep those acyclic too).
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': [
        'error',
        { basePath: root, zones: [...webZones, ...serverZones, packageZone] },
      ],
    },
  },
  ...tableZones,
  {
    // One owner per table, for writes: the server's product code (tests, test workers and the
    // database's own seed and reference data are not checked).
    files: ['apps/server/src/**/*.ts'],
    ignores: [
      '**/*.test.ts',
      '**/test-support.ts',
      '**/test-support/**',
      '**/test-*.ts',
      'apps/server/src/test/**',
      'apps/server/src/db/**',
    ],
    plugins: { trialpulse: tableWritesPlugin },
    rules: { 'trialpulse/table-writes': ['error', tableWriteOptions] },
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
