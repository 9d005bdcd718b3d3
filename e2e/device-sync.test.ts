import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshotPath } from './support/browser';
import { clickUntilShown, participantsTableSettled } from './support/click';
import { startBrowserSession, type BrowserSession } from './support/browser-session';
import type { RunningServer } from './support/server';
import { DEMO, apiFromPage, syncStatuses, type SyncStatus } from './support/session';

type ApiParticipant = { id: number; participant_code: string };
/**
 * Device-data sync against the started demo (`npm start`: embedded simulators, the demo
 * connections synced in the background): the participant page shows each connection's sync
 * state and the readings stored; the trial page's Device Status column the last-data badge.
 */
describe('device data sync in the browser', () => {
  let session: BrowserSession;
  let server: RunningServer;
  let page: Page;

  beforeAll(async () => {
    // A backfill of several days (the other browser tests use one), so the connections
    // backfill while the app is in use. Not the demo's 60 days: the demo's embedded database
    // runs in the server's process, and writing that backfill (about a million heart-rate
    // readings a Fitbit connection) keeps the server from answering the sign-in for longer
    // than a page wait on a loaded machine.
    session = await startBrowserSession({
      signIn: DEMO.user,
      env: { SYNC_BACKFILL_DAYS: '3' },
    });
    ({ server, page } = session);
  });
  afterAll(() => session?.close());

  it('shows the sync state and readings stored on the participant page, and the last-data badge on the trial page', async () => {
    await page.goto(`${server.baseUrl}/`);
    const trials = (await apiFromPage(page, 'GET', '/api/userTrials/')).body as {
      trialId: number;
      trialNumber: string;
    }[];
    let participant: ApiParticipant | undefined;
    let trial: { trialId: number; trialNumber: string } | undefined;
    for (const candidate of trials) {
      const list = (await apiFromPage(page, 'GET', `/api/trialParticipants/${candidate.trialId}`))
        .body as ApiParticipant[];
      participant = list.find((row) => row.participant_code === 'SLEEP-001');
      if (participant) {
        trial = candidate;
        break;
      }
    }
    expect(participant).toBeDefined();
    // The background backfill stores readings while the app is already in use.
    let statuses: SyncStatus[] = [];
    // The demo seed stores readings before any sync ran: wait for the sync itself too
    // (a connection is "not_synced" until its first window is stored).
    const synced = (brand: string) =>
      statuses.some(
        (status) =>
          status.brand === brand && status.rowsStored > 0 && status.state !== 'not_synced',
      );
    await expect
      .poll(
        async () => {
          statuses = await syncStatuses(page, participant!.id);
          return synced('Omron') && synced('Fitbit');
        },
        { timeout: 120_000, interval: 1_000 },
      )
      .toBe(true);
    const omron = statuses.find((status) => status.brand === 'Omron')!;
    expect(omron.rowsStored).toBeGreaterThan(0);

    await page.getByTestId('trials-table').getByText(trial!.trialNumber).click();
    await participantsTableSettled(page);
    const badge = page.getByTestId(`last-data-${participant!.id}`);
    await badge.waitFor();
    expect(await badge.textContent()).toMatch(/^Last data (today|1 day ago|\d+ days ago)$/);

    await clickUntilShown(
      page.getByTestId(`participant-manage-${participant!.id}`),
      page.getByTestId('participant-page'),
    );
    const state = page.getByTestId('device-sync-state-Omron');
    await state.waitFor();
    expect(await state.textContent()).toMatch(/^(Up to date|Backfilling \d+ %)$/);
    const rows = await page.getByTestId('device-sync-rows-Omron').textContent();
    const shown = Number(/Readings stored: ([\d,]+)/.exec(rows ?? '')?.[1]?.replace(/,/g, ''));
    expect(shown).toBeGreaterThan(0);
    await page.screenshot({ path: screenshotPath('device-sync-participant'), fullPage: true });
  });
});
