import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListQuery } from '@trialpulse/shared';
import type { Database, Db } from '../db/client';
import * as schema from '../db/schema';
import { createTestDatabase, openTestPool } from './test-database';
import { createStaffUser, createTeam } from './fixtures';
import { createAccessRepository } from '../modules/access/access.repository';
import { createTrialsRepository } from '../modules/trials/trials.repository';
import { createParticipantsRepository } from '../modules/participants/participants.repository';

/**
 * The plans of the list pages at trial scale on PostgreSQL (issue 29, decisions 0202–0204):
 * 1,000 trials and 50,000 participants (one trial of 5,000), as the list repositories send
 * their queries and as a prepared statement runs them after its first calls (a generic
 * plan). Page 1 reads the kept total instead of counting; a deep page reads its keys from
 * an index alone; a filter of a trial's participants reads a trigram index of its stored
 * search text.
 */
type PlanNode = {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Filter?: string;
  'Recheck Cond'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
};

function nodes(node: PlanNode, into: PlanNode[] = []): PlanNode[] {
  into.push(node);
  for (const child of node.Plans ?? []) nodes(child, into);
  return into;
}

const usesIndex = (plan: PlanNode[], type: string, index: string) =>
  plan.some((node) => node['Node Type'] === type && node['Index Name'] === index);

describe('list page plans at trial scale (PostgreSQL)', { timeout: 300_000 }, () => {
  let database: Database;
  let pool: pg.Pool;
  let teamId: number;
  let bigTrialId: number;
  const logged: { text: string; params: unknown[] }[] = [];
  let trialsRepository: ReturnType<typeof createTrialsRepository>;
  let participantsRepository: ReturnType<typeof createParticipantsRepository>;
  let access: ReturnType<typeof createAccessRepository>;

  beforeAll(async () => {
    database = await createTestDatabase();
    const db = database.db;
    teamId = (await createTeam(db, { maxTrials: 2000, maxParticipants: 60000, hiddenFields: [] }))
      .id;
    const owner = await createStaffUser(db, { role: 'Admin', teamId });
    await db.execute(sql`
      INSERT INTO trials (team_id, trial_number, trial_name, trial_notes, trial_code, owner_user_id)
      SELECT ${teamId}, 'BENCH-' || lpad(n::text, 4, '0'), 'Benchmark trial ' || n,
             CASE WHEN n % 3 = 0 THEN 'Notes of trial ' || n END, 'B' || lpad(n::text, 4, '0'), ${owner.id}
      FROM generate_series(1, 1000) AS n`);
    bigTrialId = Number(
      (
        await db.execute<{ id: number }>(
          sql`SELECT id FROM trials WHERE team_id = ${teamId} ORDER BY id LIMIT 1`,
        )
      ).rows[0]!.id,
    );
    // 5,000 in the first trial, 45 in each other one.
    await db.execute(sql`
      INSERT INTO participants (team_id, trial_id, participant_code, participant_code_suffix, email, gender, age, notes)
      SELECT ${teamId}, t.id, t.trial_code || '-' || lpad(n::text, 4, '0'), lpad(n::text, 4, '0'),
             'p' || t.id || '-' || n || '@bench.example.org',
             (ARRAY['female', 'male', 'other', 'none'])[n % 4 + 1]::participant_gender, 18 + n % 70,
             CASE WHEN n % 5 = 0 THEN 'Visit ' || n % 12 || ' notes' END
      FROM trials AS t, generate_series(1, CASE WHEN t.id = ${bigTrialId} THEN 5000 ELSE 45 END) AS n
      WHERE t.team_id = ${teamId}`);
    await db.execute(sql`VACUUM ANALYZE`);

    // The repositories on their own pool whose queries are recorded, to be explained below.
    pool = openTestPool(database.connectionString!, 2);
    const recording = drizzle({
      client: pool,
      schema,
      logger: { logQuery: (text, params) => logged.push({ text, params }) },
    }) as unknown as Db;
    trialsRepository = createTrialsRepository(recording);
    participantsRepository = createParticipantsRepository(recording);
    access = createAccessRepository(recording);
  });

  afterAll(async () => {
    await pool?.end();
    await database?.close();
  });

  /** The list call's one query, run for real, then its generic plan (as prepared after 5 runs). */
  async function planOf(list: () => Promise<{ rows: unknown[]; total: number }>) {
    logged.length = 0;
    const page = await list();
    expect(logged).toHaveLength(1);
    const { text, params } = logged[0]!;
    const client = await pool.connect();
    try {
      await client.query('SET plan_cache_mode = force_generic_plan');
      await client.query(`PREPARE list_page AS ${text}`);
      const literals = params.map((param) =>
        typeof param === 'number' ? String(param) : `'${String(param).replace(/'/g, "''")}'`,
      );
      const explained = await client.query(
        `EXPLAIN (FORMAT JSON) EXECUTE list_page(${literals.join(', ')})`,
      );
      await client.query('DEALLOCATE list_page');
      await client.query('RESET plan_cache_mode');
      const plan = nodes((explained.rows[0]['QUERY PLAN'] as [{ Plan: PlanNode }])[0].Plan);
      return { page, plan };
    } finally {
      client.release();
    }
  }

  const teamScope = () => access.visibleTrialsCondition(teamId, null);
  const query = <T extends string>(
    index: number,
    sort: { by: T; desc: boolean } | null,
    filter = '',
  ): ListQuery<T> => ({ page: { index, size: 10 }, sort, filter });

  it('page 1 reads the kept totals, counting no scope', async () => {
    const trialsPage = await planOf(() =>
      trialsRepository.listTrials(query(0, null), teamScope(), teamId),
    );
    expect(trialsPage.page.total).toBe(1000);
    expect(trialsPage.plan.some((node) => node['Node Type'] === 'Aggregate')).toBe(false);
    expect(trialsPage.plan.map((node) => node['Relation Name'])).toContain('team_trial_totals');

    const participantsPage = await planOf(() =>
      participantsRepository.listParticipantsPage(
        query(0, null),
        bigTrialId,
        teamScope(),
        new Set(),
      ),
    );
    expect(participantsPage.page.total).toBe(5000);
    expect(participantsPage.plan.some((node) => node['Node Type'] === 'Aggregate')).toBe(false);
    expect(participantsPage.plan.map((node) => node['Relation Name'])).toContain(
      'trial_participant_totals',
    );
  });

  it('a deep page reads its keys from one index alone', async () => {
    const participantsPage = await planOf(() =>
      participantsRepository.listParticipantsPage(
        query(199, { by: 'participant_code', desc: false }),
        bigTrialId,
        teamScope(),
        new Set(),
      ),
    );
    expect(participantsPage.page.rows).toHaveLength(10);
    expect(
      usesIndex(participantsPage.plan, 'Index Only Scan', 'participants_trial_id_code_idx'),
    ).toBe(true);

    const trialsPage = await planOf(() =>
      trialsRepository.listTrials(
        query(90, { by: 'trialNumber', desc: false }),
        teamScope(),
        teamId,
      ),
    );
    expect(trialsPage.page.rows).toHaveLength(10);
    expect(usesIndex(trialsPage.plan, 'Index Only Scan', 'trials_team_id_number_idx')).toBe(true);
  });

  // The trials of one team (1,000 here) are few enough that PostgreSQL reads them in the
  // list's order and tests the filter on each; that test is one LIKE on the stored search
  // text, not lower() of three columns (≈0.35 ms against ≈0.95 ms, decision 0265), against
  // the pattern lowered once per call, not once per trial (decision 0271). Where the table is
  // larger, its trigram index serves the filter (decision 0203).
  it("a filter of the team's trials tests the stored search text, lowering nothing per row", async () => {
    const trialsPage = await planOf(() =>
      trialsRepository.listTrials(query(0, null, 'trial 77'), teamScope(), teamId),
    );
    expect(trialsPage.page.total).toBe(11);
    const conditions = trialsPage.plan
      .map((node) => [node.Filter, node['Recheck Cond'], node['Index Cond']].join(' '))
      .join(' ');
    expect(conditions).toContain('search_text ~~');
    expect(conditions).not.toMatch(/lower\(trial_(number|name|notes)\)/);
    // The pattern is an InitPlan's value ($n), not lower($n) evaluated for every trial.
    expect(conditions).not.toMatch(/lower\(\$\d+\)/);
  });

  // A filter of a trial's participants reads a trigram index of the stored search text
  // (decision 0266): one text of the five fields where the team hides none, else the three
  // always searched and the visible field's own column; no lower() of a column is left.
  it("a filter of a trial's participants reads the stored search text's trigram index", async () => {
    const cases = [
      { hidden: [], indexes: ['participants_search_text_trgm_idx'] },
      { hidden: ['email', 'notes'], indexes: ['participants_search_text_always_trgm_idx'] },
      {
        hidden: ['notes'],
        indexes: ['participants_search_text_always_trgm_idx', 'participants_email_trgm_idx'],
      },
    ];
    for (const { hidden, indexes } of cases) {
      const participantsPage = await planOf(() =>
        participantsRepository.listParticipantsPage(
          query(0, null, 'b0001-012'),
          bigTrialId,
          teamScope(),
          new Set(hidden),
        ),
      );
      expect(participantsPage.page.total).toBe(10);
      const read = participantsPage.plan
        .filter((node) => node['Node Type'] === 'Bitmap Index Scan')
        .map((node) => node['Index Name'])
        .filter((name) => name?.endsWith('_trgm_idx'));
      expect(read.sort(), `hiding [${hidden.join(', ')}]`).toEqual([...indexes].sort());
      const conditions = participantsPage.plan
        .map((node) => [node.Filter, node['Recheck Cond'], node['Index Cond']].join(' '))
        .join(' ');
      expect(conditions).toMatch(hidden.length === 0 ? /search_text ~~/ : /search_text_always ~~/);
      expect(conditions).not.toMatch(
        /lower\((participant_code|participant_gender_label|\(?age|notes)/,
      );
      if (hidden.length === 0) expect(conditions).not.toMatch(/lower\(email\)/);
      expect(conditions).not.toMatch(/lower\(\$\d+\)/);
    }
  });
});
