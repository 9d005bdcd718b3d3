import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { OMRON_MESSAGES } from '@trialpulse/shared/device-data/device-data.schemas';
import type { Db } from '../apps/server/src/db/client';
import { participants } from '../apps/server/src/db/schema';
import {
  createReadingsService,
  type ReadingInput,
} from '../apps/server/src/modules/sync/readings.service';
import { createReadingsRepository } from '../apps/server/src/modules/sync/readings.repository';
import { createSyncRepository } from '../apps/server/src/modules/sync/sync.repository';
import { screenshotPath } from './support/browser';
import { startBrowserSession, type BrowserSession } from './support/browser-session';
import type { RunningServer } from './support/server';
import { DEMO, apiFromPage } from './support/session';

type ApiTrial = { trialId: number; trialNumber: string };
type ApiParticipant = { id: number; participant_code: string };

const HOUR = 3_600_000;

/**
 * Stored readings for the demo participants, written through the readings service (the
 * demo sync does not produce them yet): Fitbit steps and Omron blood pressure for
 * SLEEP-001, Dexcom glucose for GLUCO-001; written between two starts of the server
 * (startServerWithData).
 */
async function seedStoredReadings(db: Db) {
  const byCode = async (code: string) =>
    (
      await db
        .select({ id: participants.id, teamId: participants.teamId })
        .from(participants)
        .where(eq(participants.participantCode, code))
    )[0]!;
  const sleep = await byCode('SLEEP-001');
  const gluco = await byCode('GLUCO-001');
  const now = Date.now();
  const rows: ReadingInput[] = [];
  for (let day = 1; day <= 12; day += 1) {
    const midnight = new Date(Math.floor((now - day * 24 * HOUR) / (24 * HOUR)) * 24 * HOUR);
    rows.push({
      participantId: sleep.id,
      teamId: sleep.teamId,
      brand: 'Fitbit',
      upstream: 'google-health',
      metricKey: 'steps',
      recordedAt: midnight,
      value: 6000 + day * 100,
    });
    const at = new Date(now - day * 24 * HOUR);
    for (const [metricKey, value] of [
      ['systolic', 118 + day],
      ['diastolic', 76],
      ['pulse', 66],
    ] as const) {
      rows.push({
        participantId: sleep.id,
        teamId: sleep.teamId,
        brand: 'Omron',
        upstream: 'omron',
        metricKey,
        recordedAt: at,
        utcOffsetMinutes: -300,
        value,
        dataSource: 'HEM-7600T',
      });
    }
  }
  for (let step = 1; step <= 30; step += 1) {
    rows.push({
      participantId: gluco.id,
      teamId: gluco.teamId,
      brand: 'Dexcom',
      upstream: 'dexcom',
      metricKey: 'egv',
      recordedAt: new Date(now - 2 * HOUR - step * 300_000),
      utcOffsetMinutes: -480,
      value: 100 + step,
      valueJson: { trend: 'flat', status: null, generation: 'g6', displayDevice: 'iOS' },
    });
  }
  await createReadingsService({
    readings: createReadingsRepository(db),
    sync: createSyncRepository(db),
  }).store(rows);
}

describe('device data pages in the browser (demo data)', () => {
  let session: BrowserSession;
  let server: RunningServer;
  let page: Page;
  const opened = new Map<string, { participant: unknown; trial: unknown }>();

  beforeAll(async () => {
    session = await startBrowserSession({
      signIn: DEMO.admin,
      viewport: { width: 1400, height: 1000 },
      prepare: seedStoredReadings,
    });
    ({ server, page } = session);
    const trials = (await apiFromPage(page, 'GET', '/api/userTrials/')).body as ApiTrial[];
    for (const trial of trials) {
      const list = (await apiFromPage(page, 'GET', `/api/trialParticipants/${trial.trialId}`))
        .body as ApiParticipant[];
      for (const participant of list)
        opened.set(participant.participant_code, { participant, trial });
    }
  });
  afterAll(() => session?.close());

  /** Opens a data page for a participant as the app does: the participant and trial remembered as opened. */
  async function openFor(code: string, route: string) {
    const entry = opened.get(code);
    expect(entry, code).toBeDefined();
    await page.evaluate((value) => {
      localStorage.setItem('tp.currentParticipant', JSON.stringify(value.participant));
      localStorage.setItem('tp.currentTrial', JSON.stringify(value.trial));
    }, entry!);
    await page.goto(`${server.baseUrl}${route}`);
  }

  it('the Omron page shows both charts and the table for the default query', async () => {
    await openFor('SLEEP-001', '/OmronParticipantDataPage');
    await page.getByTestId('omron-data-page').waitFor();
    await page.locator('[data-testid="omron-bp-chart"][data-chart-ready="true"]').waitFor();
    await page.locator('[data-testid="omron-pulse-chart"][data-chart-ready="true"]').waitFor();
    await page.getByTestId('omron-readings-table').waitFor();
    expect(await page.getByTestId('omron-reading-row').count()).toBeGreaterThan(0);
    await page.getByTestId('omron-readings-table').getByText('Systolic (mmHg)').waitFor();
    expect(await page.locator('[data-testid="omron-bp-chart"] canvas').count()).toBeGreaterThan(0);
    await page.screenshot({ path: screenshotPath('omron-data-page'), fullPage: true });
  });

  it('the Omron form shows the three messages on an empty form and sends nothing', async () => {
    await openFor('SLEEP-001', '/OmronParticipantDataPage');
    await page.getByTestId('omron-query-form').waitFor();
    let dataCalls = 0;
    page.on('request', (request) => {
      if (request.url().includes('/api/getOmronParticipantData/')) dataCalls += 1;
    });
    await page.locator('[data-testid="omron-bp-chart"][data-chart-ready="true"]').waitFor();
    dataCalls = 0;
    await page.getByTestId('omron-query-clear').click();
    await page.getByTestId('omron-query-submit').click();
    await page.getByText(OMRON_MESSAGES.category).waitFor();
    await page.getByText(OMRON_MESSAGES.since).waitFor();
    await page.getByText(OMRON_MESSAGES.limit).waitFor();
    expect(dataCalls).toBe(0);
    await page.screenshot({ path: screenshotPath('omron-form-validation'), fullPage: true });
  });

  it('the Dexcom CGM summary shows the time-in-range bars and the AGP chart', async () => {
    await openFor('GLUCO-001', '/ParticipantDataPage');
    await page.getByTestId('participant-data-tab-dexcom').click();
    await page.getByTestId('cgm-summary').waitFor();
    await page
      .locator('[data-testid="cgm-tir-chart"][data-chart-ready="true"]')
      .waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="cgm-agp-chart"][data-chart-ready="true"]').waitFor();
    await page.getByTestId('cgm-tir-table').getByText('70–180 mg/dL').waitFor();
    await page.getByTestId('cgm-usage').waitFor();
    await page.screenshot({ path: screenshotPath('cgm-summary'), fullPage: true });
  });

  it("/ParticipantDataPage shows each brand's stored rows", async () => {
    await openFor('SLEEP-001', '/ParticipantDataPage');
    await page.getByTestId('participant-data-page').waitFor();
    await page.getByTestId('participant-data-tab-fitbit').click();
    await page.getByTestId('reading-row-fitbit').first().waitFor();
    expect(await page.getByTestId('reading-row-fitbit').count()).toBe(10);
    // The table's "Export CSV" reads on one line at 1440 px (it broke in two, issue 30).
    await page.setViewportSize({ width: 1440, height: 1000 });
    const exportLines = await page.getByTestId('readings-export-fitbit').evaluate((button) => {
      // The label's text (not the icon): one line box per line it takes.
      const walker = document.createTreeWalker(button, NodeFilter.SHOW_TEXT);
      let label: Node | null = walker.nextNode();
      while (label && !label.textContent?.trim()) label = walker.nextNode();
      const range = document.createRange();
      range.selectNodeContents(label!);
      const tops = Array.from(range.getClientRects())
        .filter((rect) => rect.width > 0)
        .map((rect) => Math.round(rect.top));
      return new Set(tops).size;
    });
    expect(exportLines).toBe(1);
    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.getByTestId('participant-data-tab-omron').click();
    await page.getByTestId('reading-row-omron').first().waitFor();
    await page.getByTestId('readings-table-omron').getByText('systolic').first().waitFor();

    await openFor('GLUCO-001', '/ParticipantDataPage');
    await page.getByTestId('participant-data-tab-dexcom').click();
    await page.getByTestId('dexcom-view-readings').click();
    await page.getByTestId('reading-row-dexcom').first().waitFor();
    await page.getByTestId('readings-table-dexcom').getByText('egv').first().waitFor();
    await page.screenshot({ path: screenshotPath('participant-data-page'), fullPage: true });
  });
});
