import { sql } from 'drizzle-orm';
import { METRIC_CATALOG } from '@trialpulse/shared/metrics/metric-catalog';
import { LIMITS } from '@trialpulse/shared/limits';
import type { Db } from '../types';
import { metricCatalog } from '../schema';

/**
 * Makes `metric_catalog` hold the product's metric catalog (packages/shared) in every mode:
 * inserts missing metrics and brings names, units, category, description and default
 * retention up to date. Idempotent and safe when two processes start at once (ON CONFLICT).
 * Rows are never deleted and `available` is never touched: stored readings and settings
 * refer to the keys, and switching a metric off is an administrator's decision.
 */
export async function upsertMetricCatalog(db: Db): Promise<void> {
  const rows = Object.entries(METRIC_CATALOG).flatMap(([deviceType, list]) =>
    list.map((metric) => ({
      deviceType,
      metricKey: metric.metricKey,
      metricName: metric.metricName,
      units: metric.units,
      category: metric.category,
      description: metric.description,
      defaultRetentionDays: metric.defaultRetentionDays ?? LIMITS.defaultRetentionDays,
    })),
  );
  await db
    .insert(metricCatalog)
    .values(rows)
    .onConflictDoUpdate({
      target: [metricCatalog.deviceType, metricCatalog.metricKey],
      set: {
        metricName: sql`excluded.metric_name`,
        units: sql`excluded.units`,
        category: sql`excluded.category`,
        description: sql`excluded.description`,
        defaultRetentionDays: sql`excluded.default_retention_days`,
        updatedAt: sql`now()`,
      },
      // Only rows that differ, so a restart writes nothing.
      setWhere: sql`(${metricCatalog.metricName}, ${metricCatalog.units}, ${metricCatalog.category}, ${metricCatalog.description}, ${metricCatalog.defaultRetentionDays}) IS DISTINCT FROM (excluded.metric_name, excluded.units, excluded.category, excluded.description, excluded.default_retention_days)`,
    });
}
