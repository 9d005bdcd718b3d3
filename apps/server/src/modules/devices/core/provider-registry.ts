import type { DeviceBrandName } from '@trialpulse/shared';
import { createDexcomClient } from '../dexcom/dexcom.client';
import { createFitbitLegacyClient } from '../fitbit/fitbit-legacy.client';
import { createGoogleHealthClient, type GoogleHealthClient } from '../fitbit/google-health.client';
import { createOmronClient } from '../omron/omron.client';
import type {
  DeviceProviderClient,
  ProviderClientDeps,
  ProviderUpstream,
  RevocableOAuthClient,
} from './provider-client';
import type { ProviderSettings } from './provider-settings';

/** Any upstream's client: OAuth, device list, and revoke where the provider has one. */
export type UpstreamClient = DeviceProviderClient & Partial<Pick<RevocableOAuthClient, 'revoke'>>;

/** Where new connections of a brand go: Fitbit links through the Google Health API now. */
export const NEW_CONNECTION_UPSTREAM: Record<DeviceBrandName, ProviderUpstream> = {
  Fitbit: 'google-health',
  Omron: 'omron',
  Dexcom: 'dexcom',
};

export type ProviderRegistry = {
  /** The configured client of an upstream, or undefined when it is not configured. */
  client(upstream: ProviderUpstream): UpstreamClient | undefined;
  /** The Google Health client (identity lookups after linking). */
  googleHealth(): GoogleHealthClient | undefined;
  clientId(upstream: ProviderUpstream): string | undefined;
};

/** Builds one client per configured upstream, once. */
export function createProviderRegistry(
  settings: ProviderSettings,
  deps: ProviderClientDeps = {},
): ProviderRegistry {
  const googleHealth = settings['google-health'] && createGoogleHealthClient(settings['google-health'], deps);
  const clients: Partial<Record<ProviderUpstream, UpstreamClient>> = {
    ...(googleHealth && { 'google-health': googleHealth }),
    ...(settings['fitbit-legacy'] && {
      'fitbit-legacy': createFitbitLegacyClient(settings['fitbit-legacy'], deps),
    }),
    ...(settings.omron && { omron: createOmronClient(settings.omron, deps) }),
    ...(settings.dexcom && { dexcom: createDexcomClient(settings.dexcom, deps) }),
  };
  return {
    client: (upstream) => clients[upstream],
    googleHealth: () => googleHealth,
    clientId: (upstream) => settings[upstream]?.clientId,
  };
}
