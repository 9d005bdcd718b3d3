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
import { readingDevice } from '../sync/reading-device';

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
          readingDevice(r),
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
  // One file per metric whatever the mode (decision 0250).
  { name: 'parquet, separate tabs', format: 'parquet', mode: 'separate-tabs', extras: [] },
];

/** Expected entries (name → SHA-256), from the writer before issue 27, updated by design for issue 28 (decisions 0182, 0183, 0186). XLSX: its parts too. */
const EXPECTED: Record<string, [string, string][]> = {
  'csv, separate tabs, every optional file': [
    ['totalRows', '196'],
    [
      'TrialPulse-Golden_study-P-011-steps-Data.csv',
      '891b17e107e570ffa37504d9b039271f9dee836ab0a5bd8886a959d7775cb5f6',
    ],
    [
      'TrialPulse-Golden_study-P-011-heart_rate-Data.csv',
      '46723a85806081e5efa68310bdb32a4c8acf21925069b954a5f71817fed1ccdb',
    ],
    [
      'TrialPulse-Golden_study-P-011-calories-Data.csv',
      'f70aa06c1d72bfbe03a3c80bcacec033fed1fac36846fbf5da2d8b906577b3eb',
    ],
    [
      'TrialPulse-Golden_study-P-011-spo2-Data.csv',
      '87ba5835d5323e001905255fde18c5377ec64ab7080178aff75b68b804f5e069',
    ],
    [
      'TrialPulse-Golden_study-P-012-steps-Data.csv',
      '06f6e5bbdd262e757122328fbb473d4c17bace26bc81a501f8022d92ada12b43',
    ],
    [
      'TrialPulse-Golden_study-P-012-heart_rate-Data.csv',
      '21567ed17d2aca2d45551dff61b1a517cf387312d5966f49514ee0cedf931552',
    ],
    [
      'TrialPulse-Golden_study-P-012-calories-Data.csv',
      '39c0167d11bd6516ecd1d9f842dbe46cfc74a3783f2e1a192d058b520ad5be6c',
    ],
    [
      'TrialPulse-Golden_study-P-012-spo2-Data.csv',
      'cccaa8af953017ddef5403d1355ea0570d38977b20faecf4cbf528178662887c',
    ],
    [
      'TrialPulse-Golden_study-fhir-observations.ndjson',
      '9a733def076061a7127e4b182b508554388b2edbd0e4a018d35bddf2b47d1fde',
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
      'aaf90645ac286a92903c3f2b9293d3f381288492ae98baa44119973cb8cf977a',
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
      'c814fb18937687bdb2a972b302461005e5a305fea41ccaa2435227b5e6ad91fe',
    ],
    [
      'TrialPulse-Golden_study-manifest.json',
      '9ac99fb523d97db27e619edbd1fdf346314eae111fd7dcbc944f7378f0c8d308',
    ],
  ],
  'csv, single tab': [
    ['totalRows', '196'],
    [
      'TrialPulse-Golden_study-Data.csv',
      '4c6e1410c894ec292053cdb59d45d726197883ff3f1e827f8a381b88e730d4e8',
    ],
    [
      'TrialPulse-Golden_study-data-dictionary.csv',
      '891f7011b2b3e01ea966821e85ccb6cdab2428459aa4d0c024e29f4c61c155e2',
    ],
    [
      'TrialPulse-Golden_study-data-dictionary-columns.csv',
      'c814fb18937687bdb2a972b302461005e5a305fea41ccaa2435227b5e6ad91fe',
    ],
    [
      'TrialPulse-Golden_study-manifest.json',
      '7ad91a4e27280415dd6af63eebd520eaeac9f0d122209479502f2acb47114f99',
    ],
  ],
  'xlsx, separate tabs, Open mHealth': [
    ['totalRows', '196'],
    [
      'TrialPulse-Golden_study-Data.xlsx',
      '997a4dd19df9e884415955a52aad241b524ae3e2b49a21213ff32efe31778c1b',
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
      'bd9cc4a8d6e12a906f16d9b5d1176eaf8957d1359248ccab325a5c87f928ffd8',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/worksheets/sheet2.xml',
      '2a4be2165867213ac22734c1d2fcf17d890b1d058faa1ab20501b851cd5dfe22',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/worksheets/sheet3.xml',
      '28fb9380df0cbc6bf3859b90eac9cb755ad67e984cb9144fe3cf51c1f4b76a87',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/worksheets/sheet4.xml',
      'f3f59f2015702d903ce480399edca4413836e70c91f8b87660e16532294c7791',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/worksheets/sheet5.xml',
      'd2e446d76a3c827f265833f19e045e203f7ef02ab523a04f099eec6943360654',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/worksheets/sheet6.xml',
      '76bc278506609227167358b14d77f5c4cd15db371fc6bff5f3c3001048401796',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/worksheets/sheet7.xml',
      '5d1148ffc04687d8b48782cc4a6b1f4ac0410836de8cbc9678038b5aa4943fae',
    ],
    [
      'TrialPulse-Golden_study-Data.xlsx!xl/worksheets/sheet8.xml',
      'fb08e58daf306c0d312281a3f1a22b6ee7489438aee0ec9614a7996c16fa985e',
    ],
    [
      'TrialPulse-Golden_study-openmhealth.json',
      'aaf90645ac286a92903c3f2b9293d3f381288492ae98baa44119973cb8cf977a',
    ],
    [
      'TrialPulse-Golden_study-data-dictionary.csv',
      '891f7011b2b3e01ea966821e85ccb6cdab2428459aa4d0c024e29f4c61c155e2',
    ],
    [
      'TrialPulse-Golden_study-data-dictionary-columns.csv',
      'c814fb18937687bdb2a972b302461005e5a305fea41ccaa2435227b5e6ad91fe',
    ],
    [
      'TrialPulse-Golden_study-manifest.json',
      '636e140e6119e9faa5a174b5f75a2e6d2e45ee8d2fbe9d7b148bdcc6afa63e0f',
    ],
  ],
  'xlsx, single tab, FHIR and adherence': [
    ['totalRows', '196'],
    [
      'TrialPulse-Golden_study-Data.xlsx',
      'b74b804a8de6599bb4aaf5f2f1127365e9c8850e98f8744339292b8218ae6896',
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
      'c1a5d0c2470a2ce31d63887594e5c5a06895e8666dbed8efddb3a354ec0f0553',
    ],
    [
      'TrialPulse-Golden_study-fhir-observations.ndjson',
      '9a733def076061a7127e4b182b508554388b2edbd0e4a018d35bddf2b47d1fde',
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
      'c814fb18937687bdb2a972b302461005e5a305fea41ccaa2435227b5e6ad91fe',
    ],
    [
      'TrialPulse-Golden_study-manifest.json',
      '62d6816bcd0aecdb187bc696a31bbc1e8ee22f33ad9643ff27a8a28664aa1845',
    ],
  ],
  'parquet, separate tabs': [
    ['totalRows', '196'],
    [
      'TrialPulse-Golden_study-steps-Data.parquet',
      '838043ea0901ce0efc8af1eef091cec2413ee330c0aac8173e442ae4cdd41cd7',
    ],
    [
      'TrialPulse-Golden_study-heart_rate-Data.parquet',
      'abc384ec4ec4efa3d6b4de399c0717d70f28ac63a67a9dd3d1992ae2b739fac0',
    ],
    [
      'TrialPulse-Golden_study-calories-Data.parquet',
      'e689cfa602b4c83a411eba78f4592f8efb26b0572f2226788cdb9fcdef750b69',
    ],
    [
      'TrialPulse-Golden_study-spo2-Data.parquet',
      '78f87faa520bc70a8cd4875a04bb1409fc5266cea40cc1bdfc06a02d18f942e9',
    ],
    [
      'TrialPulse-Golden_study-data-dictionary.csv',
      '891f7011b2b3e01ea966821e85ccb6cdab2428459aa4d0c024e29f4c61c155e2',
    ],
    [
      'TrialPulse-Golden_study-data-dictionary-columns.csv',
      '9cf55f52403b74ddbaf4ab14705ec09cb440dc25ec9a6177c253f7d4d026b0f8',
    ],
    [
      'TrialPulse-Golden_study-manifest.json',
      '300bd3a7327c2fd0714ff2ecc1f209bbc609ec374c9e303ca3e8d272ac349883',
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
