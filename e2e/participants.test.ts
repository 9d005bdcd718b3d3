import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshotPath } from './support/browser';
import { clickUntilShown, participantsTableSettled, checkSurely } from './support/click';
import { startBrowserSession, type BrowserSession } from './support/browser-session';
import type { RunningServer } from './support/server';
import { DEMO, apiFromPage, logOut } from './support/session';

type ApiParticipant = { id: number; participant_code: string; participant_code_suffix: string };

describe('participants in the browser', () => {
  let session: BrowserSession;
  let server: RunningServer;
  let page: Page;
  let trialId = 0;

  beforeAll(async () => {
    session = await startBrowserSession();
    ({ server, page } = session);
  });
  afterAll(() => session?.close());

  const participants = async () =>
    (await apiFromPage(page, 'GET', `/api/trialParticipants/${trialId}`)).body as ApiParticipant[];

  async function openFirstTrial() {
    await page.goto(`${server.baseUrl}/`);
    const trialRow = page.getByTestId('trials-table').getByText('TP-2026-001');
    await trialRow.waitFor();
    const trials = (await apiFromPage(page, 'GET', '/api/userTrials/')).body as {
      trialId: number;
      trialNumber: string;
    }[];
    trialId = trials.find((trial) => trial.trialNumber === 'TP-2026-001')!.trialId;
    await trialRow.click();
    await participantsTableSettled(page);
  }

  async function addParticipant(suffix: string) {
    await page.getByTestId('add-participant-button').click();
    await page.getByTestId('add-participant-page').waitFor();
    await page.getByLabel('Code Suffix').fill(suffix);
    await page.getByLabel('Gender').selectOption('female');
    await page.getByLabel('Age').fill('42');
    await page.getByLabel('Notes').fill('Enrolled in the browser test');
    await page.getByRole('button', { name: 'Add Participant' }).click();
  }

  it('a User adds a participant with a custom suffix and sees the conflict message on a duplicate', async () => {
    await session.signIn(DEMO.user);
    await openFirstTrial();
    await page.getByTestId('add-participant-button').click();
    await page.getByTestId('phi-banner').waitFor();
    await page.getByLabel('Code Suffix').fill('ab');
    await page.getByText('Allowed: digits 0-9 and underscore _ (max 12)').waitFor();
    await page.goBack();
    await page.getByTestId('participants-table').waitFor();

    await addParticipant('77_1');
    await page.getByTestId('participants-table').waitFor();
    await expect
      .poll(async () => (await participants()).some((p) => p.participant_code_suffix === '77_1'))
      .toBe(true);
    const created = (await participants()).find((p) => p.participant_code_suffix === '77_1')!;
    await page.getByTestId(`participant-row-${created.id}`).waitFor();
    await page.screenshot({ path: screenshotPath('trial-page'), fullPage: true });

    await addParticipant('77_1');
    await page.getByText('Participant code is already taken in this trial.').waitFor();
    await page.screenshot({ path: screenshotPath('add-participant-conflict'), fullPage: true });
  });

  it('the User edits the code, then deletes the participant', async () => {
    await openFirstTrial();
    const created = (await participants()).find((p) => p.participant_code_suffix === '77_1')!;
    await checkSurely(page.getByTestId(`participant-row-${created.id}`).getByRole('checkbox'));
    await page.getByTestId('edit-participant-button').click();
    const dialog = page.getByTestId('edit-participant-dialog');
    await dialog.getByLabel('Code Suffix').fill('78');
    await page.getByTestId('edit-participant-save').click();
    await expect
      .poll(
        async () =>
          (await participants()).find((p) => p.id === created.id)?.participant_code_suffix,
      )
      .toBe('78');
    await page.getByTestId(`participant-row-${created.id}`).getByText(/-78$/).waitFor();

    await page.getByTestId(`participant-delete-${created.id}`).click();
    await page.getByTestId('delete-participant-confirm').click();
    await expect
      .poll(async () => (await participants()).some((p) => p.id === created.id))
      .toBe(false);
  });

  it('Ctrl+Shift+Q on the participant page does nothing for a User and opens the raw page for a Sys_Admin', async () => {
    await openFirstTrial();
    const first = (await participants())[0]!;
    await clickUntilShown(
      page.getByTestId(`participant-manage-${first.id}`),
      page.getByTestId('participant-page'),
    );
    // The page's shortcut handler (participant-page.tsx) claims the key with preventDefault;
    // a listener of ours reads that once every listener has run, so there is no fixed wait.
    await page.evaluate(() => {
      window.addEventListener('keydown', (event) => {
        if (event.code === 'KeyQ')
          setTimeout(() =>
            document.body.setAttribute('data-e2e-q-claimed', String(event.defaultPrevented)),
          );
      });
    });
    await page.keyboard.press('Control+Shift+Q');
    await expect.poll(() => page.locator('body').getAttribute('data-e2e-q-claimed')).toBe('false');
    expect(new URL(page.url()).pathname).toBe('/Participant');
    await logOut(page);

    await session.signIn(DEMO.sysAdmin);
    await openFirstTrial();
    await clickUntilShown(
      page.getByTestId(`participant-manage-${first.id}`),
      page.getByTestId('participant-page'),
    );
    await page.keyboard.press('Control+Shift+Q');
    await page.waitForURL(/\/ParticipantRaw$/);
    const raw = await page.getByTestId('participant-raw-json').textContent();
    expect(raw).toContain(first.participant_code);
    await page.screenshot({ path: screenshotPath('participant-raw'), fullPage: true });
  });
});
