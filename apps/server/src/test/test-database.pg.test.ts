import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, openTestPool } from './test-database';

/**
 * A test's own pool on a test database (PostgreSQL only): the server ending one of its idle
 * connections, as the test database's `DROP … WITH (FORCE)` does at close() when the pool's
 * `end()` resolved before its connections closed, must not throw outside any test (it failed
 * a whole CI run once). Without openTestPool's listeners this test ends with an unhandled
 * error.
 */
describe('a test pool (openTestPool, PostgreSQL)', () => {
  it('keeps working when the server terminates one of its idle connections', async () => {
    const database = await createTestDatabase();
    const pool = openTestPool(database.connectionString!, 1);
    try {
      const { pid } = (await pool.query<{ pid: number }>('select pg_backend_pid() as pid'))
        .rows[0]!;
      const removed = new Promise((resolve) => pool.once('remove', resolve));
      await database.db.execute(sql`select pg_terminate_backend(${pid})`);
      // The pool saw the connection's error and let it go; the next query connects anew.
      await removed;
      const again = await pool.query<{ pid: number }>('select pg_backend_pid() as pid');
      expect(again.rows[0]!.pid).not.toBe(pid);
    } finally {
      await pool.end();
      await database.close();
    }
  });
});
