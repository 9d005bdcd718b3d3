import { defineConfig } from 'vitest/config';

/**
 * One Vitest run covers every suite. `scripts/test.mjs` picks projects per pass:
 * PGlite pass (all), PostgreSQL pass (server, with TEST_DATABASE_URL), browser pass (e2e).
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'shared',
          include: ['packages/shared/src/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'server',
          include: ['apps/server/src/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      'apps/web/vite.config.ts',
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 90_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
