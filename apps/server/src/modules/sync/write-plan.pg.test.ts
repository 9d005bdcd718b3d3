import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Db } from '../../db/client';
import * as schema from '../../db/schema';
import { createTestDatabase, openTestPool } from '../../test/test-database';
import {
  readingDaysFromScratch,
  refreshReadingDaysStatement,
  writeWithoutJit,
  type ReadingDayKey,
} from './daily-summary';
import { storedReadingsWithin } from './stored-readings';
import type { ReadingsService } from './readings.service';
import { createParticipants, readingsServiceFor } from './test-support';

/** Two years of monthly partitions, filled with bulk SQL. */
const MONTHS = 24;
const FIRST_MONTH = Date.UTC(2024, 11, 1);
const PARTICIPANTS = 20;
/** Heart rate every 30 minutes for each participant: ~0.7 M readings over the two years. */
const STEP = '30 minutes';

type PlanNode = {
  'Relation Name'?: string;
  'Node Type'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
  'Total Cost'?: number;
};
type Explained = { Plan: PlanNode; JIT?: unknown };

function nodes(node: PlanNode, into: PlanNode[] = []): PlanNode[] {
  into.push(node);
  for (const child of node.Plans ?? []) nodes(child, into);
  return into;
}

function relations(node: PlanNode, into = new Set<string>()): Set<string> {
  if (node['Relation Name']) into.add(node['Relation Name']);
  for (const child of node.Plans ?? []) relations(child, into);
  return into;
}

/**
 * No planner cliff on the write path (issue 29, decision 0200), on PostgreSQL with a table
 * of many partitions: the day summary's refresh plans only the partitions of its keys'
 * window, and the write transaction never compiles with JIT, even when every statement's
 * cost is over the JIT threshold.
 */
describe(
  'the write transaction plans only its window, without JIT (PostgreSQL)',
  { timeout: 300_000 },
  () => {
    let database: Database;
    let readings: ReadingsService;
    let teamId: number;
    let participantIds: number[];
    /** A participant whose heart rate is stored as hour chunks (60 points each) over the two years. */
    let chunked: number;

    beforeAll(async () => {
      database = await createTestDatabase();
      ({ teamId, participantIds } = await createParticipants(database.db, PARTICIPANTS + 1));
      chunked = participantIds.pop()!;
      const last = new Date(Date.UTC(2024, 11 + MONTHS - 1, 1)).toISOString();
      await database.db.execute(
        sql`select device_readings_ensure_partitions(${new Date(FIRST_MONTH).toISOString()}::timestamptz, ${last}::timestamptz)`,
      );
      const ids = `{${participantIds.join(',')}}`;
      await database.db.execute(sql`
      insert into device_readings (participant_id, team_id, metric_key, recorded_at, brand, utc_offset_minutes, value, upstream)
      select p, ${teamId}, 'heart_rate', at, 'Fitbit', 60, 60 + (extract(epoch from at)::bigint % 40), 'google-health'
        from unnest(${ids}::int[]) as p,
             generate_series(${new Date(FIRST_MONTH).toISOString()}::timestamptz,
                             ${new Date(Date.UTC(2024, 11 + MONTHS, 1) - 1).toISOString()}::timestamptz,
                             interval '${sql.raw(STEP)}') as at`);
      await database.db.execute(sql`
      insert into device_reading_chunks (participant_id, team_id, metric_key, period_start, brand, last_at,
                                         steps_ms, value, utc_offset_minutes, upstream, data_source, sync_run_id)
      select ${chunked}, ${teamId}, 'heart_rate', hour, 'Fitbit', hour + interval '59 minutes 30 seconds',
             array[30000] || array_fill(60000, array[59]), array_fill(70::float8, array[60]),
             array_fill(60::smallint, array[60]), 'google-health', 'Pixel Watch', 1
        from generate_series(${new Date(FIRST_MONTH).toISOString()}::timestamptz,
                             ${new Date(Date.UTC(2024, 11 + MONTHS, 1) - 1).toISOString()}::timestamptz,
                             interval '1 hour') as hour`);
      await database.db.execute(sql`
      insert into device_reading_days (participant_id, team_id, metric_key, day, readings, minutes, value_sum, first_at, last_at)
      ${readingDaysFromScratch()}`);
      await database.db.execute(sql`analyze device_readings`);
      await database.db.execute(sql`analyze device_reading_days`);
      await database.db.execute(sql`analyze device_reading_chunks`);
      readings = readingsServiceFor(database.db, () => new Date('2026-11-28T12:00:00Z'));
    });
    afterAll(() => database?.close());

    const keysOf = (days: string[]): ReadingDayKey[] =>
      participantIds.flatMap((participantId) =>
        days.map((day) => ({ participantId, teamId, metricKey: 'heart_rate', day })),
      );

    async function explain(keys: ReadingDayKey[], withoutJit: boolean): Promise<Explained> {
      return database.db.transaction(async (tx) => {
        if (withoutJit) await writeWithoutJit(tx);
        // As if the table were large enough for any plan to pass JIT's threshold.
        await tx.execute(sql`set local jit_above_cost = 0`);
        const result = await tx.execute<{ 'QUERY PLAN': Explained[] }>(
          sql`explain (format json) ${refreshReadingDaysStatement(keys)}`,
        );
        return result.rows[0]!['QUERY PLAN'][0]!;
      });
    }

    it('reads only the partitions of the keys’ window', async () => {
      const plan = await explain(keysOf(['2026-03-14', '2026-03-15']), true);
      const partitions = [...relations(plan.Plan)].filter((name) =>
        name.startsWith('device_readings_p'),
      );
      // 14 March 00:00 − 38 h … 15 March 24:00 + 36 h lies in March 2026 alone.
      expect(partitions).toEqual(['device_readings_p202603']);
      // A day on a month's edge reaches the month before and no further.
      const edge = await explain(keysOf(['2025-06-01']), true);
      expect(
        [...relations(edge.Plan)].filter((name) => name.startsWith('device_readings_p')).sort(),
      ).toEqual(['device_readings_p202505', 'device_readings_p202506']);
    });

    it('reads one local day of chunked heart rate from its 24 hour chunks and no partition of another month', async () => {
      // A CET participant's 14 March 2026: 13 March 23:00 … 14 March 23:00 UTC, as the
      // repository's read over stored_readings bounds it (decision 0255).
      const from = new Date('2026-03-13T23:00:00Z');
      const to = new Date('2026-03-14T23:00:00Z');
      const result = await database.db.execute<{ 'QUERY PLAN': Explained[] }>(sql`
        explain (analyze, format json)
        select r.recorded_at, r.value, r.utc_offset_minutes from stored_readings r
         where r.participant_id = ${chunked} and r.team_id = ${teamId} and r.metric_key in ('heart_rate')
           and ${storedReadingsWithin('r', from, to)}
         order by r.metric_key, r.recorded_at, r.brand`);
      const plan = result.rows[0]!['QUERY PLAN'][0]!.Plan;
      expect([...relations(plan)].filter((name) => name.startsWith('device_readings_p'))).toEqual([
        'device_readings_p202603',
      ]);
      const chunkScans = nodes(plan).filter(
        (node) => node['Relation Name'] === 'device_reading_chunks',
      );
      expect(chunkScans).toHaveLength(1);
      expect(chunkScans[0]!['Index Name']).toBe('device_reading_chunks_pkey');
      // The day's 24 hours of 17,520 chunks, each unnested once: 24 × 60 points.
      expect(chunkScans[0]!['Actual Rows']).toBe(24);
      expect(plan['Actual Rows']).toBe(24 * 60);
    });

    it("the stored-readings table's first and last pages read a few of a participant's rows, not all of them", async () => {
      // The page's statements, recorded on a pool of their own, then run again under
      // EXPLAIN ANALYZE: the rows they read from device_readings' partitions (decision 0273).
      const pool = openTestPool(database.connectionString!, 1);
      const logged: { text: string; params: unknown[] }[] = [];
      try {
        const recording = drizzle({
          client: pool,
          schema,
          logger: { logQuery: (text, params) => logged.push({ text, params }) },
        }) as unknown as Db;
        const reader = readingsServiceFor(recording, () => new Date('2026-11-28T12:00:00Z'));
        const participantId = participantIds[0]!;
        const scope = { teamId, participantId, brand: 'Fitbit' as const };
        const rowsOfParticipant = Number(
          (
            await database.db.execute<{ n: number }>(
              sql`select count(*)::int as n from device_readings where participant_id = ${participantId}`,
            )
          ).rows[0]!.n,
        );
        expect(rowsOfParticipant).toBeGreaterThan(30_000);
        const first = await reader.page(scope, {
          page: { index: 0, size: 50 },
          sort: null,
          filter: '',
        });
        const lastIndex = Math.ceil(first.total / 50) - 1;
        for (const index of [0, lastIndex]) {
          logged.length = 0;
          const page = await reader.page(scope, {
            page: { index, size: 50 },
            sort: null,
            filter: '',
          });
          expect(page.rows.length).toBeGreaterThan(0);
          let read = 0;
          for (const { text, params } of logged) {
            const explained = await pool.query<{ 'QUERY PLAN': Explained[] }>(
              `explain (analyze, format json) ${text}`,
              params,
            );
            for (const node of nodes(explained.rows[0]!['QUERY PLAN'][0]!.Plan))
              if (node['Relation Name']?.startsWith('device_readings_p'))
                read += (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1);
          }
          // The page's 50, the walk's first units and the counts near its window; before
          // decision 0273 the walk sorted all of the participant's rows on every page.
          expect(read, `page ${index}`).toBeLessThan(1_000);
        }
      } finally {
        await pool.end();
      }
    });

    it('never plans JIT in the write transaction, even over its cost threshold', async () => {
      const keys = keysOf(['2026-03-14']);
      // The control: the same statement outside the write transaction's setting plans JIT,
      // so the assertion below can see it.
      expect((await explain(keys, false)).JIT).toBeDefined();
      expect((await explain(keys, true)).JIT).toBeUndefined();
    });

    it('stores a batch through the write path on the large table; the summary equals a from-scratch computation', async () => {
      const at = Date.UTC(2026, 2, 14, 10, 0, 5);
      const rows = participantIds.flatMap((participantId) =>
        Array.from({ length: 90 }, (_, index) => ({
          participantId,
          teamId,
          brand: 'Fitbit' as const,
          upstream: 'google-health' as const,
          metricKey: 'heart_rate',
          recordedAt: new Date(at + index * 60_000),
          utcOffsetMinutes: 60,
          value: 70,
        })),
      );
      const counts = await readings.store(rows);
      expect(counts).toMatchObject({ inserted: rows.length, updated: 0, rejected: 0 });
      const differences = await database.db.execute<{ n: number }>(sql`
      select count(*)::int as n from (
        (select participant_id, team_id, metric_key, day, readings, minutes, value_sum, first_at, last_at
           from device_reading_days where day between '2026-03-13' and '2026-03-16'
         except
         select * from (${readingDaysFromScratch()}) s where day between '2026-03-13' and '2026-03-16')
        union all
        (select * from (${readingDaysFromScratch()}) s where day between '2026-03-13' and '2026-03-16'
         except
         select participant_id, team_id, metric_key, day, readings, minutes, value_sum, first_at, last_at
           from device_reading_days where day between '2026-03-13' and '2026-03-16')
      ) d`);
      expect(Number(differences.rows[0]!.n)).toBe(0);
    });
  },
);
