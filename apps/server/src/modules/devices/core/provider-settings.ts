import type { Config } from '../../../config/env';
import { PROVIDER_PLUGINS, type ProviderPlugin } from '../../../providers';
import type { ProviderConfig, ProviderUpstream } from './provider-client';

/** The configured upstreams; an upstream without a client id is not offered. */
export type ProviderSettings = Partial<Record<ProviderUpstream, ProviderConfig>>;

/**
 * Builds every upstream's client configuration from the environment (each provider plugin
 * reads its own variables): client id and secret, and a base URL only when it is not the
 * provider's real host (a simulator). The redirect goes back to the plugin's callback page;
 * the plugin's label names the API in the client's errors, and its gone advice says what a
 * 410 Gone asks for.
 */
export function providerSettingsFromConfig(config: Config): ProviderSettings {
  const settings: ProviderSettings = {};
  for (const plugin of PROVIDER_PLUGINS) {
    const configured = plugin.settings(
      config,
      new URL(plugin.callbackPath, config.PUBLIC_URL).toString(),
    );
    if (configured) settings[plugin.upstream] = { ...configured, ...clientLabels(plugin) };
  }
  return settings;
}

/** What a plugin declares for its client's error texts: the API's label and its gone advice. */
export function clientLabels(
  plugin: ProviderPlugin,
): Pick<ProviderConfig, 'label'> & Partial<Pick<ProviderConfig, 'goneAdvice'>> {
  return {
    label: plugin.label,
    ...(plugin.goneAdvice !== undefined && { goneAdvice: plugin.goneAdvice }),
  };
}
