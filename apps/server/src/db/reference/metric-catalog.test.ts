import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_CATALOG } from '@trialpulse/shared';
import type { Database } from '../client';
import { runMigrations } from '../client';
import { metricCatalog } from '../schema';
import { createTestDatabase } from '../../test/test-database';

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

const expected = Object.entries(METRIC_CATALOG)
  .flatMap(([deviceType, list]) => list.map((metric) => `${deviceType}/${metric.metricKey}`))
  .sort();

describe('metric catalog (product data, every mode)', () => {
  it('is in a freshly migrated database without any demo seed', async () => {
    const rows = await database.db.select().from(metricCatalog);
    expect(rows.map((row) => `${row.deviceType}/${row.metricKey}`).sort()).toEqual(expected);
    const heartRate = rows.find(
      (row) => row.deviceType === 'TRACKER' && row.metricKey === 'heart_rate',
    );
    expect(heartRate).toMatchObject({
      metricName: 'Heart Rate',
      units: 'bpm',
      defaultRetentionDays: 90,
    });
    expect(rows.find((row) => row.metricKey === 'steps')?.defaultRetentionDays).toBe(30);
  });

  it('a second start changes nothing; a drifted row is brought back, `available` is kept', async () => {
    const before = await database.db.select().from(metricCatalog).orderBy(metricCatalog.id);
    await runMigrations(database);
    expect(await database.db.select().from(metricCatalog).orderBy(metricCatalog.id)).toEqual(
      before,
    );

    const steps = and(
      eq(metricCatalog.deviceType, 'TRACKER'),
      eq(metricCatalog.metricKey, 'steps'),
    );
    await database.db
      .update(metricCatalog)
      .set({ metricName: 'Old name', available: false })
      .where(steps);
    await runMigrations(database);
    const [row] = await database.db.select().from(metricCatalog).where(steps);
    expect(row).toMatchObject({ metricName: 'Steps', available: false });
    expect(await database.db.select().from(metricCatalog)).toHaveLength(before.length);
  });
});
