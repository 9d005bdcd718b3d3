import type { Config } from '../config/env';
import type { DeviceBrand } from '../db/schema';
import type {
  ProviderClientDeps,
  ProviderConfig,
  ProviderUpstream,
} from '../modules/devices/core/provider-client';
import type { UpstreamClient } from '../modules/devices/core/provider-registry';
import type { SyncSource } from '../modules/sync/sources/types';
import type { CallbackInput } from '../modules/devices/device-linking.service';
import type { ZodType } from 'zod';
import type { BrandDataRoutes } from './data-calls';

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
  /** How the brand's new links look to the participant; on the plugin that `linksNewConnections`. */
  linking?: ProviderLinking;
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
  /**
   * The brand's own spec data calls and its Sys_Admin raw-page calls (Omron's lists, Dexcom's
   * records), registered by the device-data routes with what they lend (`BrandDataContext`).
   * One plugin per brand declares them; the Fitbit data calls are the device-data module's.
   */
  dataRoutes?: BrandDataRoutes;
};

/** A brand's linking texts and pages (access spec §2, device-data spec §8). */
export type ProviderLinking = {
  /** The consent page an emailed consent link opens; absent: the brand is not linked by email. */
  consentPage?: string;
  /** What a failed callback shows: the participant refused, or the code exchange failed. */
  callbackTexts: { denied: string; exchangeFailed: string };
  /** The brand's own spec routes, which the devices routes register (device-data spec §7). */
  routes: ProviderLinkingRoutes;
};

/** A brand's spec routes of linking, the token lifecycle and status (paths as the spec names them). */
export type ProviderLinkingRoutes = {
  /** Public: the OAuth client id, answered as `{ [key]: id }`. */
  clientId: { path: string; key: string; response: ZodType };
  /** Public: completes an authorisation; `input` maps the spec's body to the linking service's. */
  callback: {
    path: string;
    summary: string;
    body: ZodType;
    input(body: never): CallbackInput;
  };
  refreshToken: string;
  /** A GET (Fitbit's, by the spec) changes state all the same: it needs the CSRF header too. */
  revokeToken: { method: 'POST' | 'GET'; path: string };
  isAuth: string;
  devices: string;
};

/** A provider's notification endpoint: outside /api, authenticated by a shared secret. */
export type ProviderWebhook = {
  path: string;
  /** The shared secret from the environment; without it the endpoint refuses every delivery. */
  secret(config: Config): string | undefined;
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
