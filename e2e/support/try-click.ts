import type { Locator } from 'playwright-core';

/**
 * Clicks `target` within `timeout` ms; false when the click did not happen in that time,
 * e.g. because the target left the page (a click before it took after all). Without Vitest
 * imports: a bench uses it through session.ts.
 */
export function tryClick(target: Locator, timeout: number): Promise<boolean> {
  return target.click({ timeout }).then(
    () => true,
    () => false,
  );
}
