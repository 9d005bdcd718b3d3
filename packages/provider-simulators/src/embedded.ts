/**
 * The one entry point from TrialPulse into its provider simulators, used only in demo mode
 * (main.ts) and by tests. Product modules never import the simulators: main.ts hands them
 * what they need (the environment that points the provider clients at the simulators, and
 * a consent function for linking demo participants).
 */
import { findAccount } from './common/accounts';
import { submitConsent, type ConsentChoice } from './common/consent-driver';
import { wearableModel } from './common/wearable-model';
import { DEFAULT_DEXCOM_CLIENT } from './dexcom';
import { DEFAULT_FITBIT_CLIENT } from './fitbit-legacy';
import { DEFAULT_GOOGLE_CLIENT } from './google-health';
import { DEFAULT_OMRON_CLIENT } from './omron';
import type { AllSimulators } from './index';
import { DEMO_DEVICE_LINKS } from './demo-links';

export { startAllSimulators, type AllSimulators, type StartAllOptions } from './index';
export type { ConsentChoice } from './common/consent-driver';
export { DEMO_DEVICE_LINKS, DEMO_LEGACY_PARTICIPANT, type DemoLink } from './demo-links';

/**
 * The IANA time zone of the simulated Fitbit account a demo participant is linked to: the
 * clock the Google Health simulator reports that account's samples in (the demo reading seed
 * writes that participant's Fitbit heart rate in it, decision 0105).
 */
export function demoFitbitTimeZone(participantCode: string): string | undefined {
  const link = DEMO_DEVICE_LINKS.find(
    (candidate) => candidate.participantCode === participantCode && candidate.brand === 'Fitbit',
  );
  return link ? findAccount(link.account)?.timeZone : undefined;
}

/**
 * The minute heart rate (bpm per local minute, 0 = not worn) of the simulated Fitbit account
 * a demo participant is linked to, on a local date of that account: the series the Google
 * Health simulator samples every few seconds. The demo seed's 1-second day follows it, so
 * the synced samples agree with the seeded seconds around them (decision 0172).
 */
export function demoFitbitMinuteHeartRate(
  participantCode: string,
  date: string,
): ArrayLike<number> | undefined {
  const link = DEMO_DEVICE_LINKS.find(
    (candidate) => candidate.participantCode === participantCode && candidate.brand === 'Fitbit',
  );
  const account = link ? findAccount(link.account) : undefined;
  return account ? wearableModel(account).day(date).heartRate : undefined;
}

/** The environment that points every upstream at running simulators with their demo clients. */
export function simulatorEnvironment(urls: {
  googleHealth: string;
  fitbitLegacy: string;
  omron: string;
  dexcom: string;
}): Record<string, string> {
  return {
    FITBIT_CLIENT_ID: DEFAULT_GOOGLE_CLIENT.clientId,
    FITBIT_CLIENT_SECRET: DEFAULT_GOOGLE_CLIENT.clientSecret,
    GOOGLE_HEALTH_BASE_URL: urls.googleHealth,
    FITBIT_LEGACY_CLIENT_ID: DEFAULT_FITBIT_CLIENT.clientId,
    FITBIT_LEGACY_CLIENT_SECRET: DEFAULT_FITBIT_CLIENT.clientSecret,
    FITBIT_LEGACY_BASE_URL: urls.fitbitLegacy,
    OMRON_CLIENT_ID: DEFAULT_OMRON_CLIENT.clientId,
    OMRON_CLIENT_SECRET: DEFAULT_OMRON_CLIENT.clientSecret ?? '',
    OMRON_BASE_URL: urls.omron,
    DEXCOM_CLIENT_ID: DEFAULT_DEXCOM_CLIENT.clientId,
    DEXCOM_CLIENT_SECRET: DEFAULT_DEXCOM_CLIENT.clientSecret ?? '',
    DEXCOM_BASE_URL: urls.dexcom,
  };
}

/** `simulatorEnvironment` for simulators that are running. */
export function environmentOf(sims: AllSimulators): Record<string, string> {
  return simulatorEnvironment({
    googleHealth: sims.googleHealth.baseUrl,
    fitbitLegacy: sims.fitbitLegacy.baseUrl,
    omron: sims.omron.baseUrl,
    dexcom: sims.dexcom.baseUrl,
  });
}

/**
 * Answers a simulator's consent page as a participant would (sign in as `choice.account`,
 * default the preselected one; allow or deny) and returns the redirect to our callback.
 */
export async function consentAtSimulator(
  authorizeUrl: string | URL,
  choice: ConsentChoice = {},
): Promise<URL> {
  return (await submitConsent(authorizeUrl, choice)).redirect;
}
