import {
  NEW_CONNECTION_UPSTREAM,
  PROVIDER_PLUGINS,
  type GoogleHealthClient,
} from '../../../providers';
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
export { NEW_CONNECTION_UPSTREAM };

export type ProviderRegistry = {
  /** The configured client of an upstream, or undefined when it is not configured. */
  client(upstream: ProviderUpstream): UpstreamClient | undefined;
  /** The Google Health client (identity lookups after linking). */
  googleHealth(): GoogleHealthClient | undefined;
  clientId(upstream: ProviderUpstream): string | undefined;
};

/** Builds one client per configured upstream (its provider plugin's), once. */
export function createProviderRegistry(
  settings: ProviderSettings,
  deps: ProviderClientDeps = {},
): ProviderRegistry {
  const clients: Partial<Record<ProviderUpstream, UpstreamClient>> = {};
  for (const plugin of PROVIDER_PLUGINS) {
    const configured = settings[plugin.upstream];
    if (configured) clients[plugin.upstream] = plugin.createClient(configured, deps);
  }
  const googleHealth = clients['google-health'] as GoogleHealthClient | undefined;
  return {
    client: (upstream) => clients[upstream],
    googleHealth: () => googleHealth,
    clientId: (upstream) => settings[upstream]?.clientId,
  };
}
