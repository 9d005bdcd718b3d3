import type { Config } from '../config/env';
import type { DeviceBrand } from '../db/schema';
import type {
  ProviderClientDeps,
  ProviderConfig,
  ProviderUpstream,
} from '../modules/devices/core/provider-client';
import type { UpstreamClient } from '../modules/devices/core/provider-registry';
import type { SyncSource } from '../modules/sync/sources/types';

/**
 * One upstream API as the rest of the server sees it (issue #27, decision 0140): its OAuth
 * settings and scopes, its client, its sync streams and call budgets (quotas), and its
 * webhook when it sends notifications. The brand's converter (provider answer → readings) and
 * presenter (readings → the spec's answer) live in the same folder and are reached through
 * the registry (`providers/index.ts`), which is the only importer of a brand folder.
 */
export type ProviderPlugin = {
  upstream: ProviderUpstream;
  brand: DeviceBrand;
  /** Whether new connections of the brand link through this upstream (Fitbit: Google Health). */
  linksNewConnections: boolean;
  /** OAuth scopes asked at consent. */
  scopes: readonly string[];
  /** Our page the provider sends the participant's browser back to. */
  callbackPath: string;
  /** The client configuration from the environment; undefined when the upstream is not configured. */
  settings(config: Config, redirectUri: string): ProviderConfig | undefined;
  createClient(settings: ProviderConfig, deps: ProviderClientDeps): UpstreamClient;
  /** Sync streams (declarative, cursor per metric) and the provider's call budgets. */
  sync: SyncSource;
  webhook?: ProviderWebhook;
};

/** A provider's notification endpoint: outside /api, authenticated by a shared secret. */
export type ProviderWebhook = {
  path: string;
  /** The value in the request that must equal `expected(secret)` (constant-time compared). */
  credential(request: { headers: Record<string, unknown>; query: unknown }): unknown;
  expected(secret: string): string;
  /**
   * What a notification asks for: a reply, and the provider users whose connections get a
   * targeted sync (of one stream when the notification names one the sync knows).
   */
  notifications(body: unknown): {
    status: number;
    reply?: unknown;
    users: Array<{ providerUserId: string; stream?: string }>;
  };
};
