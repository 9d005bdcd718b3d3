import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { recordAudit } from '../../lib/audit';
import { purgeChunks } from './chunk-store';
import { readingDay, readingDaysOverlapping, refreshReadingDays } from './daily-summary';

/**
 * Retention purge (issue 15, decision 0036). A (team, metric, brand) keeps its readings for
 * the team layer's `retention_days` of an enabled metric (both layers enabled); a metric no
 * longer enabled in both layers keeps nothing. A month partition whose every reading is past
 * its horizon is dropped whole; otherwise expired rows go in bounded batches by primary key,
 * and expired points of chunked streams chunk by chunk.
 * One audit row per (team, metric) and run with the count deleted.
 */

/** Rows per delete statement: short transactions, no long locks. */
export const PURGE_BATCH_SIZE = 5_000;

type Policy = { teamId: number; metricKey: string; brand: string; retentionDays: number | null };
export type PurgeResult = { deleted: number; droppedPartitions: string[]; audited: number };

export async function purgeExpiredReadings(
  db: Db,
  options: { now: Date; runId: string; batchSize?: number },
): Promise<PurgeResult> {
  const batchSize = options.batchSize ?? PURGE_BATCH_SIZE;
  const now = options.now;
  // Every (team, metric, brand) stored, with its horizon; null retention: not enabled, keep nothing.
  const policies = (
    await db.execute<{
      team_id: number;
      metric_key: string;
      brand: string;
      retention_days: number | null;
    }>(sql`
      with stored as (
        select distinct team_id, metric_key, brand from device_readings
        union
        select distinct team_id, metric_key, brand from device_reading_chunks
      ),
      enabled as (
        select tsd.team_id, t.metric_key, g.manufacturer::text as brand, max(t.retention_days) as retention_days
        from team_supported_devices tsd
        join global_device_catalog g on g.id = tsd.global_device_catalog_id
        join device_metric_settings d on d.team_supported_device_id = tsd.id and d.is_enabled
        join team_device_data_storage_settings t on t.team_supported_device_id = tsd.id and t.metric_key = d.metric_key and t.is_enabled
        group by tsd.team_id, t.metric_key, g.manufacturer
      )
      select s.team_id, s.metric_key, s.brand::text as brand, e.retention_days
      from stored s left join enabled e on e.team_id = s.team_id and e.metric_key = s.metric_key and e.brand = s.brand::text`)
  ).rows.map((row): Policy => ({
    teamId: Number(row.team_id),
    metricKey: row.metric_key,
    brand: row.brand,
    retentionDays: row.retention_days === null ? null : Number(row.retention_days),
  }));
  const cutoffOf = (policy: Policy) =>
    policy.retentionDays === null
      ? new Date(Date.UTC(9999, 0, 1))
      : new Date(now.getTime() - policy.retentionDays * 86_400_000);
  const counts = new Map<string, { teamId: number; metricKey: string; deleted: number }>();
  const count = (teamId: number, metricKey: string, n: number) => {
    const key = `${teamId}:${metricKey}`;
    const entry = counts.get(key) ?? { teamId, metricKey, deleted: 0 };
    entry.deleted += n;
    counts.set(key, entry);
  };

  // 1. Whole partitions: every (team, metric, brand) in it is past its horizon at the month's end.
  const droppedPartitions: string[] = [];
  const partitions = (
    await db.execute<{ name: string; upper: string }>(sql`
      select c.relname as name,
             (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1] as upper
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'public.device_readings'::regclass order by c.relname`)
  ).rows;
  for (const partition of partitions) {
    const upper = new Date(partition.upper);
    if (!(upper.getTime() <= now.getTime())) continue;
    const table = sql.identifier(partition.name);
    const groups = (
      await db.execute<{ team_id: number; metric_key: string; brand: string; n: number }>(
        sql`select team_id, metric_key, brand::text as brand, count(*)::int as n from ${table} group by team_id, metric_key, brand`,
      )
    ).rows;
    if (groups.length === 0) continue;
    const allExpired = groups.every((group) => {
      const policy = policies.find(
        (p) =>
          p.teamId === Number(group.team_id) &&
          p.metricKey === group.metric_key &&
          p.brand === group.brand,
      );
      return policy !== undefined && upper.getTime() <= cutoffOf(policy).getTime();
    });
    if (!allExpired) continue;
    await db.transaction(async (tx) => {
      await tx.execute(sql`alter table device_readings detach partition ${table}`);
      // A dropped table fires no delete trigger: its readings leave the kept totals here
      // (decision 0257), counted once detached (no write reaches it any more).
      const gone = sql`select participant_id, team_id, metric_key, brand, count(*) as n from ${table}
        group by participant_id, team_id, metric_key, brand`;
      await tx.execute(sql`
        select 1 from device_reading_totals t
         where (participant_id, team_id, metric_key, brand) in
               (select participant_id, team_id, metric_key, brand from ${table})
         order by participant_id, team_id, metric_key, brand for update`);
      await tx.execute(sql`
        update device_reading_totals t set readings = t.readings - g.n, row_readings = t.row_readings - g.n
          from (${gone}) g
         where t.participant_id = g.participant_id and t.team_id = g.team_id
           and t.metric_key = g.metric_key and t.brand = g.brand`);
      await tx.execute(sql`drop table ${table}`);
      // The day summary of the days the month held (decision 0058).
      const lower = new Date(Date.UTC(upper.getUTCFullYear(), upper.getUTCMonth() - 1, 1));
      await refreshReadingDays(tx, await readingDaysOverlapping(tx, lower, upper));
    });
    droppedPartitions.push(partition.name);
    for (const group of groups) count(Number(group.team_id), group.metric_key, Number(group.n));
  }

  // 2. The rest in bounded batches through the primary key.
  for (const policy of policies) {
    const cutoff = cutoffOf(policy);
    for (;;) {
      // Each batch and the day summary of its days in one transaction (decision 0058).
      const result = await db.transaction(async (tx) => {
        const gone = await tx.execute<{
          p: number;
          t: number;
          m: string;
          d: string;
          n: number;
        }>(sql`
        with doomed as (
          select participant_id, team_id, metric_key, recorded_at, brand from device_readings
          where team_id = ${policy.teamId} and metric_key = ${policy.metricKey} and brand = ${policy.brand}::device_brand
            and recorded_at < ${cutoff.toISOString()}::timestamptz
          limit ${batchSize}
        ), gone as (
          delete from device_readings d using doomed x
          where d.participant_id = x.participant_id and d.team_id = x.team_id and d.metric_key = x.metric_key
            and d.recorded_at = x.recorded_at and d.brand = x.brand
          returning d.participant_id as p, d.team_id as t, d.metric_key as m, ${readingDay('d')} as day
        )
        select p, t, m, to_char(day, 'YYYY-MM-DD') as d, count(*)::int as n from gone group by p, t, m, day`);
        await refreshReadingDays(
          tx,
          gone.rows.map((row) => ({
            participantId: Number(row.p),
            teamId: Number(row.t),
            metricKey: row.m,
            day: row.d,
          })),
        );
        return gone;
      });
      const n = result.rows.reduce((sum, row) => sum + Number(row.n), 0);
      if (n > 0) count(policy.teamId, policy.metricKey, n);
      if (n < batchSize) break;
    }
  }

  // 3. The chunks of high-rate streams (decision 0255): whole chunks past the horizon and
  // the older points of a chunk that straddles it, in bounded batches of chunks.
  for (const policy of policies) {
    const cutoff = cutoffOf(policy);
    for (;;) {
      const result = await db.transaction(async (tx) => {
        const purged = await purgeChunks(tx, {
          teamId: policy.teamId,
          metricKey: policy.metricKey,
          brand: policy.brand,
          cutoff,
          limit: Math.max(1, Math.floor(batchSize / 100)),
        });
        await refreshReadingDays(tx, purged.touched);
        return purged;
      });
      if (result.deleted > 0) count(policy.teamId, policy.metricKey, result.deleted);
      if (!result.more) break;
    }
  }

  let audited = 0;
  let deleted = 0;
  for (const entry of counts.values()) {
    if (entry.deleted === 0) continue;
    deleted += entry.deleted;
    audited += 1;
    await recordAudit(db, {
      action: 'device_readings.purge',
      entityType: 'device_readings',
      entityId: entry.metricKey,
      teamId: entry.teamId,
      after: { metricKey: entry.metricKey, deleted: entry.deleted, run: options.runId },
    });
  }
  return { deleted, droppedPartitions, audited };
}
