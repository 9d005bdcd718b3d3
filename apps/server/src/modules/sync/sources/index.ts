import type { DeviceUpstream } from '../../../db/schema';
import { PROVIDER_PLUGINS } from '../../../providers';
import type { SyncSource } from './types';

/**
 * The upstreams sync reads, from the provider registry. The legacy Fitbit Web API serves
 * connections linked before Google Health until it answers 410 Gone; then they need
 * re-consent (decision 0104).
 */
export const SYNC_SOURCES: Partial<Record<DeviceUpstream, SyncSource>> = Object.fromEntries(
  PROVIDER_PLUGINS.map((plugin) => [plugin.upstream, plugin.sync]),
);

export type { SyncSource, SyncStream } from './types';
