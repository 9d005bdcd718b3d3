import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshotPath } from './support/browser';
import { startServer, type RunningServer } from './support/server';

const PROTECTED_ROUTES = [
  '/',
  '/Trials',
  '/TrialPage',
  '/DataExport',
  '/TrialUsers',
  '/DbInfoPage',
  '/SFASetupPage',
];

describe('foundation in the browser: the built app served by the real server', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    // A first start: the banner says the demo data was created.
    server = await startServer({ fresh: true });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('prints the URL and the demo sign-in details at start', () => {
    const banner = server.terminalText();
    expect(banner).toContain('TrialPulse is running at');
    expect(banner).toContain('Demo data was created.');
    for (const role of ['Sys_Admin', 'Admin', 'User', 'Viewer']) expect(banner).toContain(role);
  });

  it('loads the login page, shows the server version in the footer, and takes a screenshot', async () => {
    const version = (await (await fetch(`${server.baseUrl}/api/appVersion`)).json())
      .version as string;
    const page = await browser.newPage();
    await page.goto(`${server.baseUrl}/LoginPage`);
    await page.getByLabel('Username').waitFor();
    await expect.poll(() => page.getByTestId('app-version').textContent()).toContain(version);
    const footer = await page.locator('footer').textContent();
    expect(footer).toContain(String(new Date().getFullYear()));
    expect(footer).toMatch(/Privacy Policy/i);
    expect(footer).toMatch(/Terms and Conditions/i);
    expect(footer).toMatch(/Contact Us/i);
    await page.screenshot({ path: screenshotPath('login-page'), fullPage: true });
    await page.close();
  });

  it('sends a signed-out visitor on any protected route to /LoginPage', async () => {
    const page = await browser.newPage();
    for (const route of PROTECTED_ROUTES) {
      await page.goto(`${server.baseUrl}${route}`);
      await page.waitForURL(/\/LoginPage$/);
      expect(new URL(page.url()).pathname).toBe('/LoginPage');
    }
    await page.close();
  });

  it('shows the 404 page with a home button for an unknown path', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.baseUrl}/no/such/page`);
    await page.getByText('404 Error - page not found').waitFor();
    const home = page.getByTestId('go-home');
    expect(await home.textContent()).toMatch(/home/i);
    await page.screenshot({ path: screenshotPath('not-found'), fullPage: true });
    // Home is protected, so a signed-out visitor ends on the login page.
    await home.click();
    await page.waitForURL(/\/LoginPage$/);
    await page.close();
  });

  it('keeps the data on a second start with the same data directory', async () => {
    await server.stop();
    server = await startServer({ dataDir: server.dataDir });
    expect(server.terminalText()).toContain('Demo data from an earlier run is kept.');
  });
});
