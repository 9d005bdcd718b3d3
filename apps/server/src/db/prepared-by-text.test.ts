import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, DbOrTx } from './client';
import { teams } from './schema';
import { createTeam } from '../test/fixtures';
import { createTestDatabase } from '../test/test-database';
import { executePreparedByText } from './prepared-by-text';

/**
 * List queries built per request run as statements named by their SQL text (issue 14):
 * on PostgreSQL each connection then parses and plans a shape once. PGlite has no named
 * statements through Drizzle; there the answers must simply be right.
 */
let database: Database;
let teamIds: number[];

beforeAll(async () => {
  database = await createTestDatabase();
  teamIds = [];
  for (const name of ['Alpha', 'Beta', 'Gamma']) {
    teamIds.push((await createTeam(database.db, { teamName: `${name} team` })).id);
  }
});

afterAll(async () => {
  await database.close();
});

const byId = (q: DbOrTx, id: number) =>
  q.select({ id: teams.id, name: teams.teamName }).from(teams).where(eq(teams.id, id)).$dynamic();

const preparedNames = async (q: DbOrTx): Promise<string[]> => {
  const result = await q.execute(
    sql`SELECT name FROM pg_prepared_statements WHERE name LIKE 'q\\_%' ORDER BY name`,
  );
  return (result.rows as { name: string }[]).map((row) => row.name);
};

describe('executePreparedByText', () => {
  it('answers each call with its own values, one statement per query shape on a connection', async () => {
    await database.db.transaction(async (tx) => {
      const first = await executePreparedByText(byId(tx, teamIds[0]!));
      const second = await executePreparedByText(byId(tx, teamIds[1]!));
      const ordered = await executePreparedByText(
        tx.select({ id: teams.id }).from(teams).orderBy(asc(teams.id)).$dynamic(),
      );
      expect(first).toEqual([{ id: teamIds[0], name: 'Alpha team' }]);
      expect(second).toEqual([{ id: teamIds[1], name: 'Beta team' }]);
      expect(ordered.map((row) => row.id)).toEqual([...teamIds].sort((a, b) => a - b));

      if (database.kind === 'postgres') {
        // Same SQL text with other values: the same statement; another shape: a second one.
        const names = await preparedNames(tx);
        expect(names).toHaveLength(2);
        expect(names.every((name) => /^q_[\w-]{27}$/.test(name))).toBe(true);
        await executePreparedByText(byId(tx, teamIds[2]!));
        expect(await preparedNames(tx)).toEqual(names);
      }
    });
  });
});
