import { is, sql } from 'drizzle-orm';
import { PgTable, getTableConfig } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../test/test-database';
import type { Database } from './client';
import * as schema from './schema';
import { participants, teams, trials, users } from './schema';

/** Tables that belong to one team and must carry an indexed team_id. */
const TENANT_TABLES = [
  'team_user_mappings',
  'backend_clients',
  'trials',
  'trial_users',
  'participants',
  'team_allowed_brands',
  'team_supported_devices',
  'participant_devices',
  'device_metric_settings',
  'team_device_data_storage_settings',
  'sync_runs',
  'sync_cursors',
  'sync_states',
  'fitbit_weekly_summaries',
  'export_jobs',
];

/** Walks `cause` chains: drizzle wraps driver errors in DrizzleQueryError. */
function pgCode(error: unknown): string | undefined {
  let current: unknown = error;
  while (current && typeof current === 'object') {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

async function expectPgError(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, `expected SQLSTATE ${code}`).toBeDefined();
  expect(pgCode(error)).toBe(code);
}

const UNIQUE_VIOLATION = '23505';
const CHECK_VIOLATION = '23514';
const FOREIGN_KEY_VIOLATION = '23503';

describe(`database schema (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let database: Database;
  const rows = async <T>(query: ReturnType<typeof sql>) =>
    (await database.db.execute(query)).rows as T[];

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.close());

  it('migrations create every table of the schema', async () => {
    const expected = (Object.values(schema) as unknown[])
      .filter((value): value is PgTable => is(value, PgTable))
      .map((table) => getTableConfig(table).name)
      .sort();
    const present = (
      await rows<{ name: string }>(
        sql`select table_name as name from information_schema.tables where table_schema = 'public'`,
      )
    ).map((row) => row.name);
    expect(expected.length).toBeGreaterThanOrEqual(26);
    for (const name of [...expected, ...TENANT_TABLES, 'audit_log', 'mail_outbox', 'credentials']) {
      expect(present).toContain(name);
    }
  });

  it('every foreign key is covered by an index on its columns', async () => {
    const unindexed = await rows<{ constraint_name: string }>(sql`
      select c.conname as constraint_name
      from pg_constraint c
      where c.contype = 'f' and c.connamespace = 'public'::regnamespace
        and not exists (
          select 1 from pg_index i
          where i.indrelid = c.conrelid
            and (string_to_array(i.indkey::text, ' ')::int2[])[1:cardinality(c.conkey)] @> c.conkey
            and (string_to_array(i.indkey::text, ' ')::int2[])[1:cardinality(c.conkey)] <@ c.conkey
        )`);
    expect(unindexed).toEqual([]);
  });

  it('every tenant table has a NOT NULL team_id that leads an index', async () => {
    for (const table of TENANT_TABLES) {
      const [column] = await rows<{ is_nullable: string }>(sql`
        select is_nullable from information_schema.columns
        where table_schema = 'public' and table_name = ${table} and column_name = 'team_id'`);
      expect(column, `${table}.team_id`).toEqual({ is_nullable: 'NO' });
      const indexed = await rows<{ n: number }>(sql`
        select count(*)::int as n from pg_index i
        join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
        where i.indrelid = ${`public.${table}`}::regclass and a.attname = 'team_id'`);
      expect(indexed[0]?.n, `${table} index on team_id`).toBeGreaterThan(0);
    }
  });

  describe('constraints', () => {
    let teamId: number;
    let otherTeamId: number;
    let ownerId: number;
    let trialId: number;

    beforeAll(async () => {
      const [team, other] = await database.db
        .insert(teams)
        .values([{ teamName: 'Constraint Team' }, { teamName: 'Other Team' }])
        .returning({ id: teams.id });
      teamId = team!.id;
      otherTeamId = other!.id;
      const [owner] = await database.db
        .insert(users)
        .values({
          email: 'owner@example.test',
          username: 'owner@example.test',
          firstName: 'O',
          lastName: 'W',
        })
        .returning({ id: users.id });
      ownerId = owner!.id;
      const [trial] = await database.db
        .insert(trials)
        .values({
          teamId,
          trialNumber: 'C-1',
          trialName: 'Constraints',
          trialCode: 'CONS',
          ownerUserId: ownerId,
        })
        .returning({ id: trials.id });
      trialId = trial!.id;
    });

    const participant = (
      suffix: string,
      extra: Partial<typeof participants.$inferInsert> = {},
    ) => ({
      teamId,
      trialId,
      participantCode: `CONS-${suffix}`,
      participantCodeSuffix: suffix,
      ...extra,
    });

    it('rejects a duplicate participant code suffix within a trial', async () => {
      await database.db.insert(participants).values(participant('001'));
      await expectPgError(
        database.db.insert(participants).values(participant('001')),
        UNIQUE_VIOLATION,
      );
    });

    it('rejects a participant whose trial belongs to another team', async () => {
      await expectPgError(
        database.db.insert(participants).values(participant('002', { teamId: otherTeamId })),
        FOREIGN_KEY_VIOLATION,
      );
    });

    it('rejects a bad suffix, an age of 0 and notes over 300 characters', async () => {
      await expectPgError(
        database.db.insert(participants).values(participant('A1')),
        CHECK_VIOLATION,
      );
      await expectPgError(
        database.db.insert(participants).values(participant('003', { age: 0 })),
        CHECK_VIOLATION,
      );
      await expectPgError(
        database.db.insert(participants).values(participant('004', { notes: 'x'.repeat(301) })),
        CHECK_VIOLATION,
      );
    });

    it('keeps participant e-mail unique per team (when present)', async () => {
      await database.db
        .insert(participants)
        .values(participant('010', { email: 'p@example.test' }));
      await database.db.insert(participants).values([participant('011'), participant('012')]);
      await expectPgError(
        database.db.insert(participants).values(participant('013', { email: 'p@example.test' })),
        UNIQUE_VIOLATION,
      );
    });

    it('keeps user e-mail unique and lower-case', async () => {
      const user = { username: 'dup@example.test', firstName: 'D', lastName: 'U' };
      await database.db.insert(users).values({ ...user, email: 'dup@example.test' });
      await expectPgError(
        database.db
          .insert(users)
          .values({ ...user, username: 'dup2@example.test', email: 'dup@example.test' }),
        UNIQUE_VIOLATION,
      );
      await expectPgError(
        database.db
          .insert(users)
          .values({ ...user, username: 'dup3@example.test', email: 'Dup@Example.test' }),
        CHECK_VIOLATION,
      );
      await expectPgError(
        database.db
          .insert(users)
          .values({ ...user, username: 'DUP@example.test', email: 'dup4@example.test' }),
        UNIQUE_VIOLATION,
      );
    });

    it('limits trial notes to 300 characters and trial codes to one per team', async () => {
      const trial = { teamId, trialNumber: 'C-2', trialName: 'Second', ownerUserId: ownerId };
      await expectPgError(
        database.db
          .insert(trials)
          .values({ ...trial, trialCode: 'NOTES', trialNotes: 'x'.repeat(301) }),
        CHECK_VIOLATION,
      );
      await expectPgError(
        database.db.insert(trials).values({ ...trial, trialCode: 'CONS' }),
        UNIQUE_VIOLATION,
      );
      await database.db.insert(trials).values({ ...trial, teamId: otherTeamId, trialCode: 'CONS' });
    });
  });
});
