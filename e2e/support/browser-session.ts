import type { Browser, Page } from 'playwright-core';
import type { Db } from '../../apps/server/src/db/client';
import {
  startTestSmtpServer,
  type TestSmtpServer,
} from '../../apps/server/src/modules/mail/test-support';
import { launchBrowser } from './browser';
import { watchPage } from './page-trouble';
import { startServer, startServerWithData, type RunningServer, type ServerEnv } from './server';
import { signInWithEmailedCode, type Account } from './session';

export type BrowserSession = {
  smtp: TestSmtpServer;
  server: RunningServer;
  browser: Browser;
  page: Page;
  /** Signs `account` in on the page through the emailed second-factor code, to the dashboard. */
  signIn(account: Account): Promise<void>;
  /** Closes the browser, stops the server and the SMTP server (each only if started). */
  close(): Promise<void>;
};

/**
 * The start most browser test files share: a test SMTP server (it receives the emailed
 * second-factor codes), the demo server mailing to it, Chromium with one page, and with
 * `signIn` that account signed in through its second factor to the dashboard. `prepare`
 * writes the file's own starting data into the seeded database (see startServerWithData).
 */
export async function startBrowserSession(
  options: {
    signIn?: Account;
    env?: ServerEnv;
    viewport?: { width: number; height: number };
    prepare?: (db: Db) => Promise<void>;
  } = {},
): Promise<BrowserSession> {
  const started: Partial<BrowserSession> = {};
  const close = async () => {
    await started.browser?.close();
    await started.server?.stop();
    await started.smtp?.close();
  };
  try {
    const smtp = (started.smtp = await startTestSmtpServer());
    const env = { SMTP_URL: smtp.url, ...options.env };
    const server = (started.server = options.prepare
      ? await startServerWithData(options.prepare, { env })
      : await startServer({ env }));
    const browser = (started.browser = await launchBrowser());
    const page = watchPage(
      await browser.newPage(options.viewport && { viewport: options.viewport }),
    );
    const signIn = (account: Account) => signInWithEmailedCode(page, server.baseUrl, account, smtp);
    if (options.signIn) await signIn(options.signIn);
    return { smtp, server, browser, page, signIn, close };
  } catch (error) {
    await close();
    throw error;
  }
}
