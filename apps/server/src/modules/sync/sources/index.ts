import type { DeviceUpstream } from '../../../db/schema';
import { dexcomSource } from './dexcom.source';
import { googleHealthSource } from './google-health.source';
import { omronSource } from './omron.source';
import type { SyncSource } from './types';

/**
 * The upstreams sync reads. The legacy Fitbit Web API is gone (410): its connections need
 * re-consent through Google Health, so it has no source (150 calls/hour/user was its limit).
 */
export const SYNC_SOURCES: Partial<Record<DeviceUpstream, SyncSource>> = {
  'google-health': googleHealthSource,
  omron: omronSource,
  dexcom: dexcomSource,
};

export type { SyncSource, SyncStream } from './types';
