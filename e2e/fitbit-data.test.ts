import fs from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import {
  startTestSmtpServer,
  type TestSmtpServer,
} from '../apps/server/src/modules/mail/test-support';
import { openDatabase } from '../apps/server/src/db/client';
import { participants } from '../apps/server/src/db/schema';
import {
  createReadingsService,
  type ReadingInput,
} from '../apps/server/src/modules/sync/readings.service';
import { createReadingsRepository } from '../apps/server/src/modules/sync/readings.repository';
import { createSyncRepository } from '../apps/server/src/modules/sync/sync.repository';
import { launchBrowser, screenshotPath } from './support/browser';
import { seededDataDir, startServer, type RunningServer } from './support/server';
import { DEMO, apiFromPage, signInWithEmailedCode } from './support/session';
import { checkSurely } from './support/click';

type ApiTrial = { trialId: number };
type ApiParticipant = { id: number; participant_code: string };

const DAY = 86_400_000;
const CODE = 'SLEEP-001';

/**
 * Two weeks of the six weekly-summary metrics for the demo participant SLEEP-001,
 * stored through the readings service while the server is stopped (the demo sync backfills
 * one day only in browser tests), so the overview tiles have both weeks to show.
 */
async function seedWeeks(dataDir: string) {
  const database = process.env.DATABASE_URL
    ? await openDatabase({ kind: 'postgres', connectionString: process.env.DATABASE_URL })
    : await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'db') });
  try {
    const [who] = await database.db
      .select({ id: participants.id, teamId: participants.teamId })
      .from(participants)
      .where(eq(participants.participantCode, CODE));
    const today = Math.floor(Date.now() / DAY) * DAY;
    const rows: ReadingInput[] = [];
    // Today and yesterday come from the demo's own one-day sync; the seed fills the rest.
    for (let day = 2; day < 14; day += 1) {
      const midnight = new Date(today - day * DAY);
      const base = {
        participantId: who!.id,
        teamId: who!.teamId,
        brand: 'Fitbit' as const,
        upstream: 'google-health' as const,
      };
      rows.push(
        { ...base, metricKey: 'steps', recordedAt: midnight, value: 7000 + day * 100 },
        { ...base, metricKey: 'distance', recordedAt: midnight, value: 5 + day / 10 },
        { ...base, metricKey: 'floors', recordedAt: midnight, value: 8 + (day % 3) },
        { ...base, metricKey: 'resting_heart_rate', recordedAt: midnight, value: 60 + (day % 4) },
        {
          ...base,
          metricKey: 'weight',
          recordedAt: new Date(midnight.getTime() + 7 * 3_600_000),
          value: 70 + day / 10,
        },
      );
    }
    await createReadingsService({
      readings: createReadingsRepository(database.db),
      sync: createSyncRepository(database.db),
    }).store(rows);
  } finally {
    await database.close();
  }
}

/** The tiles' ids in the order the page shows them. */
const tileOrder = (page: Page) =>
  page
    .locator('[data-testid="fitbit-tiles"] [data-tile]')
    .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-tile')));

async function drag(page: Page, from: Locator, to: Locator) {
  const a = (await from.boundingBox())!;
  const b = (await to.boundingBox())!;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  // dnd-kit starts a drag after 5 px; move in steps so it sees the pointer travel.
  await page.mouse.move(a.x + a.width / 2 + 10, a.y + a.height / 2, { steps: 5 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 20 });
  await page.mouse.up();
}

describe('Fitbit data page in the browser (demo data)', () => {
  let server: RunningServer;
  let smtp: TestSmtpServer;
  let browser: Browser;
  let page: Page;
  let opened: { participant: ApiParticipant; trial: ApiTrial } | undefined;

  beforeAll(async () => {
    smtp = await startTestSmtpServer();
    const seeded = seededDataDir();
    if (seeded) {
      await seedWeeks(seeded);
      server = await startServer({ dataDir: seeded, env: { SMTP_URL: smtp.url } });
    } else {
      const first = await startServer({ env: { SMTP_URL: smtp.url } });
      const env = {
        SMTP_URL: smtp.url,
        SIMULATOR_BASE_PORT: String(new URL(first.simulators.googleHealth).port),
      };
      await first.stop();
      await seedWeeks(first.dataDir);
      server = await startServer({ dataDir: first.dataDir, env });
    }
    browser = await launchBrowser();
    const context = await browser.newContext({
      viewport: { width: 1400, height: 1000 },
      acceptDownloads: true,
    });
    page = await context.newPage();
    await signInWithEmailedCode(page, server.baseUrl, DEMO.admin, smtp);
    const trials = (await apiFromPage(page, 'GET', '/api/userTrials/')).body as ApiTrial[];
    for (const trial of trials) {
      const list = (await apiFromPage(page, 'GET', `/api/trialParticipants/${trial.trialId}`))
        .body as ApiParticipant[];
      const participant = list.find((p) => p.participant_code === CODE);
      if (participant) opened = { participant, trial };
    }
    expect(opened).toBeDefined();
    // The summary is saved on first read; recompute it over the seeded readings.
    const recomputed = await apiFromPage(
      page,
      'POST',
      `/api/fitbitDataLocalDB/${opened!.participant.id}`,
      {},
    );
    expect(recomputed.status).toBe(200);
    await page.evaluate((value) => {
      localStorage.setItem('tp.currentParticipant', JSON.stringify(value.participant));
      localStorage.setItem('tp.currentTrial', JSON.stringify(value.trial));
    }, opened!);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.close();
  });

  it('the overview tiles show the weekly figures, and the URL names the participant', async () => {
    await page.goto(`${server.baseUrl}/FitbitParticipantDataPage`);
    await page.getByTestId('fitbit-overview').waitFor();
    expect(page.url()).toContain(`participantId=${opened!.participant.id}`);
    for (const id of ['steps', 'distance', 'floors', 'heartRate', 'sleepDuration', 'weight']) {
      const text = await page.getByTestId(`fitbit-tile-value-${id}`).innerText();
      expect(text, id).toMatch(/^\d[\d,.]*$/);
    }
    // Weight is shown in pounds (the seed stores about 70 kg).
    expect(Number(await page.getByTestId('fitbit-tile-value-weight').innerText())).toBeGreaterThan(
      150,
    );
    await page.getByTestId('return-to-trial-bar').getByText('Return to Main Trial Page').waitFor();
    await page.getByTestId('tiles-expand-all').click();
    expect(await page.locator('[data-testid^="fitbit-tile-table-"]').count()).toBe(6);
    await page.screenshot({
      path: screenshotPath('fitbit-data-overview-expanded'),
      fullPage: true,
    });
    await page.getByTestId('tiles-collapse-all').click();
    expect(await page.locator('[data-testid^="fitbit-tile-table-"]').count()).toBe(0);
    await page.getByTestId('fitbit-tile-more-steps').click();
    await page.getByTestId('fitbit-tile-table-steps').waitFor();
    await page.getByTestId('fitbit-tile-more-steps').getByText('Show Less').waitFor();
    await page.getByTestId('fitbit-tile-more-steps').click();

    // A reload keeps the participant.
    await page.reload();
    await page.getByTestId('fitbit-tile-value-steps').waitFor();
    await page.screenshot({ path: screenshotPath('fitbit-data-overview'), fullPage: true });
  });

  it('a Swap drag swaps two tiles; selected tiles export to XLSX', async () => {
    await page.getByTestId('fitbit-tiles').waitFor();
    const before = await tileOrder(page);
    await page.getByTestId('tile-mode-swap').click();
    const [first, , third] = before as string[];
    await drag(
      page,
      page.getByTestId(`fitbit-tile-handle-${first}`),
      page.getByTestId(`fitbit-tile-${third}`),
    );
    await expect
      .poll(() => tileOrder(page))
      .toEqual(before.map((id) => (id === first ? third : id === third ? first : id)));

    await checkSurely(page.getByTestId('fitbit-tile-select-steps').locator('input'));
    await checkSurely(page.getByTestId('fitbit-tile-select-weight').locator('input'));
    const download = page.waitForEvent('download');
    await page.getByTestId('tiles-export-xlsx').click();
    const file = await (await download).path();
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(file);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.getColumn(1).values.filter(Boolean)).toEqual(['Tile', 'Steps', 'Weight']);
    expect(sheet.getRow(1).getCell(4).value).toBe('Last 7 days');
  });

  it('a steps query shows a chart and a table, and the CSV and XLSX downloads hold its rows', async () => {
    await page.locator('#fitbit-category').selectOption('activities');
    await page.locator('#fitbit-option').selectOption('steps');
    const results = page.getByTestId('fitbit-query-results');
    await results.waitFor();
    expect(await results.getAttribute('data-paths')).toMatch(
      /^activities\/steps\/date\/\d{4}-\d{2}-\d{2}\/\d{4}-\d{2}-\d{2}\.json$/,
    );
    await page.locator('[data-testid="fitbit-query-chart"][data-chart-ready="true"]').waitFor();
    expect(await page.locator('[data-testid="fitbit-query-chart"] canvas').count()).toBeGreaterThan(
      0,
    );
    const rows = page.getByTestId('fitbit-query-table-row');
    await rows.first().waitFor();
    const shown = await rows.evaluateAll((trs) =>
      trs.map((tr) =>
        Array.from(tr.querySelectorAll('td'), (td) => td).map((td) => td.textContent?.trim() ?? ''),
      ),
    );
    expect(shown.length).toBe(7);
    for (const [date, steps] of shown) {
      expect(date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(steps).toMatch(/^\d+$/);
    }
    await page.screenshot({ path: screenshotPath('fitbit-data-steps-query'), fullPage: true });

    const csvDownload = page.waitForEvent('download');
    await page.getByTestId('fitbit-query-table-export-csv').click();
    const csv = await csvDownload;
    expect(csv.suggestedFilename()).toMatch(/^TrialPulse-.*-Data\.csv$/);
    const lines = fs
      .readFileSync((await csv.path())!, 'utf8')
      .trim()
      .split(/\r\n/);
    expect(lines[0]).toBe('Date,Steps (steps)');
    expect(lines.slice(1).map((line) => line.split(','))).toEqual(shown);

    const xlsxDownload = page.waitForEvent('download');
    await page.getByTestId('fitbit-query-table-export-xlsx').click();
    const xlsx = await xlsxDownload;
    expect(xlsx.suggestedFilename()).toMatch(/^TrialPulse-.*-Data\.xlsx$/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile((await xlsx.path())!);
    const sheet = workbook.worksheets[0]!;
    const cells: string[][] = [];
    sheet.eachRow((row) =>
      cells.push((row.values as unknown[]).slice(1).map((value) => String(value))),
    );
    expect(cells[0]).toEqual(['Date', 'Steps (steps)']);
    expect(cells.slice(1)).toEqual(shown);
  });
});
