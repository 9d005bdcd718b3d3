import type { Page } from 'playwright-core';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dexcomQueryString } from '@trialpulse/shared/device-data/device-data.schemas';
import type { Db } from '../apps/server/src/db/client';
import { deviceMetricSettings, teamDeviceDataStorageSettings } from '../apps/server/src/db/schema';
import { screenshotPath } from './support/browser';
import { startBrowserSession, type BrowserSession } from './support/browser-session';
import type { RunningServer } from './support/server';
import { DEMO, apiFromPage, syncStatuses } from './support/session';

type ApiParticipant = { id: number; participant_code: string };
type DexcomAnswer = {
  source: string;
  events: Array<{ systemTime: string; eventType: string; value: string | null }>;
};

/**
 * The demo stores Dexcom egvs only (its team leaves "Events" off): this switches events on
 * for the team's Dexcom device before the demo starts, so the background sync of GLUCO-001
 * (SandboxUser1, who logs meals and insulin) stores event rows, and checks that the
 * participant's Dexcom data page lists them and that the Dexcom data call answers them from
 * stored readings (a synced events row once made its presenter throw, decision 0055).
 */
async function enableDexcomEvents(db: Db) {
  const [events] = await db
    .select()
    .from(deviceMetricSettings)
    .where(eq(deviceMetricSettings.metricKey, 'events'));
  expect(events, 'the demo offers Dexcom events').toBeDefined();
  const [egv] = await db
    .select()
    .from(teamDeviceDataStorageSettings)
    .where(
      and(
        eq(teamDeviceDataStorageSettings.metricKey, 'egv'),
        eq(teamDeviceDataStorageSettings.teamSupportedDeviceId, events!.teamSupportedDeviceId),
      ),
    );
  await db.insert(teamDeviceDataStorageSettings).values({
    teamId: egv!.teamId,
    teamSupportedDeviceId: egv!.teamSupportedDeviceId,
    metricCatalogId: events!.metricCatalogId,
    metricKey: 'events',
    metricName: events!.metricName,
    isEnabled: true,
    retentionDays: 365,
  });
}

describe('Dexcom events in the browser', () => {
  let session: BrowserSession;
  let server: RunningServer;
  let page: Page;

  beforeAll(async () => {
    // Three days of backfill: SandboxUser1 logs several events a day.
    session = await startBrowserSession({
      signIn: DEMO.admin,
      viewport: { width: 1400, height: 1000 },
      env: { SYNC_BACKFILL_DAYS: '3' },
      prepare: enableDexcomEvents,
    });
    ({ server, page } = session);
  });
  afterAll(() => session?.close());

  it('a Dexcom account with events enabled syncs, and its data page shows the events', async () => {
    await page.goto(`${server.baseUrl}/`);
    const trials = (await apiFromPage(page, 'GET', '/api/userTrials/')).body as Array<{
      trialId: number;
    }>;
    let participant: ApiParticipant | undefined;
    let trial: { trialId: number } | undefined;
    for (const candidate of trials) {
      const list = (await apiFromPage(page, 'GET', `/api/trialParticipants/${candidate.trialId}`))
        .body as ApiParticipant[];
      participant = list.find((row) => row.participant_code === 'GLUCO-001');
      if (participant) {
        trial = candidate;
        break;
      }
    }
    expect(participant).toBeDefined();

    // The background backfill: wait until the Dexcom connection's backfill has ended. Not
    // merely begun: a backfill covers one record type after another, and a data call for
    // events not covered yet answers live (a fresh-clone run on a slow machine saw 'live').
    await expect
      .poll(
        async () =>
          (await syncStatuses(page, participant!.id)).some(
            (status) =>
              status.brand === 'Dexcom' && status.state === 'up_to_date' && status.rowsStored > 0,
          ),
        { timeout: 180_000, interval: 1_000 },
      )
      .toBe(true);

    // The data call answers the synced events from stored readings.
    const now = Date.now();
    const query = dexcomQueryString({
      start: new Date(now - 2 * 86_400_000),
      end: new Date(now - 3_600_000),
      records: ['events'],
    });
    const answer = await apiFromPage(
      page,
      'GET',
      `/api/getDexcomParticipantData/${participant!.id}/${encodeURIComponent(query)}`,
    );
    expect(answer.status).toBe(200);
    const body = answer.body as DexcomAnswer;
    expect(body.source).toBe('stored');
    expect(body.events.length).toBeGreaterThan(0);

    // The participant's Dexcom data page lists them.
    await page.evaluate(
      (value) => {
        localStorage.setItem('tp.currentParticipant', JSON.stringify(value.participant));
        localStorage.setItem('tp.currentTrial', JSON.stringify(value.trial));
      },
      { participant, trial },
    );
    await page.goto(`${server.baseUrl}/ParticipantDataPage`);
    await page.getByTestId('participant-data-tab-dexcom').click();
    await page.getByTestId('dexcom-view-readings').click();
    await page.getByTestId('reading-row-dexcom').first().waitFor();
    await page.getByTestId('readings-search-dexcom').fill('events');
    const table = page.getByTestId('readings-table-dexcom');
    await table.getByRole('cell', { name: 'events', exact: true }).first().waitFor();
    await table.getByText(body.events[0]!.eventType).first().waitFor();
    await page.screenshot({ path: screenshotPath('dexcom-events'), fullPage: true });
  }, 300_000);
});
