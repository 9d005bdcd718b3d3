import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { METRICS_MESSAGES } from '@trialpulse/shared';
import type { Db } from '../apps/server/src/db/client';
import { teams } from '../apps/server/src/db/schema';
import { DEMO_TEAM_NAMES } from '../apps/server/src/db/seed/demo-seed';
import { createMetricsRepository } from '../apps/server/src/modules/metrics/metrics.repository';
import { screenshotPath } from './support/browser';
import { startBrowserSession, type BrowserSession } from './support/browser-session';
import { DEMO, apiFromPage, logOut } from './support/session';
import { checkSurely } from './support/click';

/**
 * The Fitbit tracker's storage settings these scenarios start from, whatever the demo seed
 * enables (the sync demo keeps more): the system administrator has enabled seven metrics
 * (not calories, not VO2 max), the team keeps three of them.
 */
const TRACKER_START = {
  enabled: [
    'steps',
    'distance',
    'floors',
    'heart_rate',
    'resting_heart_rate',
    'sleep_duration',
    'spo2',
  ],
  kept: ['steps', 'resting_heart_rate', 'sleep_duration'],
};

/** Writes TRACKER_START for the demo team's 'Fitbit Smartwatches & Trackers' through the metrics repository. */
async function setTrackerStart(db: Db) {
  const repository = createMetricsRepository(db);
  const [team] = await db
    .select({ id: teams.id })
    .from(teams)
    .where(eq(teams.teamName, DEMO_TEAM_NAMES.active));
  const device = (await repository.storageDevices(team!.id)).find(
    (row) => row.device_name === 'Fitbit Smartwatches & Trackers',
  )!;
  const catalog = await repository.catalog('TRACKER');
  const metric = (key: string) => catalog.find((row) => row.metric_key === key)!;
  await repository.transaction(async (tx) => {
    await repository.replaceDeviceSettings(
      tx,
      team!.id,
      device.team_supported_device_id,
      TRACKER_START.enabled.map((key) => ({
        metricCatalogId: metric(key).id,
        metricKey: key,
        metricName: metric(key).metric_name,
        metricUnits: metric(key).units,
        isEnabled: true,
        retentionDays: 365,
      })),
    );
    const ids = [device.team_supported_device_id];
    for (const selection of await repository.teamSelections(team!.id, ids, tx)) {
      await repository.deleteSelections(tx, team!.id, ids, selection.metricKey);
    }
    for (const key of TRACKER_START.kept) {
      await repository.upsertSelection(tx, {
        teamId: team!.id,
        deviceId: device.team_supported_device_id,
        metricCatalogId: metric(key).id,
        metricKey: key,
        metricName: metric(key).metric_name,
        units: metric(key).units,
        retentionDays: 365,
      });
    }
  });
}

/**
 * Device Metrics Manager (Sys_Admin), Team Data Retention (the team's Admin) and the
 * Database Info tables in Chromium, against the demo data with the tracker's storage
 * settings set to TRACKER_START.
 */
describe('data governance pages in the browser', () => {
  let session: BrowserSession;
  let page: Page;

  beforeAll(async () => {
    session = await startBrowserSession({ prepare: setTrackerStart });
    ({ page } = session);
  });
  afterAll(() => session?.close());

  /** Picks an option of an MUI select by its test id. */
  async function choose(selectTestId: string, option: string | RegExp) {
    await page.getByTestId(selectTestId).click();
    await page.getByRole('option', { name: option }).click();
  }

  const settingsOf = async (teamId: number, deviceId: number) =>
    (
      await apiFromPage(
        page,
        'GET',
        `/api/deviceSettings/enhanced/deviceSettings/${teamId}/${deviceId}`,
      )
    ).body as { metric_key: string; is_enabled: boolean; retention_days: number }[];

  let teamId: number;
  let devices: { id: number; device_name: string }[];
  const deviceId = (name: string) => devices.find((device) => device.device_name === name)!.id;

  it('Sys_Admin enables metrics for a team device in the available-metrics mode', async () => {
    await session.signIn(DEMO.sysAdmin);
    await page.getByRole('button', { name: 'Sys Admin' }).click();
    await page.getByTestId('nav-device-metrics').click();
    await page.getByTestId('instructions-panel').waitFor();
    expect(await page.getByTestId('page-title').textContent()).toBe('Device Metrics Manager');

    const teams = (await apiFromPage(page, 'GET', '/api/sysAdminTeamsData')).body as {
      team_id: number;
      team_name: string;
    }[];
    teamId = teams.find((team) => team.team_name === 'Demo Research Team')!.team_id;
    devices = (
      await apiFromPage(page, 'GET', `/api/sysAdminTeamSupportedDevicesData?team_id=${teamId}`)
    ).body;

    // The device dropdown waits for a team.
    expect(await page.getByTestId('device-select').getAttribute('aria-disabled')).toBe('true');
    await choose('team-select', `Demo Research Team (ID: ${teamId})`);
    await choose('device-select', /^Fitbit Smartwatches & Trackers \(Catalog ID: \d+\)$/);
    await page.getByTestId('available-metrics').waitFor();
    expect(await page.getByTestId('available-select-all').locator('input').isChecked()).toBe(false);
    expect(await page.getByTestId('available-select-all').getAttribute('class')).toContain(
      'MuiCheckbox-indeterminate',
    );

    await page.getByTestId('available-check-calories').click();
    await page.getByTestId('available-check-spo2').click();
    expect(await page.getByTestId('unsaved-counts').textContent()).toBe(
      'Unsaved changes: 1 new, 1 removed',
    );
    // Cancel restores the stored selection.
    await page.getByTestId('cancel-changes').click();
    expect(await page.getByTestId('available-check-spo2').locator('input').isChecked()).toBe(true);
    await page.getByTestId('available-check-calories').click();
    await page.getByTestId('available-check-spo2').click();
    await page.getByTestId('save-changes').click();
    await expect
      .poll(async () =>
        (await settingsOf(teamId, deviceId('Fitbit Smartwatches & Trackers')))
          .map((row) => row.metric_key)
          .sort(),
      )
      .toEqual([
        'calories',
        'distance',
        'floors',
        'heart_rate',
        'resting_heart_rate',
        'sleep_duration',
        'steps',
      ]);
    await expect
      .poll(() => page.getByTestId('unsaved-counts').textContent())
      .toBe('No unsaved changes');
    expect(await page.getByTestId('available-row-calories').textContent()).toContain('Yes');
  });

  it('Sys_Admin edits rows inline in the settings mode: validation, NEW rows, bulk actions, dialogs', async () => {
    const manual = deviceId('Omron manual readings');
    await choose('device-select', /^Omron manual readings/);
    await page.getByTestId('device-settings').waitFor();
    await page.getByText(METRICS_MESSAGES.noMetricsForDevice).waitFor();

    await page.getByTestId('add-metric-row').click();
    await page.getByTestId('new-marker').waitFor();
    await page.getByTestId('save-changes').click();
    await page.getByTestId('metrics-banner').getByText(METRICS_MESSAGES.fixValidation).waitFor();
    await page.getByText(METRICS_MESSAGES.metricNameRequired).waitFor();
    expect(await settingsOf(teamId, manual)).toEqual([]);

    // The dropdown is searchable and grouped by device type.
    await page.getByTestId('metric-picker-new-1').fill('Systolic');
    await page.getByRole('option', { name: 'Systolic Blood Pressure' }).click();
    expect(await page.getByText(METRICS_MESSAGES.metricNameRequired).count()).toBe(0);
    await page.getByTestId('retention-input-new-1').fill('0');
    await page.getByTestId('save-changes').click();
    await page.getByText(METRICS_MESSAGES.retentionMin).waitFor();
    await page.getByTestId('retention-input-new-1').fill('45');
    expect(await page.getByText(METRICS_MESSAGES.retentionMin).count()).toBe(0);

    await page.getByTestId('add-metric-row').click();
    await page.getByTestId('metric-picker-new-2').fill('Pulse');
    await page.getByRole('option', { name: 'Pulse', exact: true }).click();
    // A metric used in another row is not offered again.
    await page.getByTestId('add-metric-row').click();
    await page.getByTestId('metric-picker-new-3').fill('Systolic');
    await page.getByText(METRICS_MESSAGES.noMetricsFound, { exact: true }).waitFor();
    await page.getByTestId('cancel-row-new-3').click();
    expect(await page.getByTestId('unsaved-counts').textContent()).toBe('Unsaved changes: 2 new');
    await page.getByTestId('save-changes').click();
    await page.getByTestId('setting-row-systolic').waitFor();
    expect(
      (await settingsOf(teamId, manual)).map((row) => [
        row.metric_key,
        row.retention_days,
        row.is_enabled,
      ]),
    ).toEqual([
      ['systolic', 45, true],
      ['pulse', 30, true],
    ]);
    await page.screenshot({ path: screenshotPath('device-metrics-settings'), fullPage: true });

    // Inline edit of a stored row.
    await page.getByTestId('edit-row-pulse').click();
    await page.getByTestId('retention-input-pulse').fill('60');
    expect(await page.getByTestId('unsaved-counts').textContent()).toBe(
      'Unsaved changes: 1 edited',
    );
    await page.getByTestId('save-changes').click();
    await expect
      .poll(
        async () =>
          (await settingsOf(teamId, manual)).find((row) => row.metric_key === 'pulse')!
            .retention_days,
      )
      .toBe(60);

    // Bulk disable, then enable: the full list with changed flags.
    await page.getByTestId('setting-check-systolic').click();
    await page.getByTestId('setting-check-pulse').click();
    await page.getByTestId('bulk-set-status').click();
    await page.getByTestId('bulk-disable').click();
    await expect.poll(() => page.getByTestId('setting-enabled-pulse').textContent()).toBe('No');
    expect((await settingsOf(teamId, manual)).every((row) => !row.is_enabled)).toBe(true);
    await page.getByTestId('setting-check-pulse').click();
    await page.getByTestId('bulk-set-status').click();
    await page.getByTestId('bulk-enable').click();
    await expect.poll(() => page.getByTestId('setting-enabled-pulse').textContent()).toBe('Yes');
    expect(await page.getByTestId('setting-enabled-systolic').textContent()).toBe('No');

    // Delete Selected and the single delete, each behind its dialog.
    await page.getByTestId('setting-check-systolic').click();
    await page.getByTestId('bulk-delete').click();
    await page.getByRole('dialog', { name: METRICS_MESSAGES.deleteSettingsTitle }).waitFor();
    await page.getByTestId('confirm-delete').click();
    await expect
      .poll(async () => (await settingsOf(teamId, manual)).map((row) => row.metric_key))
      .toEqual(['pulse']);
    await page.getByTestId('delete-row-pulse').click();
    await page.getByRole('dialog', { name: METRICS_MESSAGES.deleteSettingTitle }).waitFor();
    await page.getByTestId('confirm-delete').click();
    await page.getByText(METRICS_MESSAGES.noMetricsForDevice).waitFor();
    expect(await settingsOf(teamId, manual)).toEqual([]);
  });

  it('the Database Info participant table pages through 120 rows 50 at a time and filters', async () => {
    const trials = (await apiFromPage(page, 'GET', '/api/userTrials/')).body as {
      trialId: number;
      trialNumber: string;
    }[];
    const trial = trials.find((entry) => entry.trialNumber === 'TP-2026-003')!;
    const existing = (await apiFromPage(page, 'GET', '/api/sysAdminParticipantsData?pageSize=10'))
      .body.total as number;
    for (let index = existing; index < 120; index += 1) {
      const added = await apiFromPage(page, 'POST', '/api/trialParticipants', {
        trialId: trial.trialId,
        gender: 'none',
        codeSuffix: String(500 + index),
      });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
    }
    await page.getByRole('button', { name: 'Sys Admin' }).click();
    await page.getByTestId('nav-db-info').click();
    await page.getByRole('tab', { name: 'Database tables' }).click();
    await choose('database-table-select', 'Participant Table');
    const table = page.getByTestId('sys-admin-table-participants');
    const rows = () => table.locator('tbody tr').count();
    await expect.poll(rows).toBe(50);
    expect(await page.getByTestId('sys-admin-total-participants').textContent()).toBe('120 rows');
    expect(await table.locator('tbody tr').first().locator('td').first().textContent()).toBe('1');
    await page.getByRole('button', { name: /next page/i }).click();
    await expect
      .poll(() => table.locator('tbody tr').first().locator('td').first().textContent())
      .toBe('51');
    expect(await rows()).toBe(50);
    await page.getByRole('button', { name: /next page/i }).click();
    await expect.poll(rows).toBe(20);
    expect(await table.locator('tbody tr').last().locator('td').first().textContent()).toBe('120');

    await page.getByTestId('sys-admin-search-participants').fill('Home Weight Monitoring');
    await expect
      .poll(() => page.getByTestId('sys-admin-total-participants').textContent())
      .toBe(`${120 - 5} rows`);
    await page.getByTestId('sys-admin-search-participants').fill('sleep.001@');
    await expect.poll(rows).toBe(1);
    await page.screenshot({ path: screenshotPath('db-info-participants'), fullPage: true });
  });

  it("the team's Admin selects among the enabled metrics on the retention page", async () => {
    await logOut(page);
    await session.signIn(DEMO.admin);
    await page.getByTestId('nav-data-management').click();
    await page.getByTestId('team-data-retention-page').waitFor();
    expect(await page.getByTestId('page-title').textContent()).toBe(
      'Data Storage & Retention Settings',
    );
    await expect
      .poll(() => page.getByTestId('team-retention').textContent())
      .toBe('Retention: 365 days (1.0 years)');

    await choose('retention-device-select', 'Fitbit Smartwatches & Trackers (TRACKER)');
    await page.getByTestId('retention-row-calories').waitFor();
    // Only what the Sys_Admin enabled: spo2 was switched off, VO2 max never enabled.
    expect(await page.getByTestId('retention-row-spo2').count()).toBe(0);
    expect(await page.getByTestId('retention-row-vo2_max').count()).toBe(0);
    expect(await page.getByTestId('enabled-count').textContent()).toBe('3 of 7 metrics enabled');

    await page.getByTestId('retention-check-calories').click();
    expect(await page.getByTestId('enabled-count').textContent()).toBe('4 of 7 metrics enabled');
    await page.getByTestId('save-retention').click();
    await page.getByText(METRICS_MESSAGES.changesSaved).waitFor();
    const selections = async () =>
      (
        await apiFromPage(
          page,
          'GET',
          `/api/dataStorageService/team/${teamId}/device/TRACKER/selections`,
        )
      ).body as {
        metric_key: string;
        is_enabled: boolean;
      }[];
    expect(
      (await selections())
        .filter((row) => row.is_enabled)
        .map((row) => row.metric_key)
        .sort(),
    ).toEqual(['calories', 'resting_heart_rate', 'sleep_duration', 'steps']);

    // A removal says first what the next purge deletes.
    await page.getByTestId('retention-check-steps').click();
    await page.getByTestId('save-retention').click();
    await expect
      .poll(() => page.getByTestId('purge-count-steps').textContent())
      .toMatch(/^Steps: \d+ stored readings? will be deleted$/);
    await page.screenshot({ path: screenshotPath('retention-removal'), fullPage: true });
    await page.getByTestId('confirm-removal').click();
    await expect
      .poll(async () => (await selections()).find((row) => row.metric_key === 'steps')!.is_enabled)
      .toBe(false);
    await page.getByText(METRICS_MESSAGES.changesSaved).waitFor();

    // Discard restores the stored set.
    await page.getByTestId('retention-check-floors').click();
    await page.getByTestId('discard-changes').click();
    expect(await page.getByTestId('retention-check-floors').locator('input').isChecked()).toBe(
      false,
    );

    // The Admin cannot use the Sys_Admin calls.
    expect((await apiFromPage(page, 'GET', '/api/sysAdminTeamsData')).status).toBe(403);
  });

  it("the team's Admin registers a pipeline client, which gets a token with its key until revoked (issue 31)", async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES384', { extractable: true });
    const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'e2e-1' }] });
    const smart = (await (
      await fetch(`${session.server.baseUrl}/fhir/.well-known/smart-configuration`)
    ).json()) as { token_endpoint: string };
    expect(smart.token_endpoint).toBe(`${session.server.baseUrl}/fhir/auth/token`);
    /** The pipeline's token request, signed with its private key (SMART Backend Services). */
    const requestToken = async (clientId: string) => {
      const now = Math.floor(Date.now() / 1000);
      const assertion = await new SignJWT({ jti: randomUUID() })
        .setProtectedHeader({ alg: 'ES384', kid: 'e2e-1', typ: 'JWT' })
        .setIssuer(clientId)
        .setSubject(clientId)
        .setAudience(smart.token_endpoint)
        .setIssuedAt(now)
        .setExpirationTime(now + 240)
        .sign(privateKey);
      const response = await fetch(smart.token_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          scope: 'system/Observation.rs system/Patient.rs',
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: assertion,
        }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };

    await page.getByTestId('nav-pipeline-clients').click();
    await page.getByTestId('backend-clients-page').waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Pipeline Clients');
    await page.getByTestId('backend-clients-endpoints').getByText(smart.token_endpoint).waitFor();

    await page.getByTestId('register-backend-client-button').click();
    const dialog = page.getByRole('dialog', { name: 'Register Client' });
    await dialog.getByLabel('Name').fill('Analysts R pipeline');
    await dialog.getByLabel('Public key (JWKS or PEM)').fill(jwks);
    await checkSurely(dialog.getByLabel('Observations (readings) (system/Observation.rs)'));
    await checkSurely(dialog.getByLabel('Patients (participants) (system/Patient.rs)'));
    await page.screenshot({ path: screenshotPath('pipeline-clients-register') });
    await dialog.getByRole('button', { name: 'Register' }).click();
    const registered = page.getByTestId('backend-client-registered');
    await registered.waitFor();
    const clientId = (await registered.locator('code').first().textContent())!;
    expect(clientId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    await page.getByRole('cell', { name: 'Analysts R pipeline', exact: true }).waitFor();
    await page.screenshot({ path: screenshotPath('pipeline-clients'), fullPage: true });

    const granted = await requestToken(clientId);
    expect([granted.status, granted.body.token_type, granted.body.scope]).toEqual([
      200,
      'bearer',
      'system/Observation.rs system/Patient.rs',
    ]);

    const clients = (await apiFromPage(page, 'GET', '/api/backendClients')).body as {
      id: number;
      clientId: string;
    }[];
    const id = clients.find((client) => client.clientId === clientId)!.id;
    await page.getByTestId(`backend-client-revoke-${id}`).click();
    await page
      .getByRole('dialog', { name: 'Revoke client?' })
      .getByRole('button', { name: 'Revoke' })
      .click();
    await page.getByTestId(`backend-client-revoked-${id}`).waitFor();
    await page.screenshot({ path: screenshotPath('pipeline-clients-revoked'), fullPage: true });
    const refused = await requestToken(clientId);
    expect([refused.status, refused.body.error]).toEqual([401, 'invalid_client']);
  });
});
