import type { DeviceBrandName } from '@trialpulse/shared';
import type { ProviderUpstream } from '../modules/devices/core/provider-client';
import { dexcomCompleteness } from './dexcom/dexcom.completeness';
import { dexcomReadingBound } from './dexcom/dexcom-data';
import { dexcomPlugin } from './dexcom/dexcom.plugin';
import { dexcomReadingDevice } from './dexcom/dexcom.reading-device';
import { fitbitCompleteness } from './fitbit/fitbit.completeness';
import { fitbitReadingDevice } from './fitbit/fitbit.reading-device';
import { fitbitLegacyPlugin } from './fitbit-legacy/fitbit-legacy.plugin';
import { googleHealthPlugin } from './google-health/google-health.plugin';
import { omronCompleteness } from './omron/omron.completeness';
import { omronPlugin } from './omron/omron.plugin';
import { omronReadingDevice } from './omron/omron.reading-device';
import type { ReadingDeviceRule } from './reading-device';
import type { BrandCompleteness, ProviderPlugin } from './types';

/**
 * The provider registry (issue #27, decision 0140): every upstream TrialPulse talks to, and
 * the only module that imports a brand folder. The rest of the server asks it for OAuth
 * settings, clients, sync streams and budgets, webhooks, and each brand's data functions
 * (one converter provider answer → readings, used by the sync and the live data calls; one
 * presenter readings → the spec's answer). To add a provider: a folder like `omron/`, its
 * plugin in this list (docs/architecture.md, "Add a provider").
 */
export const PROVIDER_PLUGINS: readonly ProviderPlugin[] = [
  googleHealthPlugin,
  fitbitLegacyPlugin,
  omronPlugin,
  dexcomPlugin,
];

const BY_UPSTREAM = new Map(PROVIDER_PLUGINS.map((plugin) => [plugin.upstream, plugin]));

/** The plugin of an upstream. */
export function providerPlugin(upstream: ProviderUpstream): ProviderPlugin {
  const plugin = BY_UPSTREAM.get(upstream);
  if (!plugin) throw new Error(`No provider plugin for ${upstream}.`);
  return plugin;
}

/** The plugin new connections of a brand link through (its linking pages and texts). */
export function newConnectionPlugin(brand: DeviceBrandName): ProviderPlugin {
  return providerPlugin(NEW_CONNECTION_UPSTREAM[brand]);
}

/** Where new connections of a brand go (Fitbit links through the Google Health API now). */
export const NEW_CONNECTION_UPSTREAM = Object.fromEntries(
  PROVIDER_PLUGINS.filter((plugin) => plugin.linksNewConnections).map((plugin) => [
    plugin.brand,
    plugin.upstream,
  ]),
) as Record<DeviceBrandName, ProviderUpstream>;

/**
 * Each brand's completeness rule (its day check, first-data metrics and digest alert), in the
 * order the grid and the digest list them. The completeness module applies them all.
 */
export const BRAND_COMPLETENESS: readonly BrandCompleteness[] = [
  fitbitCompleteness,
  dexcomCompleteness,
  omronCompleteness,
];

/**
 * How each brand names the device a stored reading came with (decision 0186), in TypeScript
 * and SQL; `readingDevice` and `READING_DEVICE_SQL` (sync module) apply them by the reading's brand.
 */
export const BRAND_READING_DEVICES: readonly ReadingDeviceRule[] = [
  fitbitReadingDevice,
  dexcomReadingDevice,
  omronReadingDevice,
];

/** The brands whose stored values may be a sensor's reporting bound. */
const READING_BOUNDS = [dexcomReadingBound];

/**
 * Whether a stored reading's value is a sensor's reporting bound rather than a measurement
 * ('<': the true value is below it, '>': above; Dexcom's low / high, decision 0183). The
 * exports mark such values (FHIR comparator and interpretation, Open mHealth notes).
 */
export function readingBound(reading: { metricKey: string; valueJson: unknown }): '<' | '>' | null {
  for (const bound of READING_BOUNDS) {
    const found = bound(reading);
    if (found) return found;
  }
  return null;
}

export type {
  BrandCompleteness,
  CompletenessMeasures,
  ProviderLinking,
  ProviderPlugin,
  ProviderWebhook,
} from './types';
export {
  brandAndModel,
  sqlText,
  type ReadingDeviceRule,
  type ReadingProvenance,
} from './reading-device';
export {
  DATA_SCOPE_NOTE,
  participantParams,
  type BrandDataContext,
  type ParticipantScope,
} from './data-calls';

// Each brand's data functions, for the data calls (device-data) and their tests.
export * as omronData from './omron/omron-data';
export * as dexcomData from './dexcom/dexcom-data';
export { createOmronDataCalls } from './omron/omron-data.service';
export { createDexcomDataCalls } from './dexcom/dexcom-data.service';
export * as fitbitData from './fitbit/fitbit-data';
// The Fitbit brand's data calls (its two upstreams, one answer): services and thin routes.
export { createFitbitDataService, type FitbitDataService } from './fitbit/fitbit-data.service';
export { createFitbitRawService, type FitbitRawService } from './fitbit/fitbit-raw.service';
export { fitbitDataRoutes } from './fitbit/fitbit-data.routes';
export { fitbitRawRoutes } from './fitbit/fitbit-raw.routes';
export type { FitbitFamily } from './fitbit/fitbit-family';
export type { OmronClient } from './omron/omron.client';
export type { DexcomClient } from './dexcom/dexcom.client';
export type { DailyRollupPoint, GoogleHealthClient } from './google-health/google-health.client';
export type { FitbitLegacyClient } from './fitbit-legacy/fitbit-legacy.client';
