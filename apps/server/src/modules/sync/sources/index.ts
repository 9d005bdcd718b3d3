import type { DeviceUpstream } from '../../../db/schema';
import { dexcomSource } from './dexcom.source';
import { fitbitLegacySource } from './fitbit-legacy.source';
import { googleHealthSource } from './google-health.source';
import { omronSource } from './omron.source';
import type { SyncSource } from './types';

/**
 * The upstreams sync reads. The legacy Fitbit Web API serves connections linked before
 * Google Health until it answers 410 Gone; then they need re-consent (decision 0104).
 */
export const SYNC_SOURCES: Partial<Record<DeviceUpstream, SyncSource>> = {
  'google-health': googleHealthSource,
  'fitbit-legacy': fitbitLegacySource,
  omron: omronSource,
  dexcom: dexcomSource,
};

/**
 * Whether sync mirrors the metric's fetched windows for this upstream (decision 0112): its
 * stored readings then end up exactly what the provider holds, whatever else was stored
 * in those windows before. False for upsert-only streams and unknown upstreams.
 */
export function mirrorsFetchedWindows(upstream: DeviceUpstream, metricKey: string): boolean {
  const stream = SYNC_SOURCES[upstream]?.streams.find((candidate) => candidate.metrics.includes(metricKey));
  return stream?.mirror !== undefined;
}

export type { SyncSource, SyncStream } from './types';
