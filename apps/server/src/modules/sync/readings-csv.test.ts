import { buffer } from 'node:stream/consumers';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import { createTestDatabase } from '../../test/test-database';
import { READINGS_CSV_COLUMNS, readingsCsv, type ReadingsCsvLabels } from './readings-csv';
import type { ReadingInput, ReadingsQuery, ReadingsService } from './readings.service';
import { createParticipants, readingsServiceFor } from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const DAY = Date.parse('2026-10-05T00:00:00Z');

describe(`stored readings as CSV, formatted by the database (${MODE})`, () => {
  let database: Database;
  let service: ReadingsService;
  let teamId: number;
  let participantId: number;
  let query: ReadingsQuery;
  const labels: ReadingsCsvLabels = {
    participantCode: '=P-001',
    metrics: [
      { metricKey: 'heart_rate', metricName: 'Heart Rate', units: 'bpm' },
      { metricKey: 'steps', metricName: '+Steps', units: '' },
    ],
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    service = readingsServiceFor(database.db, () => new Date('2026-11-20T12:00:00Z'));
    const fixture = await createParticipants(database.db, 1);
    teamId = fixture.teamId;
    participantId = fixture.participantIds[0]!;
    const base = { teamId, participantId, brand: 'Fitbit', upstream: 'google-health' } as const;
    const rows: ReadingInput[] = [
      // A daily total: stored at the date's 00:00 UTC, no offset.
      {
        ...base,
        metricKey: 'steps',
        recordedAt: new Date(DAY),
        value: 10_432,
        dataSource: '@SUM(A1:A9)',
      },
      {
        ...base,
        metricKey: 'steps',
        recordedAt: new Date(DAY + 86_400_000),
        value: 0,
        dataSource: 'line one\nline "two"',
      },
      // Samples with an offset, a fraction, a negative value, milliseconds, an end, JSON.
      {
        ...base,
        metricKey: 'heart_rate',
        recordedAt: new Date(DAY + 3_600_000 + 123),
        utcOffsetMinutes: -300,
        value: 61.5,
        dataSource: '-2+3',
      },
      {
        ...base,
        metricKey: 'heart_rate',
        recordedAt: new Date(DAY + 7_200_000),
        utcOffsetMinutes: 330,
        value: -4,
        dataSource: 'tracker',
      },
      {
        ...base,
        metricKey: 'sleep',
        recordedAt: new Date(DAY + 80_000_000),
        endAt: new Date(DAY + 100_000_000),
        utcOffsetMinutes: 60,
        valueJson: { stages: [{ stage: 'deep', minutes: 42 }] },
      },
      {
        ...base,
        metricKey: 'weight',
        recordedAt: new Date(DAY + 3_000),
        utcOffsetMinutes: 0,
        valueJson: -1,
      },
      // Outside the range / another brand: never in the file.
      {
        ...base,
        metricKey: 'heart_rate',
        recordedAt: new Date(DAY - 1),
        utcOffsetMinutes: 0,
        value: 99,
      },
      {
        ...base,
        brand: 'Omron',
        upstream: 'omron',
        metricKey: 'heart_rate',
        recordedAt: new Date(DAY + 60_000),
        value: 98,
      },
    ];
    await service.store(rows);
    query = {
      teamId,
      participantId,
      brand: 'Fitbit',
      from: new Date(DAY),
      to: new Date(DAY + 5 * 86_400_000),
    };
  });
  afterAll(() => database?.close());

  const read = async (csv: { stream: NodeJS.ReadableStream; rows(): number }) => {
    const bytes = await buffer(csv.stream);
    return { text: bytes.toString('utf8'), rows: csv.rows() };
  };

  it('writes every reading of the range once, in the flat layout, with formula cells neutralised', async () => {
    const { text, rows } = await read(service.csv(query, labels, { header: true }));
    expect(rows).toBe(6);
    const records = parse(text, { columns: true }) as Record<string, string>[];
    expect(Object.keys(records[0]!)).toEqual([...READINGS_CSV_COLUMNS]);
    expect(records.map((record) => `${record.metric_key} ${record.recorded_at_utc}`)).toEqual([
      'heart_rate 2026-10-05T01:00:00.123Z',
      'heart_rate 2026-10-05T02:00:00Z',
      'sleep 2026-10-05T22:13:20Z',
      'steps 2026-10-05T00:00:00Z',
      'steps 2026-10-06T00:00:00Z',
      'weight 2026-10-05T00:00:03Z',
    ]);
    const [hr1, hr2, sleep, steps1, steps2, weight] = records as [
      Record<string, string>,
      ...Record<string, string>[],
    ];
    expect(hr1).toEqual({
      participant_id: String(participantId),
      participant_code: "'=P-001",
      // The device the reading came with (decision 0186): the brand and its data source.
      device: 'Fitbit -2+3',
      metric_key: 'heart_rate',
      metric_name: 'Heart Rate',
      units: 'bpm',
      recorded_at_utc: '2026-10-05T01:00:00.123Z',
      local_time: '2026-10-04T20:00:00.123',
      utc_offset_minutes: '-300',
      end_at_utc: '',
      value: '61.5',
      value_json: '',
      data_source: "'-2+3",
      upstream: 'google-health',
    });
    expect(hr2).toMatchObject({
      local_time: '2026-10-05T07:30:00',
      value: '-4',
      data_source: 'tracker',
      device: 'Fitbit tracker',
    });
    expect(sleep).toMatchObject({
      metric_name: 'sleep',
      units: '',
      end_at_utc: '2026-10-06T03:46:40Z',
      local_time: '2026-10-05T23:13:20',
      value: '',
    });
    expect(JSON.parse(sleep!.value_json!)).toEqual({ stages: [{ stage: 'deep', minutes: 42 }] });
    expect(steps1).toMatchObject({
      metric_name: "'+Steps",
      units: '',
      local_time: '2026-10-05',
      utc_offset_minutes: '',
      value: '10432',
      data_source: "'@SUM(A1:A9)",
    });
    expect(steps2).toMatchObject({ value: '0', data_source: 'line one\nline "two"' });
    // A JSON value that is a negative number is text in this column: neutralised too.
    expect(weight).toMatchObject({ value_json: "'-1" });
    for (const record of records) {
      for (const cell of Object.values(record))
        if (cell !== record.value && cell !== record.utc_offset_minutes)
          expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    }
  });

  it('writes the same bytes streamed (COPY on PostgreSQL) and in small keyset batches', async () => {
    const streamed = await read(service.csv(query, labels, { header: true }));
    const batched = await read(
      readingsCsv(database.db, query, labels, { header: true, batchSize: 2, via: 'batches' }),
    );
    expect(batched.rows).toBe(6);
    expect(batched.text).toBe(streamed.text);
    // One metric, no header: only its rows.
    const one = await read(
      service.csv({ ...query, metricKeys: ['steps'] }, labels, { header: false }),
    );
    expect(one.rows).toBe(2);
    expect(one.text.startsWith(`${participantId},`)).toBe(true);
    // Nothing stored in the range: the header alone.
    const empty = await read(
      service.csv(
        { ...query, from: new Date(DAY + 10 * 86_400_000), to: new Date(DAY + 11 * 86_400_000) },
        labels,
        { header: true },
      ),
    );
    expect(empty).toEqual({ text: `${READINGS_CSV_COLUMNS.join(',')}\n`, rows: 0 });
  });

  it('a stream destroyed half-way stops its read (on PostgreSQL: closes its connection) and the next read works', async () => {
    const many: ReadingInput[] = Array.from({ length: 20_000 }, (_, index) => ({
      teamId,
      participantId,
      brand: 'Fitbit',
      upstream: 'google-health',
      metricKey: 'heart_rate',
      recordedAt: new Date(DAY + 3 * 86_400_000 + index * 1000),
      utcOffsetMinutes: 0,
      value: 70,
    }));
    await service.store(many);
    const csv = service.csv(query, labels, { header: true });
    await new Promise<void>((resolve, reject) => {
      csv.stream.once('data', () => {
        csv.stream.destroy();
        resolve();
      });
      csv.stream.once('error', reject);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const again = await read(service.csv(query, labels, { header: false }));
    expect(again.rows).toBe(6 + 20_000);
  });
});
