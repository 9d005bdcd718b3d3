import { configDefaults, defineConfig } from 'vitest/config';

/**
 * One Vitest run covers every suite. `scripts/test.mjs` picks projects per pass:
 * PGlite pass (shared, provider-simulators, server, web), PostgreSQL pass (server, with TEST_DATABASE_URL), browser pass (e2e);
 * the browser pass runs alongside the other two (TEST_PASSES_IN_SERIES=1: one after another).
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'shared',
          include: ['packages/shared/src/**/*.test.ts'],
          environment: 'node',
          // One module graph per worker, as the server's (decision 0231).
          isolate: false,
        },
      },
      {
        test: {
          name: 'provider-simulators',
          include: ['packages/provider-simulators/src/**/*.test.ts'],
          environment: 'node',
          isolate: false,
          // TEST_NOW moves the simulators' clocks too (they read Date).
          setupFiles: ['scripts/test-now.setup.ts'],
          // Budgets against hanging, as the server's (decision 0274).
          testTimeout: 300_000,
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'server',
          include: ['apps/server/src/**/*.test.ts'],
          // `*.pg.test.ts` need a PostgreSQL server (TEST_DATABASE_URL): they run in the
          // PostgreSQL pass only (e.g. the database-outage test, which needs real connections).
          // The database fault test (test/fault, its own cluster, 3–7 min) runs in the
          // PostgreSQL pass like the other *.pg tests (decision 0125).
          exclude: [
            ...configDefaults.exclude,
            ...(process.env.TEST_DATABASE_URL ? [] : ['apps/server/src/**/*.pg.test.ts']),
          ],
          environment: 'node',
          // One module graph per worker instead of one per file: loading Fastify, Drizzle,
          // PGlite and the app's modules anew for each of ~100 files was about half of the
          // project's CPU (decision 0231). The files share no module state that a test
          // relies on: each builds its own app, database and clock.
          isolate: false,
          // TEST_NOW=<instant> starts each file's clock there (replays midnight, month ends).
          setupFiles: ['scripts/test-now.setup.ts'],
          // Budgets against hanging, not speed checks: a test must not fail only because the
          // machine is busy. With a second CI run beside this one (load 16 on two cores) tests
          // ran 8–10× their time alone; no test or hook sets a shorter budget of its own
          // (decision 0274).
          testTimeout: 300_000,
          hookTimeout: 600_000,
          // A budget against hanging, not a speed check: the browser pass runs alongside.
          expect: { poll: { timeout: 60_000 } },
        },
      },
      'apps/web/vite.config.ts',
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.test.ts'],
          // The accessibility walk over every route and role (e2e/accessibility.test.ts,
          // decision 0160) runs in every browser pass.
          exclude: [...configDefaults.exclude],
          environment: 'node',
          // A budget against hanging, not a speed check: every action and wait has its own
          // (ACTION_BUDGET_MS, poll timeouts). A scenario of ~25 steps ran past 90 s when the
          // PostgreSQL pass loaded the machine (stop 37's CI: the trials scenario at 95 s,
          // its renderer too busy to take a screenshot within 5 s).
          testTimeout: 300_000,
          // Budgets against hanging: a file's start may start the demo server twice
          // (startServerWithData), each up to a few minutes on a loaded 2-core machine.
          hookTimeout: 600_000,
          // `expect.poll` waits 1 s by default; the browser pass shares the machine with the
          // other passes (scripts/test.mjs), so a page update gets a budget against hanging.
          expect: { poll: { timeout: 60_000 } },
          // As many files at once as the browser pass's maxWorkers (scripts/test.mjs: one by
          // default, decision 0269); each starts its own server on its own data directory and
          // ports, and its own browser.
          // One seeded demo data directory per run; each server starts on a copy of it.
          globalSetup: ['e2e/support/demo-template.setup.ts'],
          // A failing scenario prints its pages' URL, text, screenshot and failed requests; a
          // file removes the demo data directories the file's servers used once they stopped.
          setupFiles: ['e2e/support/report-failures.ts', 'e2e/support/cleanup.ts'],
        },
      },
    ],
  },
});
