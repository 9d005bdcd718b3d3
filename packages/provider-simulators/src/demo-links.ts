/**
 * Which demo participant is linked to which simulated account in demo mode
 * (the server's `modules/devices/demo-links.ts` writes the connections; its main.ts hands it
 * this list and `consentAtSimulator` from `embedded.ts`).
 */
export type DemoLink = {
  participantCode: string;
  /** TrialPulse's brand name (main.ts hands the list to a function that takes its own brand type). */
  brand: 'Fitbit' | 'Omron' | 'Dexcom';
  /** Simulated account at the provider. */
  account: string;
  /** 'expired': the access token is left expired (the next use refreshes it). */
  variant?: 'expired';
};

export const DEMO_DEVICE_LINKS: readonly DemoLink[] = [
  { participantCode: 'SLEEP-001', brand: 'Fitbit', account: 'ava-thompson' },
  { participantCode: 'SLEEP-001', brand: 'Omron', account: '5f1c2a9e-6d4b-4c1f-9a8e-1b2c3d4e5f01' },
  // Tracker left on the charger: empty battery.
  { participantCode: 'SLEEP-002', brand: 'Fitbit', account: 'carmen-diaz' },
  { participantCode: 'GLUCO-001', brand: 'Dexcom', account: 'SandboxUser1' },
  { participantCode: 'GLUCO-001', brand: 'Fitbit', account: 'ben-okafor', variant: 'expired' },
  {
    participantCode: 'WEIGHT-001',
    brand: 'Omron',
    account: '5f1c2a9e-6d4b-4c1f-9a8e-1b2c3d4e5f02',
  },
];

/** Linked through the legacy Fitbit Web API before it shut down: needs re-consent now. */
export const DEMO_LEGACY_PARTICIPANT = 'GLUCO-002';
