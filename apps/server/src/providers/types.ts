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
import type { CompletenessThresholds, DeviceBrandName } from '@trialpulse/shared';
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
  /** How error texts and logs name the API ("Omron API"); the client's configuration carries it. */
  label: string;
  /**
   * What a 410 Gone from this API asks of the participant's team, in its client's error text
   * ("consent again through Google Health"; the client's configuration carries it). Absent:
   * the kit's own `consent again`.
   */
  goneAdvice?: string;
  brand: DeviceBrand;
  /** Whether new connections of the brand link through this upstream (Fitbit: Google Health). */
  linksNewConnections: boolean;
  /** How the brand's new links look to the participant; on the plugin that `linksNewConnections`. */
  linking?: ProviderLinking;
  /** OAuth scopes asked at consent. */
  scopes: readonly string[];
  /** Our page the provider sends the participant's browser back to. */
  callbackPath: string;
  /**
   * The client configuration from the environment; undefined when the upstream is not
   * configured. The registry adds the plugin's `label` and `goneAdvice` (`providerSettingsFromConfig`).
   */
  settings(
    config: Config,
    redirectUri: string,
  ): Omit<ProviderConfig, 'label' | 'goneAdvice'> | undefined;
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
  /**
   * The callback page asks the participant's email, which must be the participant's record's
   * (Dexcom, device-data spec §8); `mismatch` is the error text when it is not.
   */
  emailCheck?: { mismatch: string };
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

/** A participant's day as the completeness grid measures it (from the sync's day summary). */
export type CompletenessMeasures = {
  wearMinutes: number;
  /** Sensor usage in % of a day's CGM readings (the grid's column, decision 0050). */
  cgmUsagePercent: number;
  bpReadings: number;
  weightReadings: number;
};

/**
 * What a brand's devices must deliver for a participant's day to count (completeness grid,
 * decision 0050); one per brand, in the registry's `BRAND_COMPLETENESS`. The completeness
 * module applies every brand's rule and names no brand itself.
 */
export type BrandCompleteness = {
  brand: DeviceBrandName;
  /** The metrics whose first local day with readings starts the brand's expectation (decision 0181). */
  firstDataMetrics: readonly string[];
  /**
   * The grid measure the brand delivers. `wear`: an expected day without a worn minute shows
   * no steps; `cgm`: the usage column is shown only on days the brand is expected.
   */
  measure: 'wear' | 'cgm' | 'bp';
  /**
   * The day's check under the trial's thresholds: whether the day holds the brand's data (a
   * day with data is expected even before a link) and whether it passes.
   */
  day(measures: CompletenessMeasures, thresholds: CompletenessThresholds): DayCheck;
  /**
   * The daily digest's alert (decision 0052): raised when the evaluated day fails the check
   * and the participant has a connection of the brand or data of it; words only, never a
   * value. `applies`: whether the thresholds ask for an alert at all (default yes).
   */
  alert: {
    kind: string;
    words: string;
    applies?(thresholds: CompletenessThresholds): boolean;
  };
};

export type DayCheck = { hasData: boolean; passes: boolean };
