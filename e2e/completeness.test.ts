import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshotPath } from './support/browser';
import { startBrowserSession, type BrowserSession } from './support/browser-session';
import type { RunningServer } from './support/server';
import { DEMO } from './support/session';

/**
 * The completeness grid on the demo data (decision 0053): the participant whose Fitbit
 * connection needs re-consent (GLUCO-002) and the one whose tracker battery is empty
 * (SLEEP-002) show in the warning colour; a new wear-hours threshold recolours the days.
 */
describe('data completeness in the browser', () => {
  let session: BrowserSession;
  let server: RunningServer;
  let page: Page;

  beforeAll(async () => {
    session = await startBrowserSession({
      signIn: DEMO.admin,
      viewport: { width: 1600, height: 1000 },
    });
    ({ server, page } = session);
  });
  afterAll(() => session?.close());

  async function openCompleteness(trialNumber: string) {
    await page.goto(`${server.baseUrl}/`);
    const trialRow = page.getByTestId('trials-table').getByText(trialNumber);
    await trialRow.waitFor();
    await trialRow.click();
    await page.getByTestId('participants-table').waitFor();
    await page.getByTestId('trial-completeness-link').click();
    await page.getByTestId('completeness-grid').waitFor();
  }

  const background = (testId: string) =>
    page.getByTestId(testId).evaluate((element) => getComputedStyle(element).backgroundColor);

  it('shows the participant with the empty battery in the warning colour, and the strip on the trial page', async () => {
    await page.goto(`${server.baseUrl}/`);
    await page.getByTestId('trials-table').getByText('TP-2026-001').click();
    await page.getByTestId('participants-table').waitFor();
    const strips = page.locator('[data-testid^="completeness-strip-"]');
    await strips.first().waitFor();
    expect(
      await page.locator('[data-testid^="completeness-strip-"][data-health="warning"]').count(),
    ).toBe(1);

    await page.getByTestId('trial-completeness-link').click();
    await page.getByTestId('completeness-grid').waitFor();
    const warning = await background('legend-warning');
    expect(
      await page.getByTestId('completeness-health-SLEEP-002').getAttribute('data-health'),
    ).toBe('warning');
    expect(await background('completeness-health-SLEEP-002')).toBe(warning);
    expect(await page.getByTestId('completeness-health-SLEEP-002').textContent()).toContain(
      'Battery empty',
    );
    expect(
      await page.getByTestId('completeness-health-SLEEP-001').getAttribute('data-health'),
    ).toBe('ok');
    expect(await background('completeness-health-SLEEP-001')).not.toBe(warning);
    await page.screenshot({ path: screenshotPath('completeness-sleep'), fullPage: true });
  });

  it('recolours the grid when an Admin lowers the wear-hours threshold', async () => {
    const cells = page.locator('[data-testid^="completeness-cell-SLEEP-001-"]');
    const partial = page.locator(
      '[data-testid^="completeness-cell-SLEEP-001-"][data-state="partial"]',
    );
    const idsOf = (locator: typeof partial) =>
      locator.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-testid')!));
    const partialBefore = await idsOf(partial);
    expect(partialBefore.length).toBeGreaterThan(0);
    const coloursBefore = new Map<string, string>();
    for (const id of partialBefore) coloursBefore.set(id, await background(id));

    await page.getByTestId('completeness-thresholds-button').click();
    const dialog = page.getByTestId('thresholds-dialog');
    await dialog.getByLabel('Valid day: at least this many wear hours').fill('6');
    await dialog.getByTestId('thresholds-save').click();
    await dialog.waitFor({ state: 'detached' });

    // Days below the old wear threshold turn valid; a day can stay below threshold for
    // another reason (SLEEP-001 also wears an Omron monitor: a day without its reading is
    // partial under the defaults, decision 0181), but no day gets worse.
    await expect.poll(async () => (await idsOf(partial)).length).toBeLessThan(partialBefore.length);
    const partialAfter = await idsOf(partial);
    for (const id of partialAfter) expect(partialBefore).toContain(id);
    const turnedValid = partialBefore.filter((id) => !partialAfter.includes(id));
    for (const id of turnedValid) {
      expect(await page.getByTestId(id).getAttribute('data-state')).toBe('valid');
      expect(await background(id)).not.toBe(coloursBefore.get(id));
    }
    expect(await cells.count()).toBe(14);
    expect(await page.getByTestId('completeness-thresholds').textContent()).toContain(
      'at least 6 wear hours',
    );
  });

  it('shows the participant whose connection needs re-consent in the warning colour', async () => {
    await openCompleteness('TP-2026-002');
    const warning = await background('legend-warning');
    expect(
      await page.getByTestId('completeness-health-GLUCO-002').getAttribute('data-health'),
    ).toBe('warning');
    expect(await background('completeness-health-GLUCO-002')).toBe(warning);
    expect(await page.getByTestId('completeness-health-GLUCO-002').textContent()).toContain(
      'Needs re-consent',
    );
    // Below threshold only: the participant who needs re-consent stays listed.
    await page.getByTestId('completeness-below-only').click();
    await page.getByTestId('completeness-row-GLUCO-002').waitFor();
    await page.screenshot({ path: screenshotPath('completeness-gluco'), fullPage: true });
  });
});
