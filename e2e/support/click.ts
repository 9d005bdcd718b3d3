import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { openApiCalls } from './page-trouble';
import { tryClick } from './try-click';

/**
 * Waits until none of the page's own API calls is open (network idle of the app's calls,
 * not of the whole page): what the page shows next is what those answers made of it.
 * Pages are watched by `startBrowserSession` (e2e/support/page-trouble.ts).
 */
export async function apiCallsSettled(page: Page): Promise<void> {
  await expect.poll(() => openApiCalls(page), { interval: 50 }).toBe(0);
}

/**
 * Clicks `target` until `arrived` shows (at most `attempts` clicks), then waits for it.
 *
 * A participants-table row grows when its device status, last-data badge or completeness
 * strip answers. Playwright checks the click's hit target and then sends the mouse events
 * in separate steps, so a row above that grows in between moves the link away and the
 * click lands beside it (seen in CI: the trial page stayed, the mouse over the row above).
 * A lost click leaves `target` in place on the same address and is repeated; one that took
 * moves the page on.
 */
export async function clickUntilShown(
  target: Locator,
  arrived: Locator,
  attempts = 3,
): Promise<void> {
  const page = target.page();
  const urlBefore = page.url();
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    // Rows stop growing once the page's calls have answered: aim then.
    await apiCallsSettled(page);
    if (attempt > 1) {
      // A click that took moves the page on (a new address) or removes its target: only a
      // target still in place on the same address is clicked again.
      if (page.url() !== urlBefore || !(await target.isVisible())) break;
      console.warn(
        `click ${attempt - 1} on ${String(target)} showed nothing within 5 s (lost, or slow); clicking again`,
      );
    }
    if (attempt === 1) await target.click();
    // A click taken as lost may only have been slow: on a loaded machine the next page can
    // need more than 5 s to show while the old one stays (seen in CI: the participant page
    // came during the second click, whose target then left the DOM, and Playwright waited
    // 60 s for it to return). A repeated click therefore gets 5 s, and a target that left
    // ends the clicking; `arrived` then has the whole budget below.
    else if (!(await tryClick(target, 5_000))) break;
    const shown = await arrived.waitFor({ timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    if (shown) return;
  }
  await arrived.waitFor();
}

/**
 * Waits until the participants table has rows and none of their Device Status parts
 * (status, last-data badge, 14-day strip) is still a placeholder (`pending-…` test ids):
 * once they are in, the rows keep their heights and a click lands where it was aimed.
 */
export async function participantsTableSettled(page: Page): Promise<void> {
  const table = page.getByTestId('participants-table');
  await table.locator('[data-testid^="participant-row-"]').first().waitFor();
  await expect.poll(() => table.locator('[data-testid^="pending-"]').count()).toBe(0);
  await apiCallsSettled(page);
}

/**
 * Checks a checkbox or radio button, clicking again when a click was lost: Playwright aims,
 * then sends the mouse events, and on a loaded machine the page may move in between (seen
 * in a paired fresh-clone run: the export form's CSV radio after a full-page screenshot,
 * "Clicking the checkbox did not change its state", the Parquet radio still chosen). Only
 * that error is retried; a control that never takes the click still fails.
 */
export async function checkSurely(target: Locator, attempts = 3): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await target.check();
      return;
    } catch (error) {
      const lost = String(error).includes('did not change its state');
      if (!lost || attempt >= attempts) throw error;
      console.warn(`check ${attempt} on ${String(target)} was lost; checking again`);
      await apiCallsSettled(target.page());
    }
  }
}
