import type { Config } from '../../../config/env';
import { DEXCOM_SCOPES, dexcomEndpoints } from '../dexcom/dexcom.client';
import { FITBIT_LEGACY_SCOPES, fitbitLegacyEndpoints } from '../fitbit/fitbit-legacy.client';
import { GOOGLE_HEALTH_SCOPES, googleHealthEndpoints } from '../fitbit/google-health.client';
import { OMRON_SCOPES, omronEndpoints } from '../omron/omron.client';
import type { ProviderConfig, ProviderUpstream } from './provider-client';

/** The configured upstreams; an upstream without a client id is not offered. */
export type ProviderSettings = Partial<Record<ProviderUpstream, ProviderConfig>>;

/** Where the provider sends the participant's browser back to (our callback pages). */
const callbackPath = {
  'google-health': '/fitbit-callback',
  'fitbit-legacy': '/fitbit-callback',
  omron: '/omron-callback',
  dexcom: '/dexcom-callback',
} as const satisfies Record<ProviderUpstream, string>;

/**
 * Builds every upstream's client configuration from the environment: client id and secret,
 * and a base URL only when it is not the provider's real host (a simulator).
 */
export function providerSettingsFromConfig(config: Config): ProviderSettings {
  const redirect = (upstream: ProviderUpstream) =>
    new URL(callbackPath[upstream], config.PUBLIC_URL).toString();
  const settings: ProviderSettings = {};
  if (config.FITBIT_CLIENT_ID) {
    settings['google-health'] = {
      ...googleHealthEndpoints(config.GOOGLE_HEALTH_BASE_URL),
      brand: 'fitbit',
      upstream: 'google-health',
      clientId: config.FITBIT_CLIENT_ID,
      ...(config.FITBIT_CLIENT_SECRET && { clientSecret: config.FITBIT_CLIENT_SECRET }),
      clientAuth: 'body',
      redirectUri: redirect('google-health'),
      scopes: GOOGLE_HEALTH_SCOPES,
    };
  }
  if (config.FITBIT_LEGACY_CLIENT_ID) {
    settings['fitbit-legacy'] = {
      ...fitbitLegacyEndpoints(config.FITBIT_LEGACY_BASE_URL),
      brand: 'fitbit',
      upstream: 'fitbit-legacy',
      clientId: config.FITBIT_LEGACY_CLIENT_ID,
      ...(config.FITBIT_LEGACY_CLIENT_SECRET && { clientSecret: config.FITBIT_LEGACY_CLIENT_SECRET }),
      clientAuth: config.FITBIT_LEGACY_CLIENT_SECRET ? 'basic' : 'none',
      redirectUri: redirect('fitbit-legacy'),
      scopes: FITBIT_LEGACY_SCOPES,
    };
  }
  if (config.OMRON_CLIENT_ID) {
    settings.omron = {
      ...omronEndpoints(config.OMRON_BASE_URL),
      brand: 'omron',
      upstream: 'omron',
      clientId: config.OMRON_CLIENT_ID,
      ...(config.OMRON_CLIENT_SECRET && { clientSecret: config.OMRON_CLIENT_SECRET }),
      clientAuth: 'body',
      redirectUri: redirect('omron'),
      scopes: OMRON_SCOPES,
    };
  }
  if (config.DEXCOM_CLIENT_ID) {
    settings.dexcom = {
      ...dexcomEndpoints(config.DEXCOM_BASE_URL),
      brand: 'dexcom',
      upstream: 'dexcom',
      clientId: config.DEXCOM_CLIENT_ID,
      ...(config.DEXCOM_CLIENT_SECRET && { clientSecret: config.DEXCOM_CLIENT_SECRET }),
      clientAuth: 'body',
      redirectUri: redirect('dexcom'),
      scopes: DEXCOM_SCOPES,
    };
  }
  return settings;
}
