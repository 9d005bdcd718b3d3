/**
 * The one-day Fitbit view (issue 17), in one Chromium run against the built app served by
 * the real server (demo mode): the time to draw a whole day of 1-second heart rate (86,400
 * points) on /FitbitParticipant1DayData — from the data request to the first frame that
 * shows it — against plain ECharts drawing the same points on a bare page of the same
 * origin (same request, a line with LTTB sampling and zoom), goal ≤ 1.5×; and the login
 * route's JavaScript in KiB gzip (goal ≤ 250). Prints figures and ratios; asserts nothing.
 *
 * The day is the demo's GLUCO-001 yesterday on its Fitbit account's clock: 86,400 stored
 * 1-second samples (decision 0105), answered by the real data call from the store once the
 * sync's cursor covers the day (decision 0068) — the bench waits for the backfill as the
 * browser test does, and both sides draw that same server answer. If the server does not
 * answer the whole day the bench says so and stops: it never draws made-up data.
 * Settings: BENCH_ROUNDS (5).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Page, Response } from 'playwright-core';
import { civilDateIn } from '../apps/server/src/lib/civil-time';
import { startTestSmtpServer } from '../apps/server/src/modules/mail/test-support';
import { demoFitbitTimeZone } from '@trialpulse/provider-simulators/embedded';
import { launchBrowser, screenshotPath } from '../e2e/support/browser';
import { ROOT, startServer } from '../e2e/support/server';
import { DEMO, apiFromPage, signInWithEmailedCode } from '../e2e/support/session';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const GOAL = { ratio: 1.5, loginKiB: 250 };
// The web build the server serves (WEB_DIST_DIR, as the server reads it; else apps/web/dist).
const DIST = process.env.WEB_DIST_DIR ?? path.join(ROOT, 'apps/web/dist');
const ECHARTS = path.join(ROOT, 'node_modules/echarts/dist/echarts.min.js');

type Participant = { id: number; participant_code: string; email?: string | null };

async function main() {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    console.log('fitbit one-day: skipped (no web build: run `npm run build`)');
    return;
  }
  const smtp = await startTestSmtpServer();
  // Three days of backfill, as the browser test: the heart-rate cursor then covers the whole
  // of yesterday with the data call's 14-hour margin whatever the hour.
  const server = await startServer({ env: { SMTP_URL: smtp.url, SYNC_BACKFILL_DAYS: '3' } });
  const browser = await launchBrowser();
  try {
    // --- The login route's JavaScript, as a fresh browser loads it ------------------------
    const loginPage = await browser.newPage();
    const scripts = new Set<string>();
    loginPage.on('response', (response) => {
      const url = new URL(response.url());
      if (url.pathname.endsWith('.js')) scripts.add(url.pathname);
    });
    await loginPage.goto(`${server.baseUrl}/LoginPage`);
    await loginPage.getByTestId('login-page').waitFor({ timeout: 30_000 });
    await loginPage.waitForLoadState('networkidle');
    let gzipBytes = 0;
    for (const script of scripts)
      gzipBytes += zlib.gzipSync(fs.readFileSync(path.join(DIST, script)), { level: 9 }).length;
    // The data views' heavy libraries load on their routes only (issue 17).
    const heavyOnLogin = [...scripts].filter((script) => /echart|dnd|exceljs|xlsx/i.test(script));
    await loginPage.close();

    // --- The one-day page against plain ECharts --------------------------------------------
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await signInWithEmailedCode(page, server.baseUrl, DEMO.sysAdmin, smtp);
    const trials = (await apiFromPage(page, 'GET', '/api/userTrials/')).body as Array<{
      trialId: number;
    }>;
    let found: { participant: Participant; trial: unknown } | undefined;
    for (const trial of trials) {
      const list = (await apiFromPage(page, 'GET', `/api/trialParticipants/${trial.trialId}`))
        .body as Participant[];
      const participant = list.find((p) => p.participant_code === 'GLUCO-001');
      if (participant) found = { participant, trial };
    }
    if (!found) throw new Error('demo participant GLUCO-001 not found');
    const zone = demoFitbitTimeZone('GLUCO-001');
    if (!zone) throw new Error("GLUCO-001's Fitbit account has no time zone in the demo");
    const day = new Date(Date.parse(`${civilDateIn(zone, new Date())}T00:00:00Z`) - 86_400_000)
      .toISOString()
      .slice(0, 10);
    await waitForFitbitSync(page, found.participant.id);
    const email = found.participant.email?.trim() ? found.participant.email : 'hidden';
    const dataUrl = `/api/getFitbitServerParticipantData/${found.participant.id}/${encodeURIComponent(email)}/activities/heart/date/${day}/1d/1sec.json`;
    const real = await apiFromPage(page, 'GET', dataUrl);
    const realCount =
      (real.body as { 'activities-heart-intraday'?: { dataset?: unknown[] } } | null)?.[
        'activities-heart-intraday'
      ]?.dataset?.length ?? 0;
    if (real.status !== 200 || realCount !== 86_400) {
      console.log(
        `fitbit one-day: NOT measured — the server answered ${real.status} with ${realCount} points for ${day}, not the stored 86,400`,
      );
      process.exitCode = 1;
      return;
    }
    const source = `the server's stored day ${day} (${realCount.toLocaleString('en-US')} points)`;
    // The bare page: same origin (same cookies, same request), ECharts' own build, no app.
    const echartsSource = fs.readFileSync(ECHARTS, 'utf8');
    await page.route('**/__bench/plain-echarts', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/html',
        body: '<!doctype html><html><body><div id="chart" style="width:1300px;height:440px"></div><script src="/__bench/echarts.min.js"></script></body></html>',
      }),
    );
    await page.route('**/__bench/echarts.min.js', (route) =>
      route.fulfill({ status: 200, contentType: 'text/javascript', body: echartsSource }),
    );
    await page.evaluate((value) => {
      localStorage.setItem('tp.currentParticipant', JSON.stringify(value.participant));
      localStorage.setItem('tp.currentTrial', JSON.stringify(value.trial));
    }, found);

    const inPage: number[] = [];
    const plain: number[] = [];
    let points = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      // Alternate the order so neither side always runs on a warmer browser.
      const order = round % 2 === 0 ? ['page', 'plain'] : ['plain', 'page'];
      for (const which of order) {
        if (which === 'page') {
          const result = await drawInPage(
            page,
            `${server.baseUrl}/FitbitParticipant1DayData?day=${day}`,
          );
          inPage.push(result.ms);
          points = result.points;
        } else {
          plain.push(
            await drawPlain(page, `${server.baseUrl}/__bench/plain-echarts`, dataUrl, day),
          );
        }
      }
    }
    // The last page drawn, for a look; its heart-rate answer as it crossed the wire.
    const answer = page.waitForResponse((response) =>
      response.url().includes(`/activities/heart/date/${day}/1d/1sec.json`),
    );
    await drawInPage(page, `${server.baseUrl}/FitbitParticipant1DayData?day=${day}`);
    const wire = await wireSize(await answer);
    await page.screenshot({ path: screenshotPath('fitbit-one-day-bench'), fullPage: true });
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const ratio = median(inPage) / median(plain);
    console.log('\nFitbit one-day view (Chromium, one run):');
    console.log(`  data: ${source}`);
    console.log(`  points drawn by the page: ${points.toLocaleString('en-US')}`);
    console.log(
      `  answer on the wire: ${(wire.onWire / 1024).toFixed(0)} KiB (${wire.encoding}) of ${(wire.decoded / 1024 / 1024).toFixed(2)} MiB JSON, ${(wire.onWire / realCount).toFixed(2)} bytes a point on the wire`,
    );
    console.log(
      `  page  /FitbitParticipant1DayData: median ${median(inPage).toFixed(0)} ms (${inPage.map((v) => v.toFixed(0)).join(', ')})`,
    );
    console.log(
      `  plain ECharts, same points:       median ${median(plain).toFixed(0)} ms (${plain.map((v) => v.toFixed(0)).join(', ')})`,
    );
    console.log(
      `  ratio page / plain: ${ratio.toFixed(2)}× (goal ≤ ${GOAL.ratio}×) ${ratio <= GOAL.ratio ? 'met' : 'NOT met'}`,
    );
    console.log(
      `  login route JavaScript: ${scripts.size} files, ${(gzipBytes / 1024).toFixed(1)} KiB gzip (goal ≤ ${GOAL.loginKiB}) ${gzipBytes / 1024 <= GOAL.loginKiB ? 'met' : 'NOT met'}; ECharts, drag-and-drop or XLSX code on the login route: ${heavyOnLogin.length > 0 ? heavyOnLogin.join(', ') : 'none'}`,
    );
  } finally {
    await browser.close();
    await server.stop();
    await smtp.close();
  }
}

/**
 * The answer's size on the wire (the encoded body Chromium received, as compressed by the
 * server) and decoded, with its content encoding.
 */
async function wireSize(response: Response) {
  const sizes = await response.request().sizes();
  const headers = await response.allHeaders();
  return {
    onWire: sizes.responseBodySize,
    decoded: (await response.body()).length,
    encoding: headers['content-encoding'] ?? 'identity',
  };
}

/** Opens the page and reads what it measured: request start → first frame with the day. */
async function drawInPage(page: Page, url: string) {
  await page.goto(url);
  const handle = await page.waitForFunction(
    () => {
      const box = document.querySelector('[data-testid="one-day-chart-box"]');
      const ms = box?.getAttribute('data-draw-ms');
      return ms ? { ms: Number(ms), points: Number(box!.getAttribute('data-point-count')) } : null;
    },
    undefined,
    { timeout: 120_000 },
  );
  return (await handle.jsonValue())!;
}

/** A bare page of the same origin: ECharts loaded first, then request → parse → draw, timed alike. */
async function drawPlain(
  page: Page,
  blankUrl: string,
  dataUrl: string,
  day: string,
): Promise<number> {
  await page.goto(blankUrl);
  await page.waitForFunction(() => 'echarts' in window);
  return page.evaluate(
    async ({ dataUrl, day }) => {
      const echarts = (
        window as unknown as {
          echarts: {
            init(el: HTMLElement): {
              setOption(o: unknown): void;
              on(e: string, f: () => void): void;
            };
          };
        }
      ).echarts;
      const start = performance.now();
      const body = (await (await fetch(dataUrl)).json()) as {
        'activities-heart-intraday': { dataset: Array<{ time: string; value: number }> };
      };
      const midnight = Date.parse(`${day}T00:00:00Z`);
      const data = body['activities-heart-intraday'].dataset.map((point) => {
        const [h, m, s] = point.time.split(':').map(Number);
        return [midnight + (h! * 3600 + m! * 60 + s!) * 1000, point.value];
      });
      const chart = echarts.init(document.getElementById('chart')!);
      return new Promise<number>((resolve) => {
        chart.on('finished', () => resolve(performance.now() - start));
        chart.setOption({
          animation: false,
          useUTC: true,
          xAxis: { type: 'time' },
          yAxis: { type: 'value', scale: true },
          dataZoom: [{ type: 'inside' }, { type: 'slider' }],
          series: [{ type: 'line', data, showSymbol: false, sampling: 'lttb' }],
        });
      });
    },
    { dataUrl, day },
  );
}

/** Waits until the participant's Fitbit connection is up to date (the demo backfill done). */
async function waitForFitbitSync(page: Page, participantId: number) {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const answer = await apiFromPage(page, 'GET', `/api/deviceSync/participant/${participantId}`);
    const state = (
      answer.body as { connections?: { brand: string; state: string }[] } | null
    )?.connections?.find((status) => status.brand === 'Fitbit')?.state;
    if (state === 'up_to_date') return;
    if (Date.now() > deadline) throw new Error(`Fitbit sync still ${state} after 5 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

await main();
