import dayjs from 'dayjs';
import {
  DEVICE_MESSAGES,
  type BatteryIcon,
  type ConnectionStatus,
  type DeviceErrorType,
  type DeviceUpstreamName,
} from '@trialpulse/shared';

/**
 * The words the device screens show for the shared contract's values. The spec names the
 * error types but gives no text for them; these are ours (only processing_error has a
 * spec text, "Invalid data format received from server").
 */

export const CONNECTION_STATUS_LABELS: Record<ConnectionStatus, string> = {
  authorized: 'Authorized',
  needs_reconsent: DEVICE_MESSAGES.needsReconsent,
  not_authorized: 'Not authorized',
  revoked: 'Revoked',
};

export const UPSTREAM_LABELS: Record<DeviceUpstreamName, string> = {
  'google-health': 'Google Health API',
  'fitbit-legacy': 'Fitbit Web API (legacy)',
  omron: 'Omron',
  dexcom: 'Dexcom',
};

export const DEVICE_ERROR_TEXTS: Record<DeviceErrorType, string> = {
  rate_limit: 'Too many requests to the device provider. Try again later.',
  auth_error: 'The device provider refused the authorization.',
  not_found: 'No device found at the provider.',
  server_error: 'The device provider had an error.',
  connection_error: 'Could not reach the server.',
  auth_check_failed: 'Could not check the authorization.',
  processing_error: DEVICE_MESSAGES.invalidDataFormat,
};

/** Access spec §4 battery levels in words, for the icon's accessible name. */
export const BATTERY_LABELS: Record<BatteryIcon, string> = {
  high: 'Battery high',
  medium: 'Battery medium',
  low: 'Battery low',
  'very-low': 'Battery very low',
  empty: 'Battery empty',
};

/** A date and time of the contract (ISO text) in the browser's time zone; '' when absent. */
export function formatDateTime(value: string | null | undefined): string {
  if (!value) return '';
  const date = dayjs(value);
  return date.isValid() ? date.format('YYYY-MM-DD HH:mm') : value;
}
