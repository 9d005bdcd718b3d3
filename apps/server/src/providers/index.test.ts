import { describe, expect, it } from 'vitest';
import { DEVICE_BRANDS, DEVICE_MESSAGES, type CompletenessThresholds } from '@trialpulse/shared';
import { loadConfig } from '../config/env';
import { providerErrorFromResponse } from '../modules/devices/core/provider-errors';
import { providerSettingsFromConfig } from '../modules/devices/core/provider-settings';
import { BRAND_COMPLETENESS, PROVIDER_PLUGINS, readingBound, type CompletenessMeasures } from '.';

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
const rule = (brand: string) => BRAND_COMPLETENESS.find((candidate) => candidate.brand === brand)!;

describe('provider registry: what the rest of the server asks of a brand', () => {
  it("names each upstream's API in its client's errors by the plugin's label", () => {
    const settings = providerSettingsFromConfig(
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
});
