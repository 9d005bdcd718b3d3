import type { ProviderPlugin } from '../types';
import {
  createFitbitLegacyClient,
  FITBIT_LEGACY_SCOPES,
  fitbitLegacyEndpoints,
} from './fitbit-legacy.client';
import { fitbitLegacySource } from './fitbit-legacy.source';

/**
 * The retired Fitbit Web API: connections linked before Google Health, read until it answers
 * 410 Gone (decision 0104); no new links, no webhook.
 */
export const fitbitLegacyPlugin: ProviderPlugin = {
  upstream: 'fitbit-legacy',
  label: 'Fitbit Web API (legacy)',
  // Shut down for good: its connections link again through the Google Health API.
  goneAdvice: 'consent again through Google Health',
  brand: 'Fitbit',
  linksNewConnections: false,
  scopes: FITBIT_LEGACY_SCOPES,
  callbackPath: '/fitbit-callback',
  settings: (config, redirectUri) =>
    config.FITBIT_LEGACY_CLIENT_ID
      ? {
          ...fitbitLegacyEndpoints(config.FITBIT_LEGACY_BASE_URL),
          brand: 'fitbit',
          upstream: 'fitbit-legacy',
          clientId: config.FITBIT_LEGACY_CLIENT_ID,
          ...(config.FITBIT_LEGACY_CLIENT_SECRET && {
            clientSecret: config.FITBIT_LEGACY_CLIENT_SECRET,
          }),
          clientAuth: config.FITBIT_LEGACY_CLIENT_SECRET ? 'basic' : 'none',
          redirectUri,
          scopes: FITBIT_LEGACY_SCOPES,
        }
      : undefined,
  createClient: (settings, deps) => createFitbitLegacyClient(settings, deps),
  sync: fitbitLegacySource,
};
