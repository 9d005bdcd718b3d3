import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshotPath } from './support/browser';
import { startServer, type RunningServer } from './support/server';

const STAFF_ROUTES = ['/', '/Trials', '/DataExport', '/TrialUsers', '/DbInfoPage'];

describe("participants' own accounts in the browser", () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('a participant registers, signs in, and cannot open any staff page or call a staff API', async () => {
    const page = await browser.newPage();
    const email = `participant.${Date.now()}@example.org`;
    await page.goto(`${server.baseUrl}/ParticipantSignupPage`);
    await page.getByLabel('Username').fill(email);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill('Particip#2026');
    await page.getByLabel('Confirm Password').fill('Particip#2026');
    await page.getByTestId('participant-signup-submit').click();
    await page.getByTestId('participant-signup-success').waitFor();

    await page.goto(`${server.baseUrl}/ParticipantLoginPage`);
    await page.getByLabel('Username').fill(email);
    await page.getByLabel('Password', { exact: true }).fill('Particip#2026');
    await page.getByTestId('participant-login-submit').click();
    await page.getByTestId('participant-login-success').waitFor();
    await page.screenshot({ path: screenshotPath('participant-signed-in'), fullPage: true });
    expect(await page.evaluate(async () => (await fetch('/api/Participants/me')).status)).toBe(200);

    for (const route of STAFF_ROUTES) {
      await page.goto(`${server.baseUrl}${route}`);
      await page.waitForURL(/\/LoginPage$/);
    }
    const staffCalls = await page.evaluate(async () =>
      Promise.all(
        ['/api/auth/user', '/api/userTrials/', '/api/team'].map(
          async (url) => (await fetch(url)).status,
        ),
      ),
    );
    expect(staffCalls).toEqual([403, 403, 403]);
    await page.close();
  });
});
