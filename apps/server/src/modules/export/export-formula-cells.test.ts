import { parse } from 'csv-parse/sync';
import { eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { participants } from '../../db/schema';
import { createStaffUser, signIn, type TestClient } from '../../test/fixtures';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createParticipants, readingsServiceFor } from '../sync/test-support';
import type { ReadingInput } from '../sync/readings.service';
import { exportStorageFor } from './export.job';
import { runExport } from './export.service';
import { createExportDevice } from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const DAY = 24 * 60 * 60 * 1000;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The probe's three cells that got through before decision 0130: a leading line feed, a
 * leading space and the full-width equals sign, each in front of a formula.
 */
const PROBES = ['\n=1+1', ' =1+1', '＝1+1'] as const;
const NEUTRALISED = PROBES.map((probe) => `'${probe}`);
/** The participants' codes: a probe in front of the code's suffix (the schema's check). */
const CODES = PROBES.map((probe, index) => `${probe}-00${index + 1}`);
const NEUTRALISED_CODES = CODES.map((code) => `'${code}`);

/**
 * Participant codes and free text from providers (a reading's data source) that start like
 * a formula come out of every file format neutralised: CSV data, the adherence extra, the
 * completeness adherence CSV, and XLSX as plain string cells (never a formula).
 */
describe(`formula-looking text in exports (${MODE})`, () => {
  let t: TestApp;
  let admin: TestClient;
  let trialId: number;
  let deviceId: number;
  let ids: number[];
  const todayMs = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  const startDate = dateOf(todayMs - 3 * DAY);
  const endDate = dateOf(todayMs - 1 * DAY);

  beforeAll(async () => {
    t = await createTestApp();
    const db = t.database.db;
    const fixture = await createParticipants(db, PROBES.length);
    trialId = fixture.trialId;
    ids = fixture.participantIds;
    ({ deviceId } = await createExportDevice(db, fixture.teamId));
    // Codes follow [A-Z0-9_] when made through the API; these are rows as a legacy import
    // or a direct edit could leave them: the export must not trust the API's rule.
    for (const [index, id] of ids.entries())
      await db
        .update(participants)
        .set({ participantCode: CODES[index]!, participantCodeSuffix: `00${index + 1}` })
        .where(eq(participants.id, id));
    const rows: ReadingInput[] = ids.flatMap((participantId) =>
      PROBES.map((probe, day) => ({
        teamId: fixture.teamId,
        participantId,
        brand: 'Fitbit' as const,
        upstream: 'google-health',
        metricKey: 'steps',
        recordedAt: new Date(todayMs - (day + 1) * DAY),
        value: 1000 + day,
        dataSource: probe,
      })),
    );
    await readingsServiceFor(db).store(rows);
    admin = await signIn(
      t.app,
      db,
      await createStaffUser(db, { role: 'Admin', teamId: fixture.teamId }),
    );
  });

  afterAll(async () => {
    await t?.close();
  });

  /** Requests an export, builds it the way the worker does (runExport) and downloads the ZIP. */
  async function exportZip(overrides: Record<string, unknown>): Promise<JSZip> {
    const created = await admin.post('/api/dataExport/batchDataExport', {
      trialId,
      deviceId,
      participantIds: ids,
      startDate,
      endDate,
      metrics: ['steps'],
      fileName: 'Probe',
      exportMode: 'single-tab',
      format: 'csv',
      ...overrides,
    });
    expect(created.statusCode, created.body).toBe(200);
    const jobId = created.json().jobId as number;
    const result = await runExport(t.database.db, jobId, {
      storage: exportStorageFor(t.config),
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      readingsFor: (db) => readingsServiceFor(db),
    });
    expect(result.status).toBe('completed');
    const download = await admin.get(`/api/dataExport/jobs/${jobId}/download`);
    expect(download.statusCode).toBe(200);
    return JSZip.loadAsync(download.rawPayload);
  }

  const csvRows = (text: string) =>
    parse(text, { columns: true, skip_empty_lines: true }) as Record<string, string>[];

  it('CSV data and the adherence extra: codes and data sources start with an apostrophe', async () => {
    const zip = await exportZip({ extras: ['adherence'] });
    const data = csvRows(await zip.file('TrialPulse-Probe-Data.csv')!.async('string'));
    expect(data).toHaveLength(PROBES.length * PROBES.length);
    expect(new Set(data.map((row) => row.participant_code))).toEqual(new Set(NEUTRALISED_CODES));
    expect(new Set(data.map((row) => row.data_source))).toEqual(new Set(NEUTRALISED));
    const adherence = csvRows(await zip.file('TrialPulse-Probe-adherence.csv')!.async('string'));
    expect(new Set(adherence.map((row) => row.participant_code))).toEqual(
      new Set(NEUTRALISED_CODES),
    );
  });

  it.each(['single-tab', 'separate-tabs'] as const)(
    'XLSX (%s): the same text as plain string cells, no formula anywhere',
    async (exportMode) => {
      const zip = await exportZip({ format: 'xlsx', exportMode });
      const file = await zip.file('TrialPulse-Probe-Data.xlsx')!.async('nodebuffer');
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(file as never);
      const codes: unknown[] = [];
      const sources: unknown[] = [];
      for (const sheet of workbook.worksheets) {
        const header = (sheet.getRow(1).values as unknown[]).slice(1);
        const codeColumn = header.indexOf('participant_code') + 1;
        const sourceColumn = header.indexOf('data_source') + 1;
        sheet.eachRow((row, number) => {
          if (number === 1) return;
          for (const [column, into] of [
            [codeColumn, codes],
            [sourceColumn, sources],
          ] as const) {
            const cell = row.getCell(column);
            expect(cell.type, `${sheet.name}!${cell.address}`).toBe(ExcelJS.ValueType.String);
            into.push(cell.value);
          }
        });
      }
      expect(codes).toHaveLength(PROBES.length * PROBES.length);
      expect(new Set(codes)).toEqual(new Set(NEUTRALISED_CODES));
      expect(new Set(sources)).toEqual(new Set(NEUTRALISED));
      // And in the file itself: no sheet holds a formula element.
      const inner = await JSZip.loadAsync(file);
      for (const name of Object.keys(inner.files).filter((n) => n.startsWith('xl/worksheets/')))
        expect(await inner.file(name)!.async('string'), name).not.toMatch(/<f[\s>]/);
    },
  );

  it('the completeness adherence CSV neutralises the participant codes', async () => {
    const response = await admin.get(
      `/api/trials/${trialId}/completeness/adherence.csv?from=${startDate}&to=${endDate}`,
    );
    expect(response.statusCode, response.body).toBe(200);
    const rows = csvRows(response.body);
    expect(rows).toHaveLength(PROBES.length * 3);
    expect(new Set(rows.map((row) => row.participant_code))).toEqual(new Set(NEUTRALISED_CODES));
  });
});
