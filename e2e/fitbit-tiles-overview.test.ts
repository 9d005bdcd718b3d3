import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshotPath } from './support/browser';
import { startBrowserSession, type BrowserSession } from './support/browser-session';
import type { RunningServer } from './support/server';
import { DEMO, apiFromPage } from './support/session';

type ApiTrial = { trialId: number; trialNumber: string };
type ApiParticipant = { id: number; participant_code: string };

const CODE = 'SLEEP-001';
const digits = (text: string) => Number(text.replace(/[^\d.]/g, ''));

/**
 * One truth across pages (issue 28, decision 0180): the Fitbit data page's weekly tile and
 * the Fitbit overview show the same steps for the same participant and the same 7 complete
 * local days, read from both pages in Chromium. The demo backfills 15 days here (as `npm
 * start`'s backfill covers both weeks), and the test waits until the sync is up to date, so
 * both pages read the same stored days.
 */
describe('Fitbit tiles and overview agree in the browser (demo data)', () => {
  let session: BrowserSession;
  let server: RunningServer;
  let page: Page;
  let opened: { participant: ApiParticipant; trial: ApiTrial } | undefined;

  beforeAll(async () => {
    session = await startBrowserSession({
      signIn: DEMO.admin,
      env: { SYNC_BACKFILL_DAYS: '15' },
      viewport: { width: 1400, height: 1000 },
    });
    ({ server, page } = session);
    const trials = (await apiFromPage(page, 'GET', '/api/userTrials/')).body as ApiTrial[];
    for (const trial of trials) {
      const list = (await apiFromPage(page, 'GET', `/api/trialParticipants/${trial.trialId}`))
        .body as ApiParticipant[];
      const participant = list.find((p) => p.participant_code === CODE);
      if (participant) opened = { participant, trial };
    }
    expect(opened).toBeDefined();
    await page.evaluate((value) => {
      localStorage.setItem('tp.currentParticipant', JSON.stringify(value.participant));
      localStorage.setItem('tp.currentTrial', JSON.stringify(value.trial));
    }, opened!);
  }, 300_000);

  afterAll(async () => {
    await session?.close();
  });

  it('shows the same steps for the same 7 local days on the data page and the overview', async () => {
    // Both pages read stored days once the background backfill is up to date.
    await expect
      .poll(
        async () => {
          const answer = await apiFromPage(
            page,
            'GET',
            `/api/deviceSync/participant/${opened!.participant.id}`,
          );
          return (
            answer.body as { connections: { brand: string; state: string }[] }
          ).connections.find((status) => status.brand === 'Fitbit')?.state;
        },
        { timeout: 300_000, interval: 2000 },
      )
      .toBe('up_to_date');
    // The weekly summary is saved on first read: compute it over what the sync stored.
    const recomputed = await apiFromPage(
      page,
      'POST',
      `/api/fitbitDataLocalDB/${opened!.participant.id}`,
      {},
    );
    expect(recomputed.status).toBe(200);

    await page.goto(`${server.baseUrl}/FitbitParticipantDataPage`);
    await page.getByTestId('fitbit-tile-days-steps').waitFor();
    const tileSteps = digits(await page.getByTestId('fitbit-tile-value-steps').innerText());
    const tileDays = await page.getByTestId('fitbit-tile-days-steps').innerText();
    await page.screenshot({ path: screenshotPath('one-truth-data-page'), fullPage: true });

    await page.goto(`${server.baseUrl}/FitbitParticipantOverview`);
    const overviewValue = page
      .getByTestId('overview-tile-steps')
      .getByTestId('overview-tile-value');
    await overviewValue.waitFor();
    const overviewSteps = digits(await overviewValue.innerText());
    const overviewDays = await page.getByTestId('overview-days').innerText();
    await page.screenshot({ path: screenshotPath('one-truth-overview'), fullPage: true });

    // The same days ("7 days: 12–18 Nov" on the tile, "Last 7 days: 12–18 Nov · …" below
    // the overview), and the same figure for them.
    expect(tileDays.length).toBeGreaterThan(0);
    expect(tileDays).toMatch(/^7 days: /);
    expect(overviewDays).toContain(`Last ${tileDays}`);
    expect(tileSteps).toBeGreaterThan(0);
    expect(overviewSteps).toBe(tileSteps);
  });
});
