import { DEVICE_MESSAGES, type DeviceBrandName } from '@trialpulse/shared';

/** What each brand shares with the study, for the consent explanations. */
export const BRAND_DATA: Record<DeviceBrandName, string> = {
  Fitbit: 'activity, heart rate and sleep',
  Omron: 'blood pressure and weight measurements',
  Dexcom: 'glucose readings',
};

/**
 * The text shown when a brand's authorisation fails and the server sent nothing
 * displayable (device-data spec §8: Fitbit's and Omron's own wording).
 */
export const AUTHORIZATION_FALLBACK: Record<DeviceBrandName, string> = {
  Fitbit: DEVICE_MESSAGES.somethingWentWrong,
  Omron: DEVICE_MESSAGES.authorizationFailed,
  Dexcom: DEVICE_MESSAGES.authorizationFailed,
};

/** The spec's text for a consent the participant refused at the provider (Deny). */
export const DENIED_MESSAGE: Record<DeviceBrandName, string> = {
  Fitbit: DEVICE_MESSAGES.fitbitAuthorizationFailed,
  Omron: DEVICE_MESSAGES.omronAuthorizationFailed,
  Dexcom: DEVICE_MESSAGES.authorizationFailed,
};
