import type { Page } from 'playwright-core';
import { screenshotPath } from './browser';

/**
 * What went wrong on the pages a browser test drives, kept so that a failing test says
 * more than "waitFor timed out": each watched page's URL, visible text, a screenshot, and
 * its last failed API answers, failed requests and console errors. A browser scenario
 * that times out only in CI is otherwise impossible to diagnose afterwards.
 */
type Trouble = { at: string; what: string };

const watched = new Map<Page, Trouble[]>();
const KEEP = 30;
/** The page's own API calls (`/api/…` on its origin) that have not answered yet. */
const apiInFlight = new Map<Page, Set<unknown>>();

/** How many of `page`'s own API calls are still open (0 for a page that is not watched). */
export function openApiCalls(page: Page): number {
  return apiInFlight.get(page)?.size ?? 0;
}

/** Starts keeping `page`'s trouble (until it closes). */
export function watchPage(page: Page): Page {
  if (watched.has(page)) return page;
  const trouble: Trouble[] = [];
  const note = (what: string) => {
    trouble.push({ at: new Date().toISOString().slice(11, 23), what });
    if (trouble.length > KEEP) trouble.shift();
  };
  watched.set(page, trouble);
  const open = new Set<unknown>();
  apiInFlight.set(page, open);
  const isOwnApiCall = (url: string) => {
    try {
      const target = new URL(url);
      return target.pathname.startsWith('/api/') && target.origin === new URL(page.url()).origin;
    } catch {
      return false;
    }
  };
  page.on('request', (request) => {
    if (isOwnApiCall(request.url())) open.add(request);
  });
  page.on('requestfinished', (request) => open.delete(request));
  page.on('requestfailed', (request) => open.delete(request));
  page.on('response', (response) => {
    if (response.status() >= 400)
      note(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  page.on('requestfailed', (request) =>
    note(`failed ${request.method()} ${request.url()}: ${request.failure()?.errorText ?? ''}`),
  );
  page.on('console', (message) => {
    if (message.type() === 'error') note(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => note(`page error: ${error.message}`));
  page.on('close', () => {
    watched.delete(page);
    apiInFlight.delete(page);
  });
  return page;
}

/** Prints every watched page's state; called when a test fails (e2e setup file). */
export async function reportWatchedPages(testName: string, header?: string): Promise<void> {
  const screenshots: string[] = [];
  const blocks: string[] = [];
  let index = 0;
  for (const [page, trouble] of watched) {
    index += 1;
    const name = `failure-${testName.replace(/[^\w-]+/g, '-').slice(0, 60)}-${index}`;
    const lines = [`--- page ${index} at ${new Date().toISOString().slice(11, 23)}: ${page.url()}`];
    try {
      await page.screenshot({ path: screenshotPath(name), timeout: 5_000 });
      lines.push(`screenshot: ${screenshotPath(name)}`);
      screenshots.push(screenshotPath(name));
      const text = await page.locator('body').innerText({ timeout: 5_000 });
      lines.push(`visible text: ${text.replace(/\s+/g, ' ').slice(0, 1_500)}`);
    } catch (error) {
      lines.push(`(page not readable: ${(error as Error).message.split('\n')[0]})`);
    }
    lines.push(
      ...(trouble.length
        ? trouble.map((entry) => `${entry.at} ${entry.what}`)
        : ['no failed requests or errors']),
    );
    blocks.push(lines.join('\n'));
  }
  const summary = screenshots.length
    ? `  screenshots: ${screenshots.join(', ')}`
    : '  screenshots: none (no open page)';
  console.error([...(header ? [header, summary] : []), ...blocks].join('\n'));
}
