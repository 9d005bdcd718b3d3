import { describe, expect, it } from 'vitest';
import { DEVICE_BRANDS, DEVICE_MESSAGES, type CompletenessThresholds } from '@trialpulse/shared';
import { loadConfig } from '../config/env';
import { providerErrorFromResponse } from '../modules/devices/core/provider-errors';
import { providerSettingsFromConfig } from '../modules/devices/core/provider-settings';
import { readingDevice, READING_DEVICE_SQL } from '../modules/sync/reading-device';
import {
  BRAND_COMPLETENESS,
  BRAND_READING_DEVICES,
  PROVIDER_PLUGINS,
  readingBound,
  type CompletenessMeasures,
} from '.';

const THRESHOLDS: CompletenessThresholds = {
  minWearHours: 10,
  minCgmUsagePercent: 70,
  minBpReadingsPerDay: 2,
  maxDaysWithoutSync: 3,
};
const NONE: CompletenessMeasures = {
  wearMinutes: 0,
  cgmUsagePercent: 0,
  bpReadings: 0,
  weightReadings: 0,
};
/** Every upstream's client configuration, each provider configured in the environment. */
const everyUpstreamConfigured = () =>
  providerSettingsFromConfig(
    loadConfig({
      TRIALPULSE_MODE: 'test',
      DATA_DIR: '/tmp',
      APP_SECRET: 'x'.repeat(40),
      TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      PUBLIC_URL: 'https://trialpulse.example.org',
      FITBIT_CLIENT_ID: 'google-id',
      FITBIT_CLIENT_SECRET: 'google-secret',
      FITBIT_LEGACY_CLIENT_ID: 'legacy-id',
      OMRON_CLIENT_ID: 'omron-id',
      OMRON_CLIENT_SECRET: 'omron-secret',
      DEXCOM_CLIENT_ID: 'dexcom-id',
      DEXCOM_CLIENT_SECRET: 'dexcom-secret',
    }),
  );
const rule = (brand: string) => BRAND_COMPLETENESS.find((candidate) => candidate.brand === brand)!;

describe('provider registry: what the rest of the server asks of a brand', () => {
  it("names each upstream's API in its client's errors by the plugin's label", () => {
    const settings = everyUpstreamConfigured();
    const named = PROVIDER_PLUGINS.map((plugin) => {
      const config = settings[plugin.upstream]!;
      const error = providerErrorFromResponse(
        config,
        'api',
        new Response('', { status: 503 }),
        '',
        new Date('2026-11-20T10:00:00Z'),
      );
      return [plugin.upstream, config.label, error.message.split(' data API')[0]];
    });
    expect(named).toEqual([
      ['google-health', 'Google Health API', 'Google Health API'],
      ['fitbit-legacy', 'Fitbit Web API (legacy)', 'Fitbit Web API (legacy)'],
      ['omron', 'Omron API', 'Omron API'],
      ['dexcom', 'Dexcom API', 'Dexcom API'],
    ]);
  });

  it('has one completeness rule per brand, each with its own alert', () => {
    expect(BRAND_COMPLETENESS.map((candidate) => candidate.brand).sort()).toEqual(
      [...DEVICE_BRANDS].sort(),
    );
    expect(BRAND_COMPLETENESS.map((candidate) => candidate.alert.kind)).toEqual([
      'low_wear',
      'low_cgm',
      'low_bp',
    ]);
    expect(new Set(BRAND_COMPLETENESS.map((candidate) => candidate.measure)).size).toBe(3);
  });

  it("checks a day by each brand's rule (decision 0050)", () => {
    const fitbit = rule('Fitbit');
    expect(fitbit.day({ ...NONE, wearMinutes: 599 }, THRESHOLDS)).toEqual({
      hasData: true,
      passes: false,
    });
    expect(fitbit.day({ ...NONE, wearMinutes: 600 }, THRESHOLDS).passes).toBe(true);
    const dexcom = rule('Dexcom');
    expect(dexcom.day({ ...NONE, cgmUsagePercent: 69.9 }, THRESHOLDS)).toEqual({
      hasData: true,
      passes: false,
    });
    expect(dexcom.day(NONE, THRESHOLDS)).toEqual({ hasData: false, passes: false });
    const omron = rule('Omron');
    // A per-day number: weight does not count, and the digest alerts on too few.
    expect(omron.day({ ...NONE, bpReadings: 1, weightReadings: 3 }, THRESHOLDS)).toEqual({
      hasData: true,
      passes: false,
    });
    expect(omron.day({ ...NONE, weightReadings: 1 }, THRESHOLDS).hasData).toBe(false);
    expect(omron.alert.applies?.(THRESHOLDS)).toBe(true);
    // No number: any Omron reading makes the day, and there is nothing to alert on.
    const noNumber = { ...THRESHOLDS, minBpReadingsPerDay: 0 };
    expect(omron.day({ ...NONE, weightReadings: 1 }, noNumber)).toEqual({
      hasData: true,
      passes: true,
    });
    expect(omron.day(NONE, noNumber)).toEqual({ hasData: false, passes: false });
    expect(omron.alert.applies?.(noNumber)).toBe(false);
  });

  it("has the callback check the participant's email for Dexcom only (device-data spec §8)", () => {
    const checked = PROVIDER_PLUGINS.filter((plugin) => plugin.linking?.emailCheck).map(
      (plugin) => [plugin.brand, plugin.linking!.emailCheck!.mismatch],
    );
    expect(checked).toEqual([['Dexcom', DEVICE_MESSAGES.dexcomEmailMismatch]]);
  });

  it("reads a sensor's reporting bound from Dexcom's status only (decision 0183)", () => {
    const egv = (status: unknown) => ({ metricKey: 'egv', valueJson: { status } });
    expect(readingBound(egv('low'))).toBe('<');
    expect(readingBound(egv('HIGH'))).toBe('>');
    expect(readingBound(egv('ok'))).toBeNull();
    expect(readingBound(egv(undefined))).toBeNull();
    expect(readingBound({ metricKey: 'egv', valueJson: null })).toBeNull();
    expect(readingBound({ metricKey: 'weight', valueJson: { status: 'low' } })).toBeNull();
  });

  it('answers a 410 Gone with the way back its plugin declares (legacy Fitbit: Google Health)', () => {
    const settings = everyUpstreamConfigured();
    const gone = PROVIDER_PLUGINS.map((plugin) => {
      const error = providerErrorFromResponse(
        settings[plugin.upstream]!,
        'token',
        new Response('', { status: 410 }),
        '',
        new Date('2026-11-20T10:00:00Z'),
      );
      return [plugin.upstream, error.constructor.name, error.message.split('; ')[1]];
    });
    expect(gone).toEqual([
      ['google-health', 'ProviderGoneError', 'consent again.'],
      ['fitbit-legacy', 'ProviderGoneError', 'consent again through Google Health.'],
      ['omron', 'ProviderGoneError', 'consent again.'],
      ['dexcom', 'ProviderGoneError', 'consent again.'],
    ]);
  });

  it("names a reading's device by its brand's rule (decision 0186), one rule per brand", () => {
    expect(BRAND_READING_DEVICES.map((candidate) => candidate.brand).sort()).toEqual(
      [...DEVICE_BRANDS].sort(),
    );
    const named = (brand: string, dataSource: string | null, valueJson: unknown = {}) =>
      readingDevice({ upstream: 'omron', brand, dataSource, valueJson });
    expect(named('Fitbit', 'Fitbit Charge 6')).toBe('Fitbit Fitbit Charge 6');
    expect(named('Fitbit', 'fitbit-web-api')).toBe('Fitbit');
    expect(named('Omron', 'HEM-7600T')).toBe('Omron HEM-7600T');
    expect(named('Omron', '')).toBe('Omron');
    // A Dexcom transmitter id is the data source, not a model: generation and display instead.
    expect(named('Dexcom', '80AB12', { generation: 'g6', displayDevice: 'iOS' })).toBe(
      'Dexcom G6 (display: iOS)',
    );
    expect(named('Dexcom', '80AB12', { generation: '' })).toBe('Dexcom');
    // The SQL twin has one branch per brand, from the same rules.
    for (const { brand, sql } of BRAND_READING_DEVICES) {
      expect(READING_DEVICE_SQL).toContain(`when r.brand = '${brand}' then ${sql}`);
    }
  });
});
