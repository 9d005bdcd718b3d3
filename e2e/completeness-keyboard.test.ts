import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserSession, type BrowserSession } from './support/browser-session';
import type { RunningServer } from './support/server';
import { DEMO } from './support/session';

/**
 * The completeness grid by keyboard alone (issue 30, decision 0170): the day cells are one
 * tab stop; arrow keys, Home and End move the focus; the focused cell's text (participant,
 * day, state, wear, steps) is its accessible name and is shown under the grid.
 */
describe('the completeness grid by keyboard (demo data)', () => {
  let session: BrowserSession;
  let server: RunningServer;
  let page: Page;

  beforeAll(async () => {
    session = await startBrowserSession({
      signIn: DEMO.admin,
      viewport: { width: 1440, height: 1000 },
    });
    ({ server, page } = session);
  });
  afterAll(() => session?.close());

  /** The focused element's cell position (`row:day`) and accessible name. */
  const focused = () =>
    page.evaluate(() => ({
      cell: document.activeElement?.getAttribute('data-cell') ?? null,
      label: document.activeElement?.getAttribute('aria-label') ?? null,
    }));

  it('one tab stop; arrows, Home and End move; the focused day is named and shown', async () => {
    await page.goto(`${server.baseUrl}/`);
    await page.getByTestId('trials-table').getByText('TP-2026-001').click();
    await page.getByTestId('participants-table').waitFor();
    await page.getByTestId('trial-completeness-link').click();
    const grid = page.getByTestId('completeness-grid');
    await grid.waitFor();
    await page.locator('[data-cell="0:0"]').waitFor();
    // One tab stop for all the day cells.
    expect(await grid.locator('[data-cell][tabindex="0"]').count()).toBe(1);
    const days = await page.locator('[data-cell^="0:"]').count();
    const rows = await page.locator('[data-cell$=":0"]').count();
    expect(days).toBeGreaterThan(2);
    expect(rows).toBeGreaterThan(1);

    // Reach the grid with Tab alone.
    for (let presses = 0; presses < 80; presses += 1) {
      if ((await focused()).cell !== null) break;
      await page.keyboard.press('Tab');
    }
    // The tab stop starts on the first row's newest day.
    const last = days - 1;
    expect((await focused()).cell).toBe(`0:${last}`);

    await page.keyboard.press('ArrowLeft');
    expect((await focused()).cell).toBe(`0:${last - 1}`);
    await page.keyboard.press('ArrowDown');
    const moved = await focused();
    expect(moved.cell).toBe(`1:${last - 1}`);
    // Its name says whose day it is and its state; the same text shows under the grid.
    expect(moved.label).toMatch(/^[A-Z]+-\d{3}, \d{4}-\d{2}-\d{2}: /);
    await expect
      .poll(() => page.getByTestId('completeness-focused-day').innerText())
      .toBe(moved.label);
    // Still one tab stop, now on the focused cell.
    expect(await grid.locator('[data-cell][tabindex="0"]').getAttribute('data-cell')).toBe(
      `1:${last - 1}`,
    );

    await page.keyboard.press('Home');
    expect((await focused()).cell).toBe('1:0');
    await page.keyboard.press('End');
    expect((await focused()).cell).toBe(`1:${last}`);
    await page.keyboard.press('ArrowUp');
    expect((await focused()).cell).toBe(`0:${last}`);
    // At the edge the focus stays.
    await page.keyboard.press('ArrowRight');
    expect((await focused()).cell).toBe(`0:${last}`);

    // Enter and Space open the focused day's detail, as a click does (decision 0197);
    // Escape closes it and gives the focus back to the cell.
    const { label } = await focused();
    const detail = page.getByTestId('completeness-day-detail');
    for (const key of ['Enter', 'Space']) {
      await page.keyboard.press(key);
      await detail.waitFor();
      expect(await detail.getAttribute('role')).toBe('dialog');
      expect(label).toContain(await detail.getByRole('heading').innerText());
      await page.keyboard.press('Escape');
      await detail.waitFor({ state: 'detached' });
      expect((await focused()).cell).toBe(`0:${last}`);
    }
  });
});
