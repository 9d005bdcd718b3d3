import type { Page } from 'playwright-core';
import type { TestSmtpServer } from '../../apps/server/src/modules/mail/test-support';
import { tryClick } from './try-click';

export type Account = { username: string; password: string };

/** The demo accounts the seed creates (apps/server/src/db/seed/demo-seed.ts). */
export const DEMO = {
  sysAdmin: { username: 'sysadmin@demo.trialpulse.local', password: 'Demo!Sys2026' },
  admin: { username: 'admin@demo.trialpulse.local', password: 'Demo!Admin2026' },
  user: { username: 'user@demo.trialpulse.local', password: 'Demo!User2026' },
  viewer: { username: 'viewer@demo.trialpulse.local', password: 'Demo!View2026' },
} satisfies Record<string, Account>;

export async function logIn(page: Page, baseUrl: string, account: Account) {
  await page.goto(`${baseUrl}/LoginPage`);
  await page.getByLabel('Username').fill(account.username);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Log In' }).click();
}

/**
 * Signs in all the way to the dashboard with an emailed code read from the test's SMTP
 * server (works whether or not the account has an authenticator).
 */
export async function signInWithEmailedCode(
  page: Page,
  baseUrl: string,
  account: Account,
  smtp: TestSmtpServer,
) {
  await logIn(page, baseUrl, account);
  await page.waitForURL(/\/SFA(Setup|Validate)Page$/);
  const before = smtp.received.length;
  // A click here was lost once (a browser pass with reduced motion: the page stayed on the
  // setup page for 60 s); the setup page's secret may arrive after the button was aimed at
  // and move it. A lost click leaves the button there and is repeated, as clickUntilShown
  // does (not used here: this file also serves a bench, outside Vitest).
  const sendByEmail = page.getByRole('button', { name: 'Send code by email' });
  const codeField = page.getByLabel('Emailed code');
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    // A repeated click gets 5 s: the click before may have taken after all, and its target
    // left the page (clickUntilShown says why).
    if (attempt === 1) await sendByEmail.click();
    else if (!(await tryClick(sendByEmail, 5_000))) break;
    const shown = await codeField.waitFor({ timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    if (shown || !(await sendByEmail.isVisible())) break;
  }
  await page.waitForURL(/\/SFASendCodeViaMsgPage$/);
  const mails = await smtp.waitForMails(before + 1, 60_000);
  const mail = mails
    .slice(before)
    .reverse()
    .find((received) => received.to.includes(account.username));
  const code = /\b(\d{6})\b/.exec(mail!.body)![1]!;
  await page.getByLabel('Emailed code').fill(code);
  await page.getByRole('button', { name: 'Validate' }).click();
  await page.getByTestId('dashboard-page').waitFor();
}

export async function logOut(page: Page) {
  const profile = page.getByTestId('profile-menu-button');
  if (await profile.isVisible()) {
    await profile.click();
    await page.getByTestId('profile-logout').click();
  } else {
    await page.getByTestId('simple-logout').click();
  }
  await page.waitForURL(/\/LoginPage$/);
}

/** A JSON API call from the page, as the app makes it (cookies + CSRF header). */
export async function apiFromPage(page: Page, method: string, url: string, body?: unknown) {
  return page.evaluate(
    async ({ method, url, body }) => {
      const { csrfToken } = await (await fetch('/api/csrf-token')).json();
      const response = await fetch(url, {
        method,
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json().catch(() => null) };
    },
    { method, url, body },
  );
}

/** A connection's sync status as the participant's device-sync call answers it. */
export type SyncStatus = { brand: string; state: string; rowsStored: number };

/** The sync statuses of a participant's connections. */
export async function syncStatuses(page: Page, participantId: number): Promise<SyncStatus[]> {
  const answer = await apiFromPage(page, 'GET', `/api/deviceSync/participant/${participantId}`);
  return (answer.body as { connections: SyncStatus[] }).connections;
}

/**
 * Waits until the participant's connection of one brand has ended its background backfill
 * (state `up_to_date`), so data calls answer from storage and what is stored no longer
 * changes. Not merely begun: a backfill covers one record type after another. A loop of its
 * own, not `expect.poll`: this file also serves a bench, outside Vitest.
 */
export async function waitUntilUpToDate(
  page: Page,
  participantId: number,
  brand: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = (await syncStatuses(page, participantId)).find(
      (candidate) => candidate.brand === brand,
    );
    if (status?.state === 'up_to_date') return;
    if (Date.now() > deadline)
      throw new Error(
        `${brand} of participant ${participantId} not up to date after ${timeoutMs / 1000} s: ${status?.state ?? 'no connection'}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
