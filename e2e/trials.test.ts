import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshotPath } from './support/browser';
import { clickUntilShown } from './support/click';
import { startBrowserSession, type BrowserSession } from './support/browser-session';
import type { RunningServer } from './support/server';
import { DEMO, apiFromPage, logOut } from './support/session';

describe('teams, trials and trial users in the browser', () => {
  let session: BrowserSession;
  let server: RunningServer;
  let page: Page;

  beforeAll(async () => {
    session = await startBrowserSession();
    ({ server, page } = session);
  });
  afterAll(() => session?.close());

  /** Rows the trials table shows, its header included; polls get the e2e project's 60 s. */
  const tableRows = () => page.getByTestId('trials-table').getByRole('row').count();
  const row = (text: string) =>
    page.getByTestId('trials-table').getByRole('row').filter({ hasText: text });

  it('Admin creates, searches, edits and pages trials; screenshot of the dashboard', async () => {
    await session.signIn(DEMO.admin);
    await page.getByTestId('trials-table').waitFor();
    await page.getByTestId('new-trial-button').click();
    const dialog = page.getByRole('dialog').filter({ hasText: 'New Trial' });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Trial Number is required').waitFor();
    await dialog.getByText('Trial Name is required').waitFor();
    await dialog.getByLabel('Trial Number').fill('E2E-100');
    await dialog.getByLabel('Trial Name').fill('Browser-made trial');
    await dialog.getByLabel('Trial Notes').fill('Created by the browser test');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await row('E2E-100').waitFor();

    await page.getByTestId('trials-search').fill('Browser-made');
    await expect.poll(tableRows).toBe(2); // header + 1
    await page.getByTestId('trials-search').fill('');

    const visible = (await apiFromPage(page, 'GET', '/api/userTrials/')).body as {
      trialId: number;
      trialNumber: string;
    }[];
    const trialId = visible.find((trial) => trial.trialNumber === 'E2E-100')!.trialId;
    // The search is debounced: wait until the cleared search has brought the other rows
    // back, or they arrive during the click below, the row moves, and the click lands on
    // a row (which opens a trial) instead of its edit button (seen on a loaded machine).
    await expect.poll(tableRows).toBe(Math.min(visible.length, 10) + 1);
    await page.getByTestId(`trial-row-edit-${trialId}`).click();
    const edit = page.getByRole('dialog').filter({ hasText: 'Edit Trial' });
    await edit.getByLabel('Trial Name').fill('Browser-made trial, renamed');
    await edit.getByRole('button', { name: 'Save' }).click();
    await row('renamed').waitFor();

    // Enough trials for a second page (10 per page by default).
    for (let index = 0; index < 8; index += 1) {
      const created = await apiFromPage(page, 'POST', '/api/userTrials', {
        trialNumber: `PAGE-${index}`,
        trialName: `Paging trial ${index}`,
        trialNotes: '',
      });
      expect(created.status).toBe(200);
    }
    await page.reload();
    await page.getByTestId('trials-table').waitFor();
    await expect.poll(tableRows).toBe(11);
    await page.getByRole('button', { name: /next page/i }).click();
    await expect.poll(tableRows).toBeGreaterThan(1);
    await page.getByRole('button', { name: /previous page/i }).click();
    await page.screenshot({ path: screenshotPath('dashboard-trials'), fullPage: true });
  });

  it('Admin adds and removes a trial user; the owner row cannot be deleted', async () => {
    await row('E2E-100').getByText('E2E-100').click();
    await page.getByTestId('trial-title').waitFor();
    expect(await page.getByTestId('trial-title').textContent()).toBe(
      'Trial: #E2E-100 - Browser-made trial, renamed',
    );
    await page.getByTestId('manage-trial-users-link').click();
    await page.getByTestId('trial-users-table').waitFor();
    await page.getByText('Trial Owner').waitFor();

    await page.getByTestId('add-trial-user-button').click();
    const add = page.getByRole('dialog').filter({ hasText: 'Add User' });
    await add.getByLabel('User Email').selectOption(DEMO.user.username);
    await add.getByRole('button', { name: 'Save' }).click();
    const userRow = page
      .getByTestId('trial-users-table')
      .getByRole('row')
      .filter({ hasText: DEMO.user.username });
    await userRow.waitFor();
    await page.screenshot({ path: screenshotPath('trial-users'), fullPage: true });

    await userRow.getByRole('button').click();
    const remove = page.getByRole('dialog').filter({ hasText: 'Delete User?' });
    await remove.getByRole('button', { name: 'Delete', exact: true }).click();
    await userRow.waitFor({ state: 'detached' });
  });

  it('Admin deletes a trial', async () => {
    await page.goto(`${server.baseUrl}/`);
    await page.getByTestId('trials-table').waitFor();
    const trials = (await apiFromPage(page, 'GET', '/api/userTrials/')).body as {
      trialId: number;
      trialNumber: string;
    }[];
    const target = trials.find((trial) => trial.trialNumber === 'PAGE-0')!;
    await page.getByTestId('trials-search').fill('PAGE-0');
    await page.getByTestId(`trial-row-delete-${target.trialId}`).click();
    await page
      .getByRole('dialog')
      .filter({ hasText: 'Delete Trial?' })
      .getByRole('button', { name: 'Delete', exact: true })
      .click();
    await expect
      .poll(
        async () => ((await apiFromPage(page, 'GET', '/api/userTrials/')).body as unknown[]).length,
      )
      .toBe(trials.length - 1);
  });

  it('an inactive team shows the subscription message instead of trials', async () => {
    await page.goto(`${server.baseUrl}/`);
    // Once the page's calls have answered (the trials list moves the layout as it fills),
    // and again if the menu did not open (seen once in a fresh-clone run: the select
    // focused, no menu).
    const archived = page.getByRole('option', { name: /Archived Study Team/ });
    await clickUntilShown(page.getByLabel('Team'), archived);
    await archived.click();
    await page.getByTestId('team-inactive-message').waitFor();
    expect(await page.getByTestId('team-inactive-message').textContent()).toContain(
      "The current team's subscription is no longer active or has expired.",
    );
    expect(await page.getByTestId('trials-table').count()).toBe(0);
    await page.screenshot({ path: screenshotPath('dashboard-inactive-team'), fullPage: true });
    await logOut(page);
  });

  it('a User sees no add or delete trial buttons', async () => {
    await session.signIn(DEMO.user);
    await page.getByTestId('trials-table').waitFor();
    await expect.poll(tableRows).toBeGreaterThan(1);
    // Wait for real rows (the table shows skeleton rows while loading).
    await page.getByTestId('trials-table').getByText('TP-2026-001').waitFor();
    await page.screenshot({ path: screenshotPath('dashboard-user'), fullPage: true });
    expect(await page.getByTestId('new-trial-button').count()).toBe(0);
    expect(await page.locator('[data-testid^="trial-row-delete-"]').count()).toBe(0);
    expect(await page.locator('[data-testid^="trial-row-edit-"]').count()).toBeGreaterThan(0);
    await logOut(page);
  });
});
