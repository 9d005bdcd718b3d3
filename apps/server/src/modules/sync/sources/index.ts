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

export type { SyncSource, SyncStream } from './types';
