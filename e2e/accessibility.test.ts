import fs from 'node:fs';
import path from 'node:path';
import axe from 'axe-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PATHS,
  ROLES,
  ROUTES,
  exportDeviceSchema,
  exportMetricSchema,
  exportParticipantSchema,
  exportTrialSchema,
  type Role,
  type RouteEntry,
} from '@trialpulse/shared';
import {
  startTestSmtpServer,
  type TestSmtpServer,
} from '../apps/server/src/modules/mail/test-support';
import { launchBrowser } from './support/browser';
import { openApiCalls, watchPage } from './support/page-trouble';
import { startServer, type RunningServer } from './support/server';
import { DEMO, apiFromPage, logIn, type Account } from './support/session';

/**
 * Issue 30: every page of the route table passes axe-core's WCAG 2.1 A/AA rules with no
 * serious or critical violation, for every role that may open it (and signed out for the
 * public pages), and no page scrolls sideways on a 390-px phone. Routes and roles come
 * from the shared route table (packages/shared/src/routes.ts), so a new page is checked
 * without touching this file; the last test fails when a route was never shown at its own
 * path (it redirected for every role), so a page cannot drop out of the check unnoticed.
 *
 * One server, one browser, one context per role, signed in once: each page is opened once
 * at 1440 px, axe runs there, then the same page is resized to 390×844 and its width
 * measured; one test checks that motion ends for a user who asks the system for less
 * (prefers-reduced-motion) and plays without that preference.
 * A11Y_SCREENSHOTS=<dir> also saves every page at both widths (for looking at
 * them); A11Y_TIMING=1 prints each page's time. Figures and reasons: decision 0160.
 */

const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const SCREENSHOTS = process.env.A11Y_SCREENSHOTS;
const TIMING = process.env.A11Y_TIMING === '1';

/**
 * The web app's "signed in just now" flag (apps/web/src/lib/session/session-timers.ts): a
 * page load that finds it skips the token refresh a session start makes (spec §4). Set
 * before every load: the server allows 60 refreshes a minute from one address, fewer than
 * this walk's page loads on a fast machine, and a refused refresh ends the session.
 */
const SKIP_REFRESH_ON_START_KEY = 'tp.skipRefreshOnStart';

const ACCOUNTS: Record<Role, Account> = {
  Sys_Admin: DEMO.sysAdmin,
  Admin: DEMO.admin,
  User: DEMO.user,
  Viewer: DEMO.viewer,
};

/** Demo participants (simulators/demo-links.ts): Fitbit + Omron, and Dexcom (+ Fitbit). */
const FITBIT_OMRON_PARTICIPANT = 'SLEEP-001';
const DEXCOM_PARTICIPANT = 'GLUCO-001';

/** The participant opened before a route: the Dexcom one for Dexcom pages, else the Fitbit + Omron one. */
const participantFor = (route: RouteEntry) =>
  /dexcom/i.test(route.path) ? DEXCOM_PARTICIPANT : FITBIT_OMRON_PARTICIPANT;

/**
 * Views a plain visit does not show: the Dexcom participant's data page on its Dexcom tab
 * (CGM summary with the AGP chart) and its overview (CGM tile).
 */
const EXTRA_VIEWS: { path: string; participant: string; open?: (page: Page) => Promise<void> }[] = [
  {
    path: '/ParticipantDataPage',
    participant: DEXCOM_PARTICIPANT,
    open: async (page) => {
      await page.getByTestId('participant-data-tab-dexcom').click();
      await page.getByTestId('cgm-summary').waitFor();
    },
  },
  { path: '/ParticipantOverview', participant: DEXCOM_PARTICIPANT },
];

const PUBLIC_ROUTES = (ROUTES as readonly RouteEntry[]).filter((route) => route.roles === null);
const STAFF_ROUTES = (ROUTES as readonly RouteEntry[]).filter((route) => route.roles !== null);
/** Second-factor pages: opened between password and code, where the guard lets them show. */
const isSecondFactorPage = (route: RouteEntry) => route.path.startsWith('/SFA');

type Problem = { who: string; path: string; what: string };

/** Busy parts a page shows while it loads: the session loader, spinners, skeletons, charts not drawn, pending cells. */
const BUSY_SELECTOR = [
  '[data-testid="session-loading"]',
  '.MuiCircularProgress-root',
  '.MuiSkeleton-root',
  '[data-chart-ready="false"]',
  '[data-testid^="pending-"]',
].join(', ');

/**
 * axe-core's WCAG 2.1 A/AA rules over the page as shown. axe.run in the page: the app has
 * no frames of other origins, so nothing needs runPartial's blank page or the transfer of
 * every node's partial result; details of violations only, so passing nodes get no
 * selectors built. axe's source goes into each document once: @axe-core/playwright's
 * legacy mode, used before, evaluated the 550 kB source twice per check (about 200 ms
 * each, of its 700 ms; decision 0285).
 */
async function runAxe(page: Page): Promise<axe.AxeResults> {
  const present = await page.evaluate(() => 'axe' in window);
  if (!present) await page.evaluate(axe.source);
  return page.evaluate(
    (tags) =>
      (window as unknown as { axe: typeof axe }).axe.run(document, {
        runOnly: { type: 'tag', values: tags },
        resultTypes: ['violations'],
      }),
    WCAG_TAGS,
  );
}

describe('accessibility (axe WCAG 2.1 AA) and 390-px layout on every route', () => {
  let server: RunningServer;
  let smtp: TestSmtpServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const shownAt = new Map<string, Set<string>>();
  const seriousByRule = new Map<string, number>();
  let pagesChecked = 0;
  let visitBegun = 0;
  const started = Date.now();

  beforeAll(async () => {
    smtp = await startTestSmtpServer();
    server = await startServer({ env: { SMTP_URL: smtp.url } });
    browser = await launchBrowser();
    if (SCREENSHOTS) fs.mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    const lines = [...seriousByRule].map(([rule, n]) => `  ${rule}: ${n}`);
    console.log(
      `accessibility pass: ${Math.round((Date.now() - started) / 1000)} s, ${pagesChecked} pages (route × role) checked; serious/critical by rule:\n${lines.join('\n') || '  none'}`,
    );
    // Contexts stay open until here, so a failing test's pages are reported (report-failures.ts).
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.stop();
    await smtp?.close();
  });

  /**
   * A context of its own (one per role), whose every page load skips the start refresh. Its
   * user asks for reduced motion, as the theme honours (the last test checks both
   * preferences): axe and the 390-px check read the same page either way, and Chromium then
   * draws no spinner or skeleton frames while a page loads (the walk took 12 % less CPU,
   * decision 0277).
   */
  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: DESKTOP, reducedMotion: 'reduce' });
    contexts.push(context);
    await context.addInitScript((key) => {
      try {
        localStorage.setItem(key, '1');
      } catch {
        // about:blank has no storage.
      }
    }, SKIP_REFRESH_ON_START_KEY);
    return watchPage(await context.newPage());
  }

  async function visit(page: Page, url: string) {
    visitBegun = Date.now();
    await page.goto(url);
  }

  /** Waits until the page's own API calls have answered and nothing on it is still loading. */
  async function settle(page: Page, label: string) {
    await page.waitForLoadState('load');
    const busy = async () =>
      openApiCalls(page) +
      (await page.evaluate(
        (selector) => document.querySelectorAll(selector).length,
        BUSY_SELECTOR,
      ));
    try {
      await expect.poll(busy, { interval: 100, timeout: 20_000 }).toBe(0);
    } catch {
      // A page may keep a spinner on purpose (a callback without its parameters): check it as it is.
      console.warn(`${label}: still busy after 20 s; checked as shown`);
    }
    await expect.poll(() => openApiCalls(page), { interval: 50 }).toBe(0);
  }

  /** Runs axe on the page as shown, then measures its width at 390 px; returns what failed. */
  async function check(page: Page, who: string, route: RouteEntry, view = ''): Promise<Problem[]> {
    const label = `${who} ${route.path}${view}`;
    const loaded = Date.now();
    await settle(page, label);
    pagesChecked += 1;
    const landed = new URL(page.url()).pathname;
    const problems: Problem[] = [];
    if (landed === route.path) {
      if (!shownAt.has(route.path)) shownAt.set(route.path, new Set());
      shownAt.get(route.path)!.add(who);
    }
    const where = `${route.path}${view}${landed === route.path ? '' : ` (shown at ${landed})`}`;
    const settled = Date.now();
    const result = await runAxe(page);
    for (const violation of result.violations) {
      if (violation.impact !== 'serious' && violation.impact !== 'critical') continue;
      seriousByRule.set(violation.id, (seriousByRule.get(violation.id) ?? 0) + 1);
      const targets = violation.nodes
        .slice(0, 5)
        .map(
          (node) =>
            `${node.target.join(' ')}${node.any[0]?.message ? ` — ${node.any[0].message}` : ''}`,
        );
      problems.push({
        who,
        path: where,
        what: `axe ${violation.impact} ${violation.id} (${violation.help}), ${violation.nodes.length} node(s):\n      ${targets.join('\n      ')}`,
      });
    }
    const shot = (width: number) =>
      SCREENSHOTS &&
      page.screenshot({
        path: path.join(
          SCREENSHOTS,
          `${who}${route.path.replace(/\W+/g, '_')}${view.replace(/\W+/g, '_')}-${width}.png`,
        ),
        fullPage: true,
      });
    await shot(DESKTOP.width);
    const axed = Date.now();

    await page.setViewportSize(PHONE);
    await settle(page, `${label} at 390 px`);
    // Layout after the resize: two frames, so resize observers (charts) have run.
    const widths = await page.evaluate(
      () =>
        new Promise<{ scroll: number; viewport: number; widest: string }>((resolve) =>
          requestAnimationFrame(() =>
            requestAnimationFrame(() => {
              const viewport = window.innerWidth;
              const scroll = document.documentElement.scrollWidth;
              // On overflow: the outermost element that reaches furthest right, to name the culprit.
              let widest = '';
              let right = viewport;
              if (scroll > viewport)
                for (const element of Array.from(document.body.querySelectorAll('*'))) {
                  const box = element.getBoundingClientRect();
                  if (box.right <= right + 0.5) continue;
                  right = box.right;
                  const id = element.getAttribute('data-testid');
                  const className =
                    typeof element.className === 'string' ? element.className.split(' ')[0] : '';
                  widest = `${element.tagName.toLowerCase()}${id ? `[data-testid=${id}]` : ''}${className ? `.${className}` : ''} (right edge ${Math.round(box.right)})`;
                }
              resolve({ scroll, viewport, widest });
            }),
          ),
        ),
    );
    if (widths.scroll > widths.viewport)
      problems.push({
        who,
        path: where,
        what: `overflows sideways at 390 px: scrollWidth ${widths.scroll} > ${widths.viewport}; widest: ${widths.widest}`,
      });
    await shot(PHONE.width);
    await page.setViewportSize(DESKTOP);
    // Printed as found: a failing role's test otherwise says only its first problem until the end.
    for (const problem of problems) console.warn(`${problem.who} ${problem.path}: ${problem.what}`);
    if (TIMING)
      console.log(
        `${label}: load ${loaded - visitBegun} ms, settle ${settled - loaded}, axe ${axed - settled}, 390 px ${Date.now() - axed}`,
      );
    return problems;
  }

  const report = (problems: Problem[]) =>
    problems.map((problem) => `${problem.who} ${problem.path}: ${problem.what}`).join('\n');

  /**
   * Ends a sign-in begun with the password. The code page the rounds opened mailed a code;
   * opening it again would mail another (and the server mails 5 codes per 15 minutes to one
   * address, for four roles here), so the code goes into the validate page's form, which
   * takes an emailed code as well as an authenticator's.
   */
  async function enterEmailedCode(page: Page, account: Account, since: number) {
    const mailed = () =>
      smtp.received
        .slice(since)
        .reverse()
        .find((received) => received.to.includes(account.username));
    await expect
      .poll(() => mailed() !== undefined, { message: `a code mailed to ${account.username}` })
      .toBe(true);
    const code = /\b(\d{6})\b/.exec(mailed()!.body)![1]!;
    await page.goto(`${server.baseUrl}/SFAValidatePage`);
    await page.getByTestId('sfa-code').fill(code);
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.getByTestId('dashboard-page').waitFor({ timeout: 60_000 });
  }

  /**
   * Asks for one small export, so /DataExport's My Exports table has a row to lay out (it
   * pushed a phone's page 360 px sideways, issue 30); the demo has no exports of its own.
   */
  async function requestExport(page: Page, who: string) {
    const get = async (url: string) => {
      const answer = await apiFromPage(page, 'GET', url);
      expect(answer.status, `${who}: GET ${url} (for My Exports' row)`).toBe(200);
      return answer.body;
    };
    const [trial] = exportTrialSchema.array().parse(await get('/api/dataExport/trials'));
    const devices = exportDeviceSchema.array().parse(await get('/api/dataExport/devices'));
    const yesterday = new Date(Date.now() - 24 * 3600_000).toISOString().slice(0, 10);
    for (const device of devices) {
      const [participant] = exportParticipantSchema
        .array()
        .parse(await get(`/api/dataExport/trials/${trial!.trialId}/participants/${device.id}`));
      // A metric the team stores: the others are refused (issue 28: no file is silently empty).
      const metric = exportMetricSchema
        .array()
        .parse(await get(`/api/dataExport/metrics/${device.id}`))
        .find((candidate) => candidate.stored !== false);
      if (!participant || !metric) continue;
      const answer = await apiFromPage(page, 'POST', '/api/dataExport/batchDataExport', {
        trialId: trial!.trialId,
        deviceId: device.id,
        participantIds: [participant.participantId],
        startDate: yesterday,
        endDate: yesterday,
        metrics: [metric.metric_key],
        fileName: `${participant.participantCode} ${metric.metric_name} ${who} accessibility walk`,
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return;
    }
    throw new Error(`${who}: no device of ${trial!.trialNumber} with a participant and a metric`);
  }

  it('public pages, signed out', async () => {
    const page = await newPage();
    const problems: Problem[] = [];
    for (const route of PUBLIC_ROUTES) {
      await visit(page, `${server.baseUrl}${route.path}`);
      problems.push(...(await check(page, 'signed-out', route)));
    }
    expect(problems, report(problems)).toEqual([]);
  }, 600_000);

  for (const role of ROLES) {
    it(`every page ${role} may open`, async () => {
      const page = await newPage();
      const problems: Problem[] = [];
      const account = ACCOUNTS[role];

      // Second-factor pages: signed in with the password, before the code.
      const mailsBefore = smtp.received.length;
      await logIn(page, server.baseUrl, account);
      await page.waitForURL(/\/SFA\w+Page$/);
      // Which of them the guard lets show depends on the step reached (the code page sends a
      // code, after which the validate page opens): a second round retries those not shown.
      for (const round of [1, 2])
        for (const route of STAFF_ROUTES.filter(isSecondFactorPage)) {
          if (round === 2 && shownAt.get(route.path)?.has(role)) continue;
          await visit(page, `${server.baseUrl}${route.path}`);
          problems.push(...(await check(page, role, route)));
        }
      await enterEmailedCode(page, account, mailsBefore);

      // The demo trials and participants this role sees, to open the pages that need one.
      const opened = new Map<string, { participant: unknown; trial: unknown }>();
      const trials = (await apiFromPage(page, 'GET', '/api/userTrials/')).body as {
        trialId: number;
      }[];
      for (const trial of trials) {
        const list = (await apiFromPage(page, 'GET', `/api/trialParticipants/${trial.trialId}`))
          .body as { participant_code: string }[];
        for (const participant of list)
          opened.set(participant.participant_code, { participant, trial });
      }
      const open = async (pathname: string, code: string) => {
        const entry = opened.get(code);
        expect(entry, `${role} sees ${code}`).toBeDefined();
        await page.evaluate((value) => {
          localStorage.setItem('tp.currentParticipant', JSON.stringify(value.participant));
          localStorage.setItem('tp.currentTrial', JSON.stringify(value.trial));
        }, entry!);
        await visit(page, `${server.baseUrl}${pathname}`);
      };

      if (STAFF_ROUTES.find((route) => route.path === PATHS.dataExport)?.roles?.includes(role))
        await requestExport(page, role);
      for (const route of STAFF_ROUTES) {
        if (isSecondFactorPage(route) || !route.roles!.includes(role)) continue;
        await open(route.path, participantFor(route));
        problems.push(...(await check(page, role, route)));
      }
      for (const view of EXTRA_VIEWS) {
        const route = STAFF_ROUTES.find((entry) => entry.path === view.path)!;
        if (!route.roles!.includes(role)) continue;
        await open(view.path, view.participant);
        await settle(page, `${role} ${view.path} ${view.participant}`);
        await view.open?.(page);
        problems.push(...(await check(page, role, route, ` (${view.participant})`)));
      }
      expect(problems, report(problems)).toEqual([]);
    }, 900_000);
  }

  it('ends motion at once for a user whose system asks for less (WCAG 2.3.3)', async () => {
    /** Seconds of each duration in a computed `0.25s, 0.25s` list. */
    const seconds = (list: string) => list.split(',').map((value) => parseFloat(value));
    /** While Log In is held down: its ripple's animation and the button's transitions, as computed. */
    const heldButton = async (reducedMotion: 'reduce' | 'no-preference') => {
      const context = await browser.newContext({ viewport: DESKTOP, reducedMotion });
      contexts.push(context);
      const page = watchPage(await context.newPage());
      await page.goto(`${server.baseUrl}${PATHS.login}`);
      const button = page.getByRole('button', { name: 'Log In' });
      await button.hover();
      await page.mouse.down();
      // The ripple stays while the button is held, however busy the machine is.
      const ripple = button.locator('.MuiTouchRipple-rippleVisible');
      await ripple.waitFor({ state: 'attached' });
      const computed = {
        ripple: seconds(
          await ripple.evaluate((element) => getComputedStyle(element).animationDuration),
        ),
        button: seconds(
          await button.evaluate((element) => getComputedStyle(element).transitionDuration),
        ),
      };
      await page.mouse.up();
      return computed;
    };
    const moving = await heldButton('no-preference');
    const still = await heldButton('reduce');
    // MUI's own timings without the preference (550 ms ripple, 250 ms colour change)...
    expect(Math.min(...moving.ripple, ...moving.button)).toBeGreaterThanOrEqual(0.2);
    // ...and with it, nothing that lasts as long as a frame.
    expect(Math.max(...still.ripple, ...still.button)).toBeLessThan(0.001);
  });

  it('showed every route at its own path, to every role that may open it', () => {
    const missing: string[] = [];
    for (const route of ROUTES as readonly RouteEntry[]) {
      const wanted = route.roles ?? ['signed-out'];
      const shown = shownAt.get(route.path) ?? new Set();
      const notShown = wanted.filter((who) => !shown.has(who));
      if (notShown.length) missing.push(`${route.path}: not shown to ${notShown.join(', ')}`);
    }
    expect(missing).toEqual([]);
  });
});
