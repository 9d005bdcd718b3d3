import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCallsSettled } from './support/click';
import { screenshotPath } from './support/browser';
import { startBrowserSession, type BrowserSession } from './support/browser-session';
import type { RunningServer } from './support/server';
import { DEMO, apiFromPage } from './support/session';

type ApiTrial = { trialId: number; trialNumber: string; trialName: string };
type ApiParticipant = { id: number; participant_code: string };

/** Where the screenshots of the report go besides the usual place (issue 30 asks to look at them). */
const SHOTS = process.env.REPORT_SHOTS_DIR;

/**
 * Issue 30's printable report: a Viewer (the least role that may view data) opens it from
 * the participant overview for the demo CGM wearer (GLUCO-001, Dexcom linked to the
 * simulator), and the report printed to PDF by Chromium holds the AGP heading, the period
 * the header shows and the participant code as text.
 */
describe('the printable participant report (demo data)', () => {
  let session: BrowserSession;
  let server: RunningServer;
  let page: Page;
  let gluco: { participant: ApiParticipant; trial: ApiTrial };

  beforeAll(async () => {
    session = await startBrowserSession({
      signIn: DEMO.viewer,
      viewport: { width: 1440, height: 1000 },
    });
    ({ server, page } = session);
    const trials = (await apiFromPage(page, 'GET', '/api/userTrials/')).body as ApiTrial[];
    for (const trial of trials) {
      const list = (await apiFromPage(page, 'GET', `/api/trialParticipants/${trial.trialId}`))
        .body as ApiParticipant[];
      const participant = list.find((entry) => entry.participant_code === 'GLUCO-001');
      if (participant) gluco = { participant, trial };
    }
    expect(gluco, 'the demo CGM participant').toBeDefined();
  });
  afterAll(() => session?.close());

  /** Waits until the report's calls answered and every chart drew its first frame. */
  async function reportDrawn() {
    await page.getByTestId('participant-report-page').waitFor();
    await page.getByTestId('report-section-Dexcom').waitFor();
    await page
      .locator('[data-testid="cgm-agp-chart"][data-chart-ready="true"]')
      .waitFor({ timeout: 60_000 });
    await apiCallsSettled(page);
    await expect
      .poll(() => page.locator('[data-chart-ready="false"], [role="progressbar"]').count())
      .toBe(0);
  }

  it('opens from the overview and prints to a PDF with the AGP, the period and the participant code', async () => {
    // Opened as the app opens data pages: the overview remembers the participant and trial.
    await page.evaluate((value) => {
      localStorage.setItem('tp.currentParticipant', JSON.stringify(value.participant));
      localStorage.setItem('tp.currentTrial', JSON.stringify(value.trial));
    }, gluco);
    await page.goto(`${server.baseUrl}/ParticipantOverview`);
    await page.getByTestId('participant-report-link').click();
    await page.waitForURL(/\/ParticipantReport$/);
    await reportDrawn();

    const period = (await page.getByTestId('report-period').innerText()).trim();
    expect(period).toMatch(
      /^\d{1,2} \w{3} \d{4} \d{2}:\d{2} – \d{1,2} \w{3} \d{4} \d{2}:\d{2} \(14 days\)$/,
    );
    await expect
      .poll(() => page.getByTestId('report-trial').innerText())
      .toContain(gluco.trial.trialName);
    // The charts are drawn as SVG, which prints as vector graphics.
    expect(await page.locator('[data-testid="cgm-agp-chart"] svg').count()).toBe(1);
    expect(await page.locator('[data-testid="cgm-agp-chart"] canvas').count()).toBe(0);

    // Only the brands the participant has: GLUCO-001 wears a CGM and a Fitbit, no Omron
    // (read by a Viewer, who may not list connections; decision 0192).
    await page.getByTestId('report-section-Fitbit').waitFor();
    expect(await page.getByTestId('report-section-Omron').count()).toBe(0);
    // The CGM opens the report.
    expect(
      await page.locator('[data-testid^="report-section-"]').first().getAttribute('data-testid'),
    ).toBe('report-section-Dexcom');
    await page.screenshot({ path: screenshotPath('participant-report'), fullPage: true });
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/report-1440.png`, fullPage: true });

    const pdf = await page.pdf({ preferCSSPageSize: true, printBackground: true });
    if (SHOTS) fs.writeFileSync(`${SHOTS}/report.pdf`, pdf);
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf)), {
      mergePages: true,
    });
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain('Ambulatory glucose profile (AGP)');
    expect(flat).toContain(period);
    expect(flat).toContain('GLUCO-001');
    expect(flat).toContain('Time in ranges');
    expect(flat).toContain('GMI');
    expect(flat).toContain('Fitbit weekly summary');
    expect(flat).not.toContain('Blood pressure (Omron)');
    // Printed without the app around it: neither the navigation nor the report's buttons.
    expect(flat).not.toContain('Print / save as PDF');
    expect(flat).not.toContain('Return to Main Trial Page');

    await page.emulateMedia({ media: 'print' });
    await page.screenshot({ path: screenshotPath('participant-report-print'), fullPage: true });
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/report-print.png`, fullPage: true });
    await page.emulateMedia({ media: 'screen' });
  });

  it('prints with one click and changes the period with a shortcut', async () => {
    await page.evaluate(() => {
      (window as unknown as { printed: number }).printed = 0;
      window.print = () => {
        (window as unknown as { printed: number }).printed += 1;
      };
    });
    await page.getByTestId('report-print').click();
    expect(await page.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1);

    await page.getByTestId('report-shortcuts-30').click();
    await page.waitForURL(/\/ParticipantReport\?days=30$/);
    await expect.poll(() => page.getByTestId('report-period').innerText()).toContain('(30 days)');
    expect(await page.getByTestId('report-shortcuts-30').getAttribute('aria-pressed')).toBe('true');
    await reportDrawn();
    await expect.poll(() => page.getByTestId('cgm-usage').innerText()).toContain('in 30 days');
  });
});
