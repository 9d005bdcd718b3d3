import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import JSZip from 'jszip';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ExportExtra, ExportFormat, ExportMode } from '@trialpulse/shared';
import { readingDay } from '@trialpulse/shared/civil-days';
import { READINGS_CSV_COLUMNS } from '../sync/readings-csv';
import type { ReadingsQuery, StoredReading } from '../sync/readings.service';
import type { ExportIo, ExportPlan } from './export-plan';
import { writeExport } from './export-writer';
import { TRACKER_METRICS } from './test-support';

/**
 * The ZIP the writer builds from fixed readings and a fixed clock, entry by entry (name and
 * SHA-256 of the content), in every format and mode with every optional file. The expected
 * hashes were computed with the writer before it became one sink per format (issue 27), so
 * a change of any byte of any file shows here. The readings come from memory: the
 * database's CSV formatting has its own test (sync/readings-csv.test.ts); this one covers
 * what the writer makes of the readings. A deliberate change of a file's content updates
 * the hashes (`GOLDEN_PRINT=<file>` writes them there).
 */

const EXPORTED_AT = new Date('2026-03-10T12:34:56.000Z');
const DAY = 24 * 60 * 60 * 1000;
const START = '2026-03-01';
const END = '2026-03-04';

/** Two participants, daily steps and calories, minute heart rate, SpO2 with JSON and a formula-looking source. */
function fixedReadings(): StoredReading[] {
  const readings: StoredReading[] = [];
  const base = Date.parse(`${START}T00:00:00Z`);
  const reading = (
    fields: Partial<StoredReading> &
      Pick<StoredReading, 'participantId' | 'metricKey' | 'recordedAt'>,
  ): StoredReading => ({
    teamId: 1,
    brand: 'Fitbit',
    endAt: null,
    utcOffsetMinutes: null,
    value: null,
    valueJson: null,
    upstream: 'google-health',
    dataSource: 'tracker',
    syncRunId: null,
    syncedAt: EXPORTED_AT,
    ...fields,
  });
  for (const participantId of [11, 12]) {
    for (let day = 0; day < 4; day += 1) {
      readings.push(
        reading({
          participantId,
          metricKey: 'steps',
          recordedAt: new Date(base + day * DAY),
          value: 1000 * day + participantId,
          dataSource: day === 2 ? '=HYPERLINK("http://evil.example","x")' : 'tracker',
        }),
      );
      if (day !== 1)
        readings.push(
          reading({
            participantId,
            metricKey: 'calories',
            recordedAt: new Date(base + day * DAY),
            value: 1800.5 + day,
          }),
        );
    }
    for (let minute = 0; minute < 90; minute += 1)
      readings.push(
        reading({
          participantId,
          metricKey: 'heart_rate',
          recordedAt: new Date(base + DAY + 8 * 3600_000 + minute * 61_000),
          utcOffsetMinutes: -300,
          value: 60 + (minute % 30),
          dataSource: minute === 5 ? '-2+3' : '+tracker',
        }),
      );
    readings.push(
      reading({
        participantId,
        metricKey: 'spo2',
        recordedAt: new Date(base + 2 * DAY + 3 * 3600_000),
        endAt: new Date(base + 2 * DAY + 4 * 3600_000),
        utcOffsetMinutes: 60,
        value: 96.5,
        valueJson: { min: 94, max: 98, note: '@note' },
      }),
    );
  }
  // Outside the range: never exported.
  readings.push(
    reading({ participantId: 11, metricKey: 'steps', recordedAt: new Date(base - DAY), value: 5 }),
  );
  return readings;
}

/** ReadingsService.iterate and .csv over readings in memory, in the database's order (metric, time, brand). */
function memoryIo(readings: StoredReading[], pageSize: number): ExportIo {
  const select = (query: ReadingsQuery) =>
    readings
      .filter(
        (r) =>
          r.participantId === query.participantId &&
          (!query.metricKeys || query.metricKeys.includes(r.metricKey)) &&
          (!query.brand || r.brand === query.brand) &&
          r.recordedAt >= query.from &&
          r.recordedAt < query.to &&
          (!query.localDays ||
            (readingDay(r) >= query.localDays.start && readingDay(r) <= query.localDays.end)),
      )
      .sort((a, b) =>
        a.metricKey < b.metricKey
          ? -1
          : a.metricKey > b.metricKey
            ? 1
            : a.recordedAt.getTime() - b.recordedAt.getTime(),
      );
  return {
    async *iterate(query, options) {
      const rows = select(query);
      for (let at = 0; at < rows.length; at += options.pageSize ?? 5_000)
        yield rows.slice(at, at + (options.pageSize ?? 5_000));
    },
    csv(query, labels, options) {
      const rows = select(query);
      const cells = rows.map((r) => {
        const metric = labels.metrics.find((m) => m.metricKey === r.metricKey);
        return [
          r.participantId,
          labels.participantCode,
          labels.device,
          r.metricKey,
          metric?.metricName ?? r.metricKey,
          metric?.units ?? null,
          r.recordedAt.toISOString(),
          null,
          r.utcOffsetMinutes,
          r.endAt?.toISOString() ?? null,
          r.value,
          r.valueJson === null ? null : JSON.stringify(r.valueJson),
          r.dataSource,
          r.upstream,
        ];
      });
      const text = stringify(cells, {
        header: options.header,
        columns: options.header ? [...READINGS_CSV_COLUMNS] : undefined,
      });
      return { stream: Readable.from([Buffer.from(text, 'utf8')]), rows: () => rows.length };
    },
    // The offsets of each local day's first and last reading that has one.
    async dayOffsets(_teamId, participantId, days) {
      const byDay = new Map<string, { day: string; start: number; end: number }>();
      for (const r of [...readings].sort(
        (a, b) => a.recordedAt.getTime() - b.recordedAt.getTime(),
      )) {
        if (r.participantId !== participantId || r.utcOffsetMinutes === null) continue;
        const day = readingDay(r);
        if (day < days.start || day > days.end) continue;
        const known = byDay.get(day);
        if (known) known.end = r.utcOffsetMinutes;
        else byDay.set(day, { day, start: r.utcOffsetMinutes, end: r.utcOffsetMinutes });
      }
      return [...byDay.values()];
    },
    progress: async () => true,
    pageSize,
  };
}

function plan(format: ExportFormat, exportMode: ExportMode, extras: ExportExtra[]): ExportPlan {
  const metrics = ['steps', 'heart_rate', 'calories', 'spo2'];
  return {
    jobId: 7,
    teamId: 1,
    request: {
      fileName: 'Golden study',
      startDate: START,
      endDate: END,
      participantIds: [11, 12],
      metrics,
      exportMode,
      format,
      extras,
      trialId: 3,
      deviceId: 5,
    },
    device: {
      id: 5,
      friendlyName: 'Fitbit Smartwatches & Trackers',
      brand: 'Fitbit',
      deviceType: 'TRACKER',
    },
    participants: [
      { participantId: 11, participantCode: 'P-011' },
      { participantId: 12, participantCode: '+P-012' },
    ],
    metrics: metrics.map((key) => {
      const metric = TRACKER_METRICS.find((m) => m.metricKey === key)!;
      return {
        metricKey: key,
        metricName: metric.metricName,
        units: metric.units,
        category: metric.category,
        description: metric.description,
      };
    }),
    softwareVersion: 'golden',
    exportedAt: EXPORTED_AT,
  };
}

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** An XLSX's own parts, each hashed (the workbook's file dates come from the clock the test fixes). */
async function entriesOf(data: Uint8Array): Promise<Record<string, string>> {
  const zip = await JSZip.loadAsync(data, { checkCRC32: true });
  const entries: Record<string, string> = {};
  for (const name of Object.keys(zip.files).sort()) {
    const entry = zip.files[name]!;
    if (entry.dir) continue;
    entries[name] = sha256(await entry.async('uint8array'));
  }
  return entries;
}

const CASES: { name: string; format: ExportFormat; mode: ExportMode; extras: ExportExtra[] }[] = [
  {
    name: 'csv, separate tabs, every optional file',
    format: 'csv',
    mode: 'separate-tabs',
    extras: ['fhir', 'openmhealth', 'adherence'],
  },
  { name: 'csv, single tab', format: 'csv', mode: 'single-tab', extras: [] },
  {
    name: 'xlsx, separate tabs, Open mHealth',
    format: 'xlsx',
    mode: 'separate-tabs',
    extras: ['openmhealth'],
  },
  {
    name: 'xlsx, single tab, FHIR and adherence',
    format: 'xlsx',
    mode: 'single-tab',
    extras: ['fhir', 'adherence'],
  },
];

/** Expected entries (name → SHA-256), from the writer before issue 27, updated by design for issue 28 (decisions 0182, 0183). XLSX: its parts too. */
const EXPECTED: Record<string, [string, string][]> = {
  'csv, separate tabs, every optional file': [
    ['totalRows', '196'],
    [
      'TrialPulse-Golden_study-P-011-steps-Data.csv',
      'fe44f99d10255e8bc645841974a206f2b151049f5226e7fcc3de5b0d0cdc9f46',
    ],
    [
      'TrialPulse-Golden_study-P-011-heart_rate-Data.csv',
      '5f9f3792ba88e6d03d6d2b7d0f2cce4ae3b0327aaeedfc9a54676004d508f028',
    ],
    [
      'TrialPulse-Golden_study-P-011-calories-Data.csv',
      '125eed472772614063b3a41b4103512fd0b741d6151787a4b00e975615476ae0',
    ],
    [
      'TrialPulse-Golden_study-P-011-spo2-Data.csv',
      '8b30187501c9aaa488436e5368c9784ed594c145d48aecb4c6b0eacd5e04bc26',
    ],
    [
      'TrialPulse-Golden_study-P-012-steps-Data.csv',
      'caeb59c7cb9e00634092ed4fe98643a0fc72cc8c27242e4a6ac14ccfec968b9f',
    ],
    [
      'TrialPulse-Golden_study-P-012-heart_rate-Data.csv',
      '52ed9369dedc41e68470464ac23ddffdbe170e29528d43d655a7f4dd23141c8f',
    ],
    [
      'TrialPulse-Golden_study-P-012-calories-Data.csv',
      'fe24b69a3cd2c38dd0d2676ce5c5de787026e97b3f79f20f1cf2f7bec33b25b2',
    ],
    [
      'TrialPulse-Golden_study-P-012-spo2-Data.csv',
      '7940fcc766b8edea515c23a2985d051f83703a968a2b2c0b3ad357e53f5bb947',
    ],
    [
      'TrialPulse-Golden_study-fhir-observations.ndjson',
      'dd1cb3f473233ba54baa06003bac87fe84c1347defcb8fa9136a02fbce818c55',
    ],
    [
      'TrialPulse-Golden_study-fhir-patients.ndjson',
      '7a4aad62803bada2a8efbbb6d2f63866bb85f69430e337ee7f59caeb3518c75a',
    ],
    [
      'TrialPulse-Golden_study-fhir-groups.ndjson',
      '223c5f52544ce9005a4c8e38a2b424861aead0fd1f6942948d5c09c877f0409e',
    ],
    [
      'TrialPulse-Golden_study-openmhealth.json',
      '381588abc4032f75b216712e27d138dbf44b35ce028b46510e774cf62d6c6183',
    ],
    [
      'TrialPulse-Golden_study-adherence.csv',
      'f2e5fd41ea9bcdf28527966fabd05f9cf35a947ceae09a731df3354debe4e290',
    ],
    [
      'TrialPulse-Golden_study-data-dictionary.csv',
      '891f7011b2b3e01ea966821e85ccb6cdab2428459aa4d0c024e29f4c61c155e2',
    ],
    [
      'TrialPulse-Golden_study-data-dictionary-columns.csv',
      '769224567e63e5963bf8a21d08243343141bc50ff8b2b00976a4e9f077587a3e',
    ],
    [
      'TrialPulse-Golden_study-manifest.json',
      '29997c931f95a353348e74120c80750c75778b784771b6428578364e607def80',
    ],
  ],
  'csv, single tab': [
    ['totalRows', '196'],
    [
      'TrialPulse-Golden_study-Data.csv',
      '13e41398e63bdafb33fa2be38c567e377af48681d384de09c2a35f00916f7801',
    ],
    [
      'TrialPulse-Golden_study-data-dictionary.csv',
      '891f7011b2b3e01ea966821e85ccb6cdab2428459aa4d0c024e29f4c61c155e2',
    ],
    [
      'TrialPulse-Golden_study-data-dictionary-columns.csv',
      '769224567e63e5963bf8a21d08243343141bc50ff8b2b00976a4e9f077587a3e',
    ],
    [
      'TrialPulse-Golden_study-manifest.json',
      'f8674964f24c89ffa87f7a81586b3357b9deb0933e5c5c6ab18bf5c5c46a0d35',
    ],
  ],
  'xlsx, separate tabs, Open mHealth': [
    ['totalRows', '196'],
    [
      'TrialPulse-Golden_study-Data.xlsx',
      '75dbfdd81286959466b158f90c4574208048dc801b862ccff5100d6900caf371',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx![Content_Types].xml',
      '62683d647320539dbd0a1e31e0904efb0ab4461ae3584ca82d8448e5c0c4d65a',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!_rels/.rels',
      '1285b20099c64699001f9d90ea040ca1c177fa99bc3ae8a841128874820f01a4',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!docProps/app.xml',
      '2b86bd79ac06051444767e0532c3b8e6f25894d4ae42f7c191672dcf691e8225',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!docProps/core.xml',
      '502cc10f45a5a09d6893b999978688e208418ee159c018020404159f33b7fe32',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/_rels/workbook.xml.rels',
      '2882af871fa73ed3c3a32ff7512298b99f26fb4884524006dd6bdbf5e5dfdcbf',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/styles.xml',
      'e88e22f8a2a7641ca02f0633002b4b65b6cf6d79f51505f179a502e536218eaa',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/theme/theme1.xml',
      'f857ef82e4c0e273a16e5efcf5cb12ff7a9943851cbdbd992cd2722616b271ed',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/workbook.xml',
      '86adf99214286952df0209baf3083b24f4c72dea4db9749a62c1e74cbdb1399e',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/worksheets/sheet1.xml',
      '2b8c689cfbc3e3321574b72d0d03543cdfd6fac67c9470a658cf9a7670b4b543',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/worksheets/sheet2.xml',
      'eb1d1439ae6fda3220ec997840f2db5b81c5bcb792c181eae19e40fb2ed77cf0',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/worksheets/sheet3.xml',
      '67dcb62cd99c1646d3b88fd35a3ed1f31e1c3162ea0258e3d82e27686b98853a',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/worksheets/sheet4.xml',
      '4dd8531d99980ef540b43461d0ac11d7ad77f1ade1a0c14740fac59bbfeb912a',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/worksheets/sheet5.xml',
      '87042ea122211d99f7781ad1358158bf7fbd30ca6ef4c97ddbc312f2a9218d92',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/worksheets/sheet6.xml',
      'c584c048773c9e67b48c3f7e9500f93c41b8d9571f35ffacc648a9bf47078c8c',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/worksheets/sheet7.xml',
      'f0f445379e780ca2c1f4fcd0ed68cb4b6ab989dfb0d0415429a40087e891b468',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/worksheets/sheet8.xml',
      '040c3ceb503d56dc1061445c31da32f7e61d56c8f5997d3e411b5321e95e9fe7',
    ],
    [
      'TrialPulse-Golden_study-openmhealth.json',
      '381588abc4032f75b216712e27d138dbf44b35ce028b46510e774cf62d6c6183',
    ],
    [
      'TrialPulse-Golden_study-data-dictionary.csv',
      '891f7011b2b3e01ea966821e85ccb6cdab2428459aa4d0c024e29f4c61c155e2',
    ],
    [
      'TrialPulse-Golden_study-data-dictionary-columns.csv',
      '769224567e63e5963bf8a21d08243343141bc50ff8b2b00976a4e9f077587a3e',
    ],
    [
      'TrialPulse-Golden_study-manifest.json',
      '8e67b9947b4f7aa1f4b7cd13e23ad562e9ef8e9226d42645ed90be1bf116c9c8',
    ],
  ],
  'xlsx, single tab, FHIR and adherence': [
    ['totalRows', '196'],
    [
      'TrialPulse-Golden_study-Data.xlsx',
      '08d2287d1663d4b43de2e4fcda4e31c90c23feddab76370b123727b665e4a85b',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx![Content_Types].xml',
      '55453c17021789f3b7837be30c8328740a1af77cf99f6ac5f9b4ee9a3c6724c5',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!_rels/.rels',
      '1285b20099c64699001f9d90ea040ca1c177fa99bc3ae8a841128874820f01a4',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!docProps/app.xml',
      '362423184b74a24cb952dc86dcd46a068fa15ef44bc2ef991afeba193f382e6f',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!docProps/core.xml',
      '502cc10f45a5a09d6893b999978688e208418ee159c018020404159f33b7fe32',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/_rels/workbook.xml.rels',
      'a4b09e18a90eb4a99a07c8c170cb520fd1bb0bcb0c4fcf785aea59e039ee4d9b',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/styles.xml',
      'e88e22f8a2a7641ca02f0633002b4b65b6cf6d79f51505f179a502e536218eaa',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/theme/theme1.xml',
      'f857ef82e4c0e273a16e5efcf5cb12ff7a9943851cbdbd992cd2722616b271ed',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/workbook.xml',
      'c5f9c183deda2b796cc8ae59fcfdd70127712ea18c84824ed0326466a5fe51cd',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/worksheets/sheet1.xml',
      '7697cdff0b08bb9b5e6e54440ef8584ce3634b92ac2c50b047a64d8f81b1b95d',
    ],
    [
      'TrialPulse-Golden_study-fhir-observations.ndjson',
      'dd1cb3f473233ba54baa06003bac87fe84c1347defcb8fa9136a02fbce818c55',
    ],
    [
      'TrialPulse-Golden_study-fhir-patients.ndjson',
      '7a4aad62803bada2a8efbbb6d2f63866bb85f69430e337ee7f59caeb3518c75a',
    ],
    [
      'TrialPulse-Golden_study-fhir-groups.ndjson',
      '223c5f52544ce9005a4c8e38a2b424861aead0fd1f6942948d5c09c877f0409e',
    ],
    [
      'TrialPulse-Golden_study-adherence.csv',
      'f2e5fd41ea9bcdf28527966fabd05f9cf35a947ceae09a731df3354debe4e290',
    ],
    [
      'TrialPulse-Golden_study-data-dictionary.csv',
      '891f7011b2b3e01ea966821e85ccb6cdab2428459aa4d0c024e29f4c61c155e2',
    ],
    [
      'TrialPulse-Golden_study-data-dictionary-columns.csv',
      '769224567e63e5963bf8a21d08243343141bc50ff8b2b00976a4e9f077587a3e',
    ],
    [
      'TrialPulse-Golden_study-manifest.json',
      'd4b06ee8fe11027b24f79a7fff2237a92fbff01ab5169a1fd25bd852c5aff763',
    ],
  ],
};

describe('export ZIP contents from fixed readings and a fixed clock (before and after the sinks)', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-golden-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  afterEach(() => vi.useRealTimers());

  it.each(CASES)('$name: every entry as before', async ({ name, format, mode, extras }) => {
    // exceljs dates the workbook and its parts with the current time.
    vi.useFakeTimers({ toFake: ['Date'], now: EXPORTED_AT });
    const workDir = fs.mkdtempSync(path.join(dir, 'work-'));
    const zipPath = path.join(dir, `${name.replace(/\W+/g, '-')}.zip`);
    // Pages of 7 rows: metrics change inside pages, and a participant spans several.
    const result = await writeExport(
      plan(format, mode, extras),
      memoryIo(fixedReadings(), 7),
      workDir,
      zipPath,
    );
    const zip = await JSZip.loadAsync(fs.readFileSync(zipPath), { checkCRC32: true });
    // In the ZIP's order: the order of the entries is part of what a consumer sees.
    const entries: [string, string][] = [['totalRows', String(result.totalRows)]];
    for (const entryName of Object.keys(zip.files)) {
      const data = await zip.files[entryName]!.async('uint8array');
      entries.push([entryName, sha256(data)]);
      if (entryName.endsWith('.xlsx'))
        for (const [part, hash] of Object.entries(await entriesOf(data)))
          entries.push([`${entryName}!${part}`, hash]);
    }
    if (process.env.GOLDEN_PRINT)
      fs.appendFileSync(process.env.GOLDEN_PRINT, `${JSON.stringify({ [name]: entries })}\n`);
    expect(entries).toEqual(EXPECTED[name]);
  });
});
