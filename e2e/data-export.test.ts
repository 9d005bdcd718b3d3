import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import { and, eq, gte, inArray, lt } from 'drizzle-orm';
import JSZip from 'jszip';
import type { Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { participants, storedReadings } from '../apps/server/src/db/schema';
import { createReadingsRepository } from '../apps/server/src/modules/sync/readings.repository';
import {
  createReadingsService,
  type ReadingInput,
} from '../apps/server/src/modules/sync/readings.service';
import { createSyncRepository } from '../apps/server/src/modules/sync/sync.repository';
import { screenshotPath } from './support/browser';
import { startBrowserSession, type BrowserSession } from './support/browser-session';
import { withServerDatabase, type RunningServer } from './support/server';
import { DEMO, waitUntilUpToDate } from './support/session';
import { checkSurely } from './support/click';

const DAY = 24 * 60 * 60 * 1000;
const CODES = ['SLEEP-001', 'SLEEP-002'];

/**
 * Batch data export in Chromium: a User exports two demo participants' steps and heart
 * rate for 30 days, watches the job complete in My Exports, downloads the ZIP and the test
 * opens it. Readings are stored through the real write path (`store`) between two starts
 * of the demo server (its PGlite database has one owner at a time); the demo's background
 * sync stores more, so the ZIP is compared with what the database holds after the export.
 */
describe('batch data export in the browser', () => {
  let session: BrowserSession;
  let server: RunningServer;
  let page: Page;
  const todayMs = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  const day = (offset: number) => new Date(todayMs - offset * DAY).toISOString().slice(0, 10);
  const startDate = day(30);
  const endDate = day(1);
  /** The seeded readings inside the export's range. */
  let seeded: ReadingInput[] = [];
  let participantIds: number[] = [];

  beforeAll(async () => {
    session = await startBrowserSession({
      signIn: DEMO.user,
      prepare: async (db) => {
        const rows = await db
          .select({
            id: participants.id,
            teamId: participants.teamId,
            code: participants.participantCode,
          })
          .from(participants)
          .where(inArray(participants.participantCode, CODES));
        expect(rows.map((row) => row.code).sort()).toEqual(CODES);
        participantIds = rows.map((row) => row.id);
        const readings: ReadingInput[] = [];
        for (const participant of rows) {
          // Day 31 lies before the range: stored, not exported.
          for (let offset = 31; offset >= 1; offset -= 1) {
            const date = todayMs - offset * DAY;
            readings.push({
              participantId: participant.id,
              teamId: participant.teamId,
              brand: 'Fitbit',
              upstream: 'google-health',
              metricKey: 'steps',
              recordedAt: new Date(date),
              value: 4000 + offset * 10,
            });
            if (offset === 31) continue;
            for (let minute = 0; minute < 60; minute += 1) {
              readings.push({
                participantId: participant.id,
                teamId: participant.teamId,
                brand: 'Fitbit',
                upstream: 'google-health',
                metricKey: 'heart_rate',
                recordedAt: new Date(date + 9 * 3600_000 + minute * 60_000),
                utcOffsetMinutes: 60,
                value: 62 + (minute % 20),
              });
            }
          }
        }
        const service = createReadingsService({
          readings: createReadingsRepository(db),
          sync: createSyncRepository(db),
        });
        await service.store(readings);
        seeded = readings.filter(
          (reading) => reading.recordedAt.getTime() >= Date.parse(`${startDate}T00:00:00Z`),
        );
        // Keep the check honest: the two participants exist in the demo team only once.
        const again = await db
          .select({ id: participants.id })
          .from(participants)
          .where(
            and(
              inArray(participants.participantCode, CODES),
              eq(participants.teamId, rows[0]!.teamId),
            ),
          );
        expect(again).toHaveLength(2);
      },
    });
    ({ server, page } = session);
  });
  afterAll(() => session?.close());

  /** The next download in the browser context: the Download button opens a new tab. */
  function nextDownload(): Promise<Download> {
    const context = page.context();
    return new Promise((resolve) => {
      page.once('download', resolve);
      context.once('page', (popup) => popup.once('download', resolve));
    });
  }

  async function choose(testId: string, option: RegExp) {
    await page.getByTestId(testId).locator('xpath=..').getByRole('combobox').click();
    await page.getByRole('option', { name: option }).click();
  }

  it('exports steps and heart rate of two participants for 30 days, then downloads and opens the ZIP', async () => {
    // The demo's background sync stores readings for these participants too: wait until
    // it is up to date, so what is stored does not change under the export.
    for (const participantId of participantIds)
      await waitUntilUpToDate(page, participantId, 'Fitbit', 120_000);
    await page.goto(`${server.baseUrl}/DataExport`);
    await page.getByTestId('data-export-page').waitFor();
    await choose('export-trial', /Sleep and Activity/);
    await choose('export-device', /Fitbit Smartwatches & Trackers/);
    for (const code of CODES) await checkSurely(page.getByTestId(`export-participant-${code}`));
    await page.getByTestId('export-start-date').fill(startDate);
    await page.getByTestId('export-end-date').fill(endDate);
    await checkSurely(page.getByTestId('export-metric-steps'));
    await checkSurely(page.getByTestId('export-metric-heart_rate'));
    await page.getByTestId('export-file-name').fill('Sleep 30 days');
    // Parquet is offered beside CSV and XLSX (decision 0250): chosen, it shows its note and
    // the export mode no longer applies; this export goes on as CSV.
    const format = page.getByRole('radiogroup', { name: 'Format' });
    await checkSurely(format.getByLabel('Parquet'));
    await page.getByTestId('export-parquet-note').waitFor();
    expect(await page.getByLabel('Single tab (one long table)').isDisabled()).toBe(true);
    await page.screenshot({ path: screenshotPath('data-export-parquet'), fullPage: true });
    await checkSurely(format.getByLabel('CSV'));
    await page.getByTestId('export-submit').click();

    // My Exports polls every 10 s: the new job shows up and completes there.
    const row = page
      .getByTestId('my-exports')
      .locator('tr[data-status]')
      .filter({ hasText: 'Sleep 30 days' })
      .first();
    await row.waitFor();
    await expect
      .poll(() => row.getAttribute('data-status'), { timeout: 60_000, interval: 500 })
      .toBe('completed');
    expect(await row.getByTestId('export-job-size').textContent()).toMatch(
      /^\d+(\.\d)? (B|KB|MB)$/,
    );
    await page.screenshot({ path: screenshotPath('data-export-completed'), fullPage: true });

    const downloaded = nextDownload();
    await row.getByTestId('export-job-download').click();
    const download = await downloaded;
    expect(download.suggestedFilename()).toBe('TrialPulse-Sleep_30_days-Data.zip');
    const file = await download.path();
    const zip = await JSZip.loadAsync(fs.readFileSync(file!));
    const names = Object.keys(zip.files);
    for (const code of CODES) {
      for (const metric of ['steps', 'heart_rate'])
        expect(names).toContain(`TrialPulse-Sleep_30_days-${code}-${metric}-Data.csv`);
    }
    const manifest = JSON.parse(
      await zip.file('TrialPulse-Sleep_30_days-manifest.json')!.async('string'),
    );
    expect(manifest.request).toMatchObject({
      startDate,
      endDate,
      metrics: ['steps', 'heart_rate'],
    });

    // Exactly the stored readings: counted in the server's database (stopped first: its
    // embedded database has one owner at a time) for the two participants, both metrics
    // and the range — the seeded readings and what the background sync stored. The range is
    // in participant-local days (decision 0182): a reading's day is its end (or time) plus
    // the UTC offset stored with it; rows up to two days either side are read and judged here.
    await server.stop();
    const from = new Date(Date.parse(`${startDate}T00:00:00Z`) - 2 * DAY);
    const to = new Date(Date.parse(`${endDate}T00:00:00Z`) + 3 * DAY);
    const candidates = await withServerDatabase(server.dataDir, (db) =>
      db
        .select({
          participantId: storedReadings.participantId,
          metricKey: storedReadings.metricKey,
          recordedAt: storedReadings.recordedAt,
          endAt: storedReadings.endAt,
          utcOffsetMinutes: storedReadings.utcOffsetMinutes,
        })
        .from(storedReadings)
        .where(
          and(
            inArray(storedReadings.participantId, participantIds),
            inArray(storedReadings.metricKey, ['steps', 'heart_rate']),
            gte(storedReadings.recordedAt, from),
            lt(storedReadings.recordedAt, to),
          ),
        ),
    );
    const localDay = (row: (typeof candidates)[number]) =>
      new Date((row.endAt ?? row.recordedAt).getTime() + (row.utcOffsetMinutes ?? 0) * 60_000)
        .toISOString()
        .slice(0, 10);
    const stored: { participantId: number; metricKey: string; rows: number }[] = [];
    for (const row of candidates) {
      if (localDay(row) < startDate || localDay(row) > endDate) continue;
      const group = stored.find(
        (entry) => entry.participantId === row.participantId && entry.metricKey === row.metricKey,
      );
      if (group) group.rows += 1;
      else stored.push({ participantId: row.participantId, metricKey: row.metricKey, rows: 1 });
    }
    const storedTotal = stored.reduce((sum, row) => sum + row.rows, 0);
    expect(storedTotal).toBeGreaterThanOrEqual(seeded.length);
    expect(manifest.totalRows).toBe(storedTotal);

    const exported = new Set<string>();
    for (const code of CODES) {
      for (const metric of ['steps', 'heart_rate']) {
        const csv = await zip
          .file(`TrialPulse-Sleep_30_days-${code}-${metric}-Data.csv`)!
          .async('string');
        const rows = parse(csv, { columns: true }) as {
          participant_id: string;
          participant_code: string;
          metric_key: string;
          recorded_at_utc: string;
        }[];
        const participantId = Number(rows[0]?.participant_id);
        expect(rows.length).toBe(
          stored.find((row) => row.participantId === participantId && row.metricKey === metric)
            ?.rows,
        );
        for (const row of rows) {
          expect([row.participant_code, row.metric_key]).toEqual([code, metric]);
          const at = Date.parse(row.recorded_at_utc);
          expect(at >= from.getTime() && at < to.getTime(), row.recorded_at_utc).toBe(true);
          exported.add(`${row.participant_id}|${metric}|${at}`);
        }
      }
    }
    // Every seeded reading of the range is among them.
    expect(
      seeded.filter(
        (reading) =>
          !exported.has(
            `${reading.participantId}|${reading.metricKey}|${reading.recordedAt.getTime()}`,
          ),
      ),
    ).toEqual([]);
  });
});
