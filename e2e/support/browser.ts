import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { ROOT } from './server';

export const SCREENSHOT_DIR = path.join(ROOT, '.tmp/screenshots');

/**
 * Playwright's budget for one action, navigation or wait (its default is 30 s). A budget
 * against hanging, not a speed check: in a fresh-clone run at load ~10 a first page load
 * and a sign-in's wait for the dashboard (a server busy with a 15-day backfill) each passed
 * 30 s; the tests' own budget (90 s) still bounds a test.
 */
export const ACTION_BUDGET_MS = 60_000;

/**
 * Debian's Chromium headless shell, which `npm test` installs (a bench run without it gets
 * the full Chromium; CHROMIUM_PATH picks another), with nothing that reaches for the
 * internet; every context it opens gets ACTION_BUDGET_MS and, unless the caller says
 * otherwise, a user who asks for reduced motion: the theme then ends spinners, skeleton
 * pulses, ripples and transitions at once, so Chromium draws no animation frames while the
 * scenarios wait (decision 0281; the accessibility walk checks both preferences).
 */
export async function launchBrowser(): Promise<Browser> {
  const browser = await launchChromium();
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext({ reducedMotion: 'reduce', ...options });
    context.setDefaultTimeout(ACTION_BUDGET_MS);
    return context;
  };
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (options) => {
    const page = await newPage({ reducedMotion: 'reduce', ...options });
    page.context().setDefaultTimeout(ACTION_BUDGET_MS);
    return page;
  };
  return browser;
}

function launchChromium(): Promise<Browser> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * The headless shell: Chromium's headless-only build, as Playwright uses for headless runs;
 * the browser pass took 12 % less CPU in it than in the full Chromium (decision 0278).
 */
function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  const shell = '/usr/bin/chromium-headless-shell';
  return fs.existsSync(shell) ? shell : '/usr/bin/chromium';
}

export const screenshotPath = (name: string) => path.join(SCREENSHOT_DIR, `${name}.png`);
