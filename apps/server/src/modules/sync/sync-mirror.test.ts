import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import { participantDevices, storedReadings, syncCursors, syncRuns } from '../../db/schema';
import { decryptSecret } from '../../lib/crypto';
import { createTestDatabase } from '../../test/test-database';
import { dailyValue, heartRateMinutes, sleepSession } from '../completeness/reading-generators';
import { dailySummariesFromReadings, readingDaysFromScratch } from './daily-summary';
import type { ReadingInput } from './readings.service';
import { buildSyncService } from './sync.composition';
import type { SyncService } from './sync.service';
import {
  createParticipants,
  enrolledOn,
  linkForSync,
  readingsServiceFor,
  startSyncSimulators,
  type SyncSimulators,
  keptTotalsAndCounts,
} from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const DAY = 86_400_000;
const HOUR = 3_600_000;
const ACCOUNT = 'ava-thompson';
/** Rows a test plants as an earlier sync run stored them (`sync_run_id` has no foreign key). */
const EARLIER_SYNC = { syncRunId: 999_999 };

type Json = Record<string, unknown>;

/**
 * Decision 0112: a successful fetch of a Google Health stream's window mirrors it — stored
 * readings of the stream in the window that the provider no longer holds (an edited sleep
 * session's old start, a deleted weight log, seeded demo readings) are deleted with the
 * window's upserts, and the day summary follows; a failed or partial fetch deletes nothing.
 * Upstream changes are made through the simulator's `/__control/data-edits` hook.
 */
describe(`sync mirrors each fully fetched window (${MODE})`, () => {
  let database: Database;
  let sims: SyncSimulators;
  let service: SyncService;
  const db = () => database.db;
  const run = (connectionId: number, kind: 'backfill' | 'incremental' = 'incremental') =>
    service.syncConnection(connectionId, { kind, owner: randomUUID(), force: true });

  const fresh = async (count = 1) => {
    const fixture = await createParticipants(db(), count);
    return { teamId: fixture.teamId, participantIds: fixture.participantIds };
  };
  const stored = (participantId: number, metricKey?: string) =>
    db()
      .select()
      .from(storedReadings)
      .where(
        and(
          eq(storedReadings.participantId, participantId),
          metricKey ? eq(storedReadings.metricKey, metricKey) : undefined,
        ),
      )
      .orderBy(
        asc(storedReadings.metricKey),
        asc(storedReadings.recordedAt),
        asc(storedReadings.brand),
      );
  /** Every stored row of the participants, as comparable values. */
  const snapshot = async (participantIds: number[]) =>
    (
      await db()
        .select()
        .from(storedReadings)
        .where(inArray(storedReadings.participantId, participantIds))
        .orderBy(
          asc(storedReadings.participantId),
          asc(storedReadings.metricKey),
          asc(storedReadings.recordedAt),
          asc(storedReadings.brand),
        )
    ).map((row) => [
      row.participantId,
      row.metricKey,
      row.brand,
      row.recordedAt.toISOString(),
      row.endAt?.toISOString() ?? null,
      row.value,
    ]);
  /** The day summary table equals the one computed over the stored readings (for these participants). */
  const expectSummaryMatchesReadings = async (participantIds: number[]) => {
    const ids = sql.raw(participantIds.join(','));
    const maintained = await db().execute(sql`
      select participant_id, team_id, metric_key, to_char(day, 'YYYY-MM-DD') as day, readings, minutes, value_sum, first_at, last_at
        from device_reading_days where participant_id in (${ids}) order by 1, 2, 3, 4`);
    const scratch = await db().execute(sql`
      select participant_id, team_id, metric_key, to_char(day, 'YYYY-MM-DD') as day, readings, minutes, value_sum, first_at, last_at
        from (${readingDaysFromScratch()}) s where participant_id in (${ids}) order by 1, 2, 3, 4`);
    expect(maintained.rows.length).toBeGreaterThan(0);
    expect(maintained.rows).toEqual(scratch.rows);
  };
  const tokenOf = async (connectionId: number) => {
    const [row] = await db()
      .select()
      .from(participantDevices)
      .where(eq(participantDevices.id, connectionId));
    return decryptSecret(row!.accessTokenEncrypted!, sims.encryptionKey);
  };
  /** Every point of a Google list, read straight from the simulator's API. */
  const upstream = async (connectionId: number, type: string, filter: string, pageSize: number) => {
    const token = await tokenOf(connectionId);
    const points: Json[] = [];
    let pageToken = '';
    do {
      const response = await fetch(
        `${sims.googleHealth.baseUrl}/v4/users/me/dataTypes/${type}/dataPoints?${new URLSearchParams({ filter, pageSize: String(pageSize), ...(pageToken && { pageToken }) })}`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      expect(response.status).toBe(200);
      const page = (await response.json()) as { dataPoints?: Json[]; nextPageToken?: string };
      points.push(...(page.dataPoints ?? []));
      pageToken = page.nextPageToken ?? '';
    } while (pageToken);
    return points;
  };
  const sleepUpstream = (connectionId: number, from: Date, to: Date) =>
    upstream(
      connectionId,
      'sleep',
      `sleep.interval.end_time >= "${from.toISOString()}" AND sleep.interval.end_time < "${to.toISOString()}"`,
      25,
    );
  const weightUpstream = (connectionId: number, from: Date, to: Date) =>
    upstream(
      connectionId,
      'weight',
      `weight.sample_time.physical_time >= "${from.toISOString()}" AND weight.sample_time.physical_time < "${to.toISOString()}"`,
      10_000,
    );
  const idOf = (point: Json) => String(point.name).split('/').at(-1)!;
  const sleepOf = (point: Json) =>
    point.sleep as {
      interval: { startTime: string; endTime: string; startUtcOffset?: string };
      summary: { minutesAsleep?: string };
    };
  const edit = async (body: Json) => {
    const response = await fetch(`${sims.googleHealth.baseUrl}/__control/data-edits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accountId: ACCOUNT, ...body }),
    });
    expect(response.status).toBe(201);
  };
  /** Forgets the connection's cursors: the next run fetches everything from the backfill start again. */
  const forgetCursors = (connectionId: number) =>
    db().delete(syncCursors).where(eq(syncCursors.participantDeviceId, connectionId));
  const runRow = async (runId: number) =>
    (await db().select().from(syncRuns).where(eq(syncRuns.id, runId)))[0]!;

  beforeAll(async () => {
    database = await createTestDatabase();
    sims = await startSyncSimulators();
    service = buildSyncService(database, {
      providers: sims.providers,
      encryptionKey: sims.encryptionKey,
      clock: sims.clock,
    });
  });
  afterEach(async () => {
    await fetch(`${sims.googleHealth.baseUrl}/__control/data-edits`, { method: 'DELETE' });
    sims.googleHealth.control.clearFaults();
  });
  // Every write, mirror delete, purge and migration keeps the totals (decision 0257).
  afterEach(async () => {
    const { kept, counted } = await keptTotalsAndCounts(database.db);
    expect(Object.keys(counted).length).toBeGreaterThan(0);
    expect(kept).toEqual(counted);
  });
  afterAll(async () => {
    await sims?.close();
    await database?.close();
  });

  it('an edited sleep session (new start) leaves exactly one session stored, and the day sums and summary are right', async () => {
    const { teamId, participantIds } = await fresh();
    const participantId = participantIds[0]!;
    const now = sims.clock.now();
    const enrolled = new Date(now.getTime() - 4 * DAY);
    await enrolledOn(db(), participantId, enrolled);
    const connectionId = await linkForSync(db(), sims, {
      teamId,
      participantId,
      brand: 'Fitbit',
      account: ACCOUNT,
      metrics: ['sleep_duration', 'sleep_stages', 'steps'],
    });
    expect((await run(connectionId, 'backfill')).outcome).toBe('succeeded');

    // The newest session (in the incremental run's look-back): its start moves 90 minutes later.
    const firstDay = new Date(Math.floor(enrolled.getTime() / DAY) * DAY);
    const [latest] = await sleepUpstream(connectionId, firstDay, now);
    expect(latest).toBeDefined();
    const before = sleepOf(latest!);
    expect(Date.parse(before.interval.endTime)).toBeGreaterThanOrEqual(
      Math.floor((now.getTime() - DAY) / DAY) * DAY,
    );
    const endAt = new Date(before.interval.endTime);
    expect(
      (await stored(participantId, 'sleep_duration')).filter(
        (row) => row.endAt?.getTime() === endAt.getTime(),
      ),
    ).toHaveLength(1);
    await edit({ dataType: 'sleep', pointId: idOf(latest!), action: 'move-start', minutes: 90 });

    const second = await run(connectionId);
    expect(second.outcome).toBe('succeeded');
    // The old start's sleep_duration and sleep_stages readings.
    expect(second.deleted).toBe(2);
    const row = await runRow(second.runId!);
    expect(row.rowsDeleted).toBe(2);
    expect(row.windows).toContainEqual(
      expect.objectContaining({ stream: 'sleep', mirrored: true, deleted: 2 }),
    );

    for (const metricKey of ['sleep_duration', 'sleep_stages']) {
      const sessions = (await stored(participantId, metricKey)).filter(
        (candidate) => candidate.endAt?.getTime() === endAt.getTime(),
      );
      expect(sessions.map((session) => session.recordedAt.toISOString())).toEqual([
        new Date(Date.parse(before.interval.startTime) + 90 * 60_000).toISOString(),
      ]);
    }
    // Stored sessions are exactly the simulator's, and each local day's sleep is their sum.
    const sessions = await sleepUpstream(connectionId, firstDay, now);
    const moved = sessions.find((point) => idOf(point) === idOf(latest!))!;
    expect(Number(sleepOf(moved).summary.minutesAsleep)).toBe(
      Number(before.summary.minutesAsleep) - 90,
    );
    expect(
      (await stored(participantId, 'sleep_duration')).map((reading) => [
        reading.recordedAt.toISOString(),
        reading.value,
      ]),
    ).toEqual(
      sessions
        .map((point) => [
          new Date(sleepOf(point).interval.startTime).toISOString(),
          Number(sleepOf(point).summary.minutesAsleep),
        ])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    const expectedByDay = new Map<string, number>();
    for (const point of sessions) {
      const { interval, summary } = sleepOf(point);
      const offsetSeconds = Number.parseFloat(String(interval.startUtcOffset ?? '0s'));
      const day = new Date(Date.parse(interval.endTime) + offsetSeconds * 1000)
        .toISOString()
        .slice(0, 10);
      expectedByDay.set(day, (expectedByDay.get(day) ?? 0) + Number(summary.minutesAsleep));
    }
    const days = [...expectedByDay.keys()].sort();
    const summaries = await readingsServiceFor(db()).dailySummaries(
      teamId,
      [participantId],
      days[0]!,
      days.at(-1)!,
    );
    expect(
      new Map(
        summaries
          .filter((day) => day.sleepMinutes !== null)
          .map((day) => [day.day, day.sleepMinutes]),
      ),
    ).toEqual(expectedByDay);
    await expectSummaryMatchesReadings([participantId]);
    expect(summaries).toEqual(
      await dailySummariesFromReadings(db(), teamId, [participantId], days[0]!, days.at(-1)!),
    );

    // Nothing changed upstream since: the next run deletes nothing.
    expect((await run(connectionId)).deleted).toBe(0);
  });

  it("a weight log deleted upstream is removed; the same weigh-in's body fat (another data point) stays", async () => {
    const { teamId, participantIds } = await fresh();
    const participantId = participantIds[0]!;
    const now = sims.clock.now();
    const enrolled = new Date(now.getTime() - 14 * DAY);
    await enrolledOn(db(), participantId, enrolled);
    const connectionId = await linkForSync(db(), sims, {
      teamId,
      participantId,
      brand: 'Fitbit',
      account: ACCOUNT,
      metrics: ['weight', 'body_fat'],
    });
    expect((await run(connectionId, 'backfill')).outcome).toBe('succeeded');
    const points = await weightUpstream(connectionId, enrolled, now);
    expect(points.length).toBeGreaterThanOrEqual(2);
    const gone = points[points.length - 1]!;
    const goneAt = new Date(
      (gone.weight as { sampleTime: { physicalTime: string } }).sampleTime.physicalTime,
    );
    expect(
      (await stored(participantId, 'weight')).map((row) => row.recordedAt.getTime()),
    ).toContain(goneAt.getTime());
    const weightsBefore = (await stored(participantId, 'weight')).length;
    const bodyFatBefore = (await stored(participantId, 'body_fat')).map((row) =>
      row.recordedAt.getTime(),
    );
    await edit({ dataType: 'weight', pointId: idOf(gone), action: 'delete' });

    await forgetCursors(connectionId);
    const second = await run(connectionId);
    expect(second.outcome).toBe('succeeded');
    expect(second.deleted).toBe(1);
    const weights = await stored(participantId, 'weight');
    expect(weights.map((row) => row.recordedAt.getTime())).not.toContain(goneAt.getTime());
    expect(weights).toHaveLength(weightsBefore - 1);
    expect(
      (await stored(participantId, 'body_fat')).map((row) => row.recordedAt.getTime()),
    ).toEqual(bodyFatBefore);
    await expectSummaryMatchesReadings([participantId]);
  });

  it("deletes only within the fetched window, and never another participant's, brand's or metric's readings", async () => {
    const { teamId, participantIds } = await fresh(2);
    const [participantId, neighbour] = participantIds as [number, number];
    const now = sims.clock.now();
    const enrolled = new Date(now.getTime() - 3 * DAY);
    await enrolledOn(db(), participantId, enrolled);
    const inside = new Date(Math.floor((now.getTime() - DAY) / 60_000) * 60_000 + 7_000);
    const outside = new Date(enrolled.getTime() - 2 * DAY);
    const owner = { participantId, teamId };
    const fitbitWeight = (at: Date, who = owner): ReadingInput => ({
      ...who,
      brand: 'Fitbit',
      metricKey: 'weight',
      recordedAt: at,
      value: 80,
      upstream: 'google-health',
    });
    await readingsServiceFor(db()).store(
      [
        fitbitWeight(inside), // not upstream, inside the window: deleted
        fitbitWeight(outside), // before the backfill start: kept
        { ...fitbitWeight(inside), brand: 'Omron', upstream: 'omron' }, // another brand: kept
        { ...fitbitWeight(inside), metricKey: 'spo2', value: 97 }, // a metric not synced: kept
        fitbitWeight(inside, { participantId: neighbour, teamId }), // another participant: kept
        // A session ending inside the window (not upstream): deleted; one ending before it: kept.
        sleepSession(owner, new Date(inside.getTime() - 8 * HOUR), inside, -300),
        sleepSession(owner, new Date(outside.getTime() - 8 * HOUR), outside, -300),
      ],
      EARLIER_SYNC,
    );
    const connectionId = await linkForSync(db(), sims, {
      teamId,
      participantId,
      brand: 'Fitbit',
      account: ACCOUNT,
      metrics: ['weight', 'sleep_duration'],
    });
    const result = await run(connectionId, 'backfill');
    expect(result.outcome).toBe('succeeded');
    expect(result.deleted).toBe(2);
    const mine = await stored(participantId);
    const has = (metricKey: string, brand: string, at: Date) =>
      mine.some(
        (row) =>
          row.metricKey === metricKey &&
          row.brand === brand &&
          row.recordedAt.getTime() === at.getTime(),
      );
    expect(has('weight', 'Fitbit', inside)).toBe(false);
    expect(has('sleep_duration', 'Fitbit', new Date(inside.getTime() - 8 * HOUR))).toBe(false);
    expect(has('weight', 'Fitbit', outside)).toBe(true);
    expect(has('sleep_duration', 'Fitbit', new Date(outside.getTime() - 8 * HOUR))).toBe(true);
    expect(has('weight', 'Omron', inside)).toBe(true);
    expect(has('spo2', 'Fitbit', inside)).toBe(true);
    expect((await stored(neighbour)).map((row) => row.recordedAt.getTime())).toEqual([
      inside.getTime(),
    ]);
    await expectSummaryMatchesReadings([participantId, neighbour]);
  });

  it('a participant with two connections of the brand is not mirrored (readings carry no connection)', async () => {
    const { teamId, participantIds } = await fresh();
    const participantId = participantIds[0]!;
    const now = sims.clock.now();
    await enrolledOn(db(), participantId, new Date(now.getTime() - 2 * DAY));
    const stale = new Date(Math.floor((now.getTime() - DAY) / 60_000) * 60_000 + 11_000);
    await readingsServiceFor(db()).store(
      [
        {
          participantId,
          teamId,
          brand: 'Fitbit',
          metricKey: 'weight',
          recordedAt: stale,
          value: 81,
          upstream: 'google-health',
        },
      ],
      EARLIER_SYNC,
    );
    const first = await linkForSync(db(), sims, {
      teamId,
      participantId,
      brand: 'Fitbit',
      account: ACCOUNT,
      metrics: ['weight'],
    });
    await linkForSync(db(), sims, {
      teamId,
      participantId,
      brand: 'Fitbit',
      account: 'ben-okafor',
      metrics: ['weight'],
    });
    const result = await run(first, 'backfill');
    expect(result.outcome).toBe('succeeded');
    expect(result.deleted).toBe(0);
    expect((await runRow(result.runId!)).windows).toContainEqual(
      expect.objectContaining({ stream: 'weight', mirrored: false }),
    );
    expect(
      (await stored(participantId, 'weight')).map((row) => row.recordedAt.getTime()),
    ).toContain(stale.getTime());
  });

  it('a fetch that fails mid-pagination (429, then 500 on page 2) deletes nothing; the next whole fetch does', async () => {
    const { teamId, participantIds } = await fresh();
    const participantId = participantIds[0]!;
    const now = sims.clock.now();
    const enrolled = new Date(now.getTime() - 45 * DAY);
    await enrolledOn(db(), participantId, enrolled);
    const connectionId = await linkForSync(db(), sims, {
      teamId,
      participantId,
      brand: 'Fitbit',
      account: ACCOUNT,
      metrics: ['sleep_duration', 'weight'],
    });
    expect((await run(connectionId, 'backfill')).outcome).toBe('succeeded');
    // More than one page of sleep (25 a page) in the window.
    expect((await sleepUpstream(connectionId, enrolled, now)).length).toBeGreaterThan(25);
    /** What upstream holds at the simulated clock's now: a stored row's key for each point. */
    const upstreamKeys = async () => {
      const until = new Date(sims.clock.now().getTime() + 1);
      const sleeps = (await sleepUpstream(connectionId, enrolled, until)).map(
        (point) => `sleep_duration ${new Date(sleepOf(point).interval.startTime).toISOString()}`,
      );
      const weights = (await weightUpstream(connectionId, enrolled, until)).map((point) => {
        const weight = point.weight as { sampleTime: { physicalTime: string } };
        return `weight ${new Date(weight.sampleTime.physicalTime).toISOString()}`;
      });
      return new Set([...sleeps, ...weights]);
    };
    const upstreamAtStart = await upstreamKeys();

    // Upstream loses a weight log; the store holds a session the provider never had.
    const [newestWeight] = await weightUpstream(connectionId, enrolled, now);
    await edit({ dataType: 'weight', pointId: idOf(newestWeight!), action: 'delete' });
    const strayEnd = new Date(Math.floor((now.getTime() - 3 * DAY) / 60_000) * 60_000 + 13_000);
    await readingsServiceFor(db()).store(
      [
        sleepSession(
          { participantId, teamId },
          new Date(strayEnd.getTime() - 7 * HOUR),
          strayEnd,
          -300,
        ),
      ],
      EARLIER_SYNC,
    );
    const before = await snapshot([participantId]);
    await forgetCursors(connectionId);

    await sims.googleHealth.control.injectFault({
      kind: 'rate-limit',
      pathIncludes: '/dataTypes/sleep/',
      after: 1,
    });
    const limited = await run(connectionId);
    expect(limited.outcome).toBe('backed_off');
    expect(limited.deleted).toBe(0);
    expect((await runRow(limited.runId!)).rowsDeleted).toBe(0);
    expect(await snapshot([participantId])).toEqual(before);

    sims.clock.advance(2 * 60_000);
    await sims.googleHealth.control.injectFault({
      kind: 'server-error',
      status: 500,
      pathIncludes: '/dataTypes/sleep/',
      after: 1,
    });
    const failed = await run(connectionId);
    expect(failed.outcome).toBe('failed');
    expect(failed.deleted).toBe(0);
    expect(await snapshot([participantId])).toEqual(before);

    // A whole fetch mirrors both streams.
    sims.clock.advance(16 * 60_000);
    const whole = await run(connectionId);
    expect(whole.outcome).toBe('succeeded');
    expect(whole.deleted).toBe(2);
    const after = await snapshot([participantId]);
    const keyOf = (row: unknown[]) => JSON.stringify(row);
    const afterKeys = new Set(after.map(keyOf));
    const beforeKeys = new Set(before.map(keyOf));
    // Exactly the two mirrored away are gone: the weight log upstream lost, the stray session.
    expect(
      before.filter((row) => !afterKeys.has(keyOf(row))).map((row) => [row[1], row[4]]),
    ).toEqual([
      ['sleep_duration', strayEnd.toISOString()],
      ['weight', null],
    ]);
    // Anything new is what the tracker and the scale uploaded in the 18 minutes the clock
    // moved on (at some times of day last night's sleep, once the wearer woke, or a weigh-in):
    // upstream has it now and did not at the start; never a reading mirrored away back. (A
    // check that new rows were recorded after the start failed between about 13:40 and 14:00
    // UTC, when the simulated tracker uploads the night that began before it.)
    const upstreamAtEnd = await upstreamKeys();
    for (const row of after.filter((row) => !beforeKeys.has(keyOf(row)))) {
      const key = `${String(row[1])} ${String(row[3])}`;
      expect(upstreamAtEnd.has(key), `${key} is upstream now`).toBe(true);
      expect(upstreamAtStart.has(key), `${key} was not upstream at the start`).toBe(false);
    }
    await expectSummaryMatchesReadings([participantId]);
  });

  it("readings no sync stored (the demo seed's) are never deleted by the mirror; what the sync stored beside them is", async () => {
    const { teamId, participantIds } = await fresh();
    const participantId = participantIds[0]!;
    const now = sims.clock.now();
    const enrolled = new Date(now.getTime() - 2 * DAY);
    const metrics = ['heart_rate', 'steps', 'sleep_duration'];
    // What seedDemoReadings writes for SLEEP-001 (site clock UTC−5), within the synced range.
    const owner = { participantId, teamId };
    const offset = -300;
    const seed: ReadingInput[] = [];
    for (const back of [1, 2]) {
      const day = new Date(now.getTime() + offset * 60_000 - back * DAY).toISOString().slice(0, 10);
      const midnight = Date.parse(`${day}T00:00:00Z`) - offset * 60_000;
      const at = (hours: number) => new Date(midnight + hours * HOUR);
      if (at(7) > enrolled)
        seed.push(
          ...heartRateMinutes(owner, at(7), 9 * 60, offset).filter((row) => row.recordedAt < now),
        );
      seed.push(dailyValue(owner, day, 'steps', 7777));
      if (at(-1.5) > enrolled) seed.push(sleepSession(owner, at(-1.5), at(6.5), offset));
    }
    await readingsServiceFor(db()).store(seed);
    // And one reading an earlier sync stored that the account does not hold: the account's
    // heart-rate samples fall on whole seconds (every 2–8 s), so a whole-second stray could
    // coincide with one of them and be upserted instead of deleted; half a second never does.
    const strayAt = new Date(Math.floor((now.getTime() - DAY) / 60_000) * 60_000 + 17_500);
    await readingsServiceFor(db()).store(
      [
        {
          ...owner,
          brand: 'Fitbit',
          metricKey: 'heart_rate',
          recordedAt: strayAt,
          value: 61,
          upstream: 'google-health',
        },
      ],
      EARLIER_SYNC,
    );
    await enrolledOn(db(), participantId, enrolled);
    const connectionId = await linkForSync(db(), sims, {
      teamId,
      participantId,
      brand: 'Fitbit',
      account: ACCOUNT,
      metrics,
    });
    const result = await run(connectionId, 'backfill');
    expect(result.outcome).toBe('succeeded');
    expect(result.deleted).toBe(1);

    const kept = new Set(
      (await stored(participantId)).map(
        (row) => `${row.metricKey}|${row.recordedAt.toISOString()}`,
      ),
    );
    const seededKeys = new Set(
      seed.map((row) => `${row.metricKey}|${row.recordedAt.toISOString()}`),
    );
    expect([...seededKeys].filter((key) => !kept.has(key))).toEqual([]);
    expect(kept.has(`heart_rate|${strayAt.toISOString()}`)).toBe(false);
    await expectSummaryMatchesReadings([participantId]);
  });
});
