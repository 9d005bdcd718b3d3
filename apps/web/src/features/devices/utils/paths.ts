import type { DeviceBrandName, RoutePath } from '@trialpulse/shared';

/**
 * The routes the device screens open, typed against the shared route table (`PATHS` does
 * not name them yet).
 */
export const DEVICE_PATHS = {
  trialPage: '/TrialPage',
  participantData: '/ParticipantDataPage',
  fitbitParticipantConsent: '/FitbitParticipantConsent',
  dexcomParticipantConsent: '/DexcomParticipantConsent',
  fitbitTokens: '/FitbitManageParticipantToken',
  omronTokens: '/OmronManageParticipantToken',
} as const satisfies Record<string, RoutePath>;

/** The lower-case brand in API paths (`/fitbitIsParticipantAuth/…`, `/deviceConnections/omron`). */
export type BrandPath = 'fitbit' | 'omron' | 'dexcom';

export function brandPath(brand: DeviceBrandName): BrandPath {
  return brand === 'Fitbit' ? 'fitbit' : brand === 'Omron' ? 'omron' : 'dexcom';
}
