import { defineConfig } from 'drizzle-kit';

/** drizzle-kit: `npm run db:generate` writes SQL migrations that are committed and applied at start. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema/index.ts',
  out: './src/db/migrations',
  strict: true,
  verbose: true,
});
