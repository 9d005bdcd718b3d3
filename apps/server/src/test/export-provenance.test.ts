import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../lib/clock';
import type { ExportPlan } from '../modules/export/export-plan';
import { writeExport } from '../modules/export/export-writer';
import { DEMO_DEVICE } from '../modules/sync/reading-device';
import { addParticipant, createTrial } from '../modules/participants/test-support';
import type { ReadingInput } from '../modules/sync/readings.service';
import { readingsServiceFor } from '../modules/sync/test-support';
import { createStaffUser, createTeam, signIn } from './fixtures';
import { createTestApp, type TestApp } from './test-app';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const NOW = new Date('2026-11-08T12:00:00Z');
/** What the export form was asked for: a catalog entry, never a reading's device. */
const FORM_DEVICE = 'Catalog entry picked on the form';

type Brand = 'Fitbit' | 'Omron' | 'Dexcom';
type Expected = { metricKey: string; at: string; device: string; upstream: string };

/**
 * Provenance from the data, not the form (issue 28, decision 0186): every export format names
 * the device each reading came with — Google Health's data-source device, Omron's model,
 * Dexcom's transmitter generation and display device — and not the catalog entry chosen on
 * the export form. CSV (written by the database), XLSX, FHIR `device.display` and Open
 * mHealth `source_name` agree reading for reading. Readings the demo seeded say so: upstream
 * `demo` and no device (decision 0187).
 */
describe(`export provenance from each reading (${MODE})`, () => {
  let ctx: TestApp;
  let dir: string;
  let teamId: number;
  let trialId: number;
  let participant: { participantId: number; participantCode: string };
  const expected: Record<Brand, Expected[]> = { Fitbit: [], Omron: [], Dexcom: [] };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'provenance-'));
    ctx = await createTestApp({ clock: createManualClock(NOW) });
    const db = ctx.database.db;
    const team = await createTeam(db, { maxTrials: 10, maxParticipants: 100, hiddenFields: [] });
    teamId = team.id;
    const admin = await signIn(ctx.app, db, await createStaffUser(db, { role: 'Admin', teamId }));
    trialId = (await createTrial(db, admin, [])).id;
    const added = await addParticipant(admin, { trialId });
    participant = { participantId: added.participantId, participantCode: added.participant_code };
    const owner = { participantId: participant.participantId, teamId };
    const rows: ReadingInput[] = [];
    const add = (reading: Omit<ReadingInput, 'participantId' | 'teamId'>, device: string) => {
      rows.push({ ...owner, ...reading });
      expected[reading.brand as Brand].push({
        metricKey: reading.metricKey,
        at: reading.recordedAt.toISOString(),
        device,
        upstream: reading.upstream,
      });
    };
    const at = (minutes: number) => new Date(Date.parse('2026-11-03T14:00:00Z') + minutes * 60_000);
    // Fitbit: two trackers on one account, a point without a device, the legacy API's placeholder.
    const fitbit = { brand: 'Fitbit' as const, metricKey: 'heart_rate', utcOffsetMinutes: -300 };
    add(
      {
        ...fitbit,
        recordedAt: at(0),
        value: 61,
        upstream: 'google-health',
        dataSource: 'Charge 6',
      },
      'Fitbit Charge 6',
    );
    add(
      {
        ...fitbit,
        recordedAt: at(1),
        value: 62,
        upstream: 'google-health',
        dataSource: 'Inspire 3',
      },
      'Fitbit Inspire 3',
    );
    add(
      { ...fitbit, recordedAt: at(2), value: 63, upstream: 'google-health', dataSource: null },
      'Fitbit',
    );
    add(
      {
        ...fitbit,
        recordedAt: at(3),
        value: 64,
        upstream: 'fitbit-legacy',
        dataSource: 'fitbit-web-api',
      },
      'Fitbit',
    );
    // Seeded by the demo (decision 0187): no provider, no device.
    for (const minute of [4, 5])
      add(
        {
          ...fitbit,
          recordedAt: at(minute),
          value: 60 + minute,
          upstream: 'demo',
          dataSource: null,
        },
        DEMO_DEVICE,
      );
    add(
      {
        brand: 'Fitbit',
        metricKey: 'steps',
        recordedAt: new Date('2026-11-03T00:00:00Z'),
        utcOffsetMinutes: null,
        value: 8042,
        upstream: 'google-health',
        dataSource: 'Charge 6',
      },
      'Fitbit Charge 6',
    );
    // Omron: a blood-pressure monitor and a scale.
    const omron = { brand: 'Omron' as const, utcOffsetMinutes: -300, upstream: 'omron' as const };
    for (const [metricKey, value] of [
      ['systolic', 128],
      ['diastolic', 81],
      ['pulse', 66],
    ] as const)
      add(
        { ...omron, metricKey, recordedAt: at(10), value, dataSource: 'HEM-7600T' },
        'Omron HEM-7600T',
      );
    add(
      { ...omron, metricKey: 'weight', recordedAt: at(11), value: 72.4, dataSource: 'HBF-702T' },
      'Omron HBF-702T',
    );
    // Dexcom: a G6 read on a phone, a G7 on a receiver; the transmitter id is the data source.
    const dexcom = {
      brand: 'Dexcom' as const,
      metricKey: 'egv',
      utcOffsetMinutes: -300,
      upstream: 'dexcom' as const,
    };
    add(
      {
        ...dexcom,
        recordedAt: at(20),
        value: 112,
        dataSource: '8G1234',
        valueJson: { trend: 'flat', status: null, generation: 'g6', displayDevice: 'iOS' },
      },
      'Dexcom G6 (display: iOS)',
    );
    add(
      {
        ...dexcom,
        recordedAt: at(25),
        value: 118,
        dataSource: 'receiver',
        valueJson: { trend: 'flat', status: null, generation: 'g7', displayDevice: null },
      },
      'Dexcom G7',
    );
    await readingsServiceFor(db, () => NOW).store(rows);
  });

  afterAll(async () => {
    await ctx?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The export of one brand's metrics as CSV (with FHIR and Open mHealth) and as XLSX. */
  async function exportOf(brand: Brand, metrics: string[]) {
    const readings = readingsServiceFor(ctx.database.db, () => NOW);
    const plan = (format: 'csv' | 'xlsx'): ExportPlan => ({
      jobId: 1,
      teamId,
      request: {
        fileName: `provenance ${brand} ${format}`,
        startDate: '2026-11-01',
        endDate: '2026-11-05',
        participantIds: [participant.participantId],
        metrics,
        exportMode: 'single-tab',
        format,
        extras: format === 'csv' ? ['fhir', 'openmhealth'] : [],
        trialId,
        deviceId: 1,
      },
      device: { id: 1, friendlyName: FORM_DEVICE, brand, deviceType: null },
      participants: [participant],
      metrics: metrics.map((metricKey) => ({
        metricKey,
        metricName: metricKey,
        units: null,
        category: null,
        description: null,
      })),
      softwareVersion: 'provenance',
      exportedAt: NOW,
    });
    const io = {
      iterate: readings.iterate,
      csv: readings.csv,
      dayOffsets: readings.dayOffsets,
      progress: async () => true,
    };
    const files = new Map<string, string>();
    const binary = new Map<string, Uint8Array>();
    for (const format of ['csv', 'xlsx'] as const) {
      const work = fs.mkdtempSync(path.join(dir, `work-${brand}-${format}-`));
      const zipPath = path.join(dir, `${brand}-${format}.zip`);
      await writeExport(plan(format), io, work, zipPath);
      const zip = await JSZip.loadAsync(fs.readFileSync(zipPath));
      for (const name of Object.keys(zip.files)) {
        const bytes = await zip.files[name]!.async('uint8array');
        binary.set(name, bytes);
        files.set(name, Buffer.from(bytes).toString('utf8'));
      }
    }
    const find = <T extends string | Uint8Array>(from: Map<string, T>, suffix: string) =>
      [...from.entries()].find(([name]) => name.endsWith(suffix))![1];

    const csv = (
      parse(find(files, '-Data.csv'), { columns: true }) as Record<string, string>[]
    ).map((row) => ({
      metricKey: row.metric_key!,
      at: new Date(row.recorded_at_utc!).toISOString(),
      device: row.device!,
      upstream: row.upstream!,
    }));
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(find(binary, '.xlsx') as unknown as ArrayBuffer);
    const xlsx: Expected[] = [];
    for (const sheet of workbook.worksheets) {
      const header = (sheet.getRow(1).values as unknown[]).map(String);
      sheet.eachRow((row, number) => {
        if (number === 1) return;
        const cell = (name: string) => row.getCell(header.indexOf(name)).text;
        xlsx.push({
          metricKey: cell('metric_key'),
          at: new Date(cell('recorded_at_utc')).toISOString(),
          device: cell('device'),
          upstream: cell('upstream'),
        });
      });
    }
    const fhir = find(files, '-fhir-observations.ndjson')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { effectiveDateTime: string; device: { display: string } })
      .map((observation) => ({
        at: observation.effectiveDateTime,
        device: observation.device.display,
      }));
    const omh = (
      JSON.parse(find(files, '-openmhealth.json')) as {
        header: { acquisition_provenance: { source_name: string } };
        body: {
          effective_time_frame: { date_time?: string; time_interval?: { start_date_time: string } };
        };
      }[]
    ).map((point) => ({
      at: point.body.effective_time_frame.date_time ?? null,
      device: point.header.acquisition_provenance.source_name,
    }));
    const dataTexts = ['-Data.csv', '-fhir-observations.ndjson', '-openmhealth.json'].map(
      (suffix) => find(files, suffix),
    );
    return { csv, xlsx, fhir, omh, dataTexts };
  }

  const byKey = (rows: Expected[]) =>
    [...rows].sort((a, b) => `${a.metricKey}${a.at}`.localeCompare(`${b.metricKey}${b.at}`));
  const devicesAt = (rows: { at: string | null; device: string }[]) =>
    new Map(rows.filter((row) => row.at !== null).map((row) => [row.at, row.device]));
  /** The device each instant's readings came with (one device per instant here). */
  const expectedAt = (brand: Brand) => new Map(expected[brand].map((row) => [row.at, row.device]));

  it('names each Fitbit reading’s own tracker in CSV, XLSX, FHIR and Open mHealth', async () => {
    const files = await exportOf('Fitbit', ['heart_rate', 'steps']);
    expect(byKey(files.csv)).toEqual(byKey(expected.Fitbit));
    expect(byKey(files.xlsx)).toEqual(byKey(expected.Fitbit));
    const instants = new Map(
      expected.Fitbit.filter((row) => row.metricKey === 'heart_rate').map((row) => [
        row.at,
        row.device,
      ]),
    );
    expect(devicesAt(files.fhir.filter((row) => row.at.includes('T')))).toEqual(instants);
    expect(devicesAt(files.omh)).toEqual(instants);
    // The daily steps: FHIR's date, Open mHealth's local day; named by their tracker too.
    expect(files.fhir.find((row) => row.at === '2026-11-03')!.device).toBe('Fitbit Charge 6');
    expect(files.omh.filter((row) => row.at === null).map((row) => row.device)).toEqual([
      'Fitbit Charge 6',
    ]);
    // No exported row of a seeded reading claims a provider upstream.
    const seeded = new Set(
      expected.Fitbit.filter((row) => row.upstream === 'demo').map((row) => row.at),
    );
    expect(seeded.size).toBe(2);
    for (const rows of [files.csv, files.xlsx])
      expect(rows.filter((row) => seeded.has(row.at)).map((row) => row.upstream)).toEqual([
        'demo',
        'demo',
      ]);
    for (const rows of [files.fhir, files.omh])
      expect(
        rows.filter((row) => row.at !== null && seeded.has(row.at)).map((row) => row.device),
      ).toEqual([DEMO_DEVICE, DEMO_DEVICE]);
    // The form's catalog entry is the manifest's business, in no data file.
    for (const text of files.dataTexts) expect(text).not.toContain(FORM_DEVICE);
  });

  it('names the Omron monitor and scale, the blood-pressure panel by its monitor', async () => {
    const files = await exportOf('Omron', ['systolic', 'diastolic', 'pulse', 'weight']);
    expect(byKey(files.csv)).toEqual(byKey(expected.Omron));
    expect(byKey(files.xlsx)).toEqual(byKey(expected.Omron));
    // One bp panel and the pulse at the monitor's instant, the weight at the scale's.
    expect(files.fhir.map((row) => row.device).sort()).toEqual([
      'Omron HBF-702T',
      'Omron HEM-7600T',
      'Omron HEM-7600T',
    ]);
    expect(devicesAt(files.fhir)).toEqual(expectedAt('Omron'));
    expect(devicesAt(files.omh)).toEqual(expectedAt('Omron'));
  });

  it('names the Dexcom generation and display device, not the form’s sensor', async () => {
    const files = await exportOf('Dexcom', ['egv']);
    expect(byKey(files.csv)).toEqual(byKey(expected.Dexcom));
    expect(byKey(files.xlsx)).toEqual(byKey(expected.Dexcom));
    expect(devicesAt(files.fhir)).toEqual(expectedAt('Dexcom'));
    expect(devicesAt(files.omh)).toEqual(expectedAt('Dexcom'));
  });
});
