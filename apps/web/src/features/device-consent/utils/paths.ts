import type { RoutePath } from '@trialpulse/shared';

/** The routes these pages lead to, typed against the shared route table. */
export const DEVICE_CONSENT_PATHS = {
  home: '/',
  trialPage: '/TrialPage',
  participant: '/Participant',
} as const satisfies Record<string, RoutePath>;
