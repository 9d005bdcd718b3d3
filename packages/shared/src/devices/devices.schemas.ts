import { z } from 'zod';
import { rowIdSchema } from '../ids';
import { DEVICE_BRANDS } from '../participants/participants.schemas';

/**
 * Device linking: consent links, provider authorisation, callbacks, token lifecycle and
 * device status (access spec §2–§4, §7, §8; device-data spec §2, §4, §7, §8). Paths the
 * spec leaves open are ours (decision record 0019). The server and the web app both read
 * these texts and shapes from here.
 */

export type DeviceBrandName = (typeof DEVICE_BRANDS)[number];
export const deviceBrandSchema = z.enum(DEVICE_BRANDS);

/** Brands a participant can be sent a consent link for (Dexcom is linked with staff present). */
export const CONSENT_LINK_BRANDS = ['Fitbit', 'Omron'] as const;
export type ConsentLinkBrand = (typeof CONSENT_LINK_BRANDS)[number];

/** The spec's device error types (access §4). */
export const DEVICE_ERROR_TYPES = [
  'rate_limit',
  'auth_error',
  'not_found',
  'server_error',
  'connection_error',
  'auth_check_failed',
  'processing_error',
] as const;
export type DeviceErrorType = (typeof DEVICE_ERROR_TYPES)[number];

/** Where a connection's data comes from; the Fitbit brand has two upstreams. */
export const DEVICE_UPSTREAM_NAMES = ['google-health', 'fitbit-legacy', 'omron', 'dexcom'] as const;
export type DeviceUpstreamName = (typeof DEVICE_UPSTREAM_NAMES)[number];

/**
 * A connection as staff see it: `authorized` (tokens held), `needs_reconsent` (the provider
 * refused the grant, or the legacy Fitbit API is gone: send a new consent link),
 * `revoked`, or `not_authorized` (never linked).
 */
export const CONNECTION_STATUSES = [
  'authorized',
  'needs_reconsent',
  'revoked',
  'not_authorized',
] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

export const DEVICE_MESSAGES = {
  // Fitbit authorisation (device-data §8).
  invalidRequest: 'Invalid authorization request. Please try again.',
  unableToComplete: 'Unable to complete authorization. Please click Cancel and try again.',
  fitbitAuthorizationFailed: 'Authorization failed - Please click Cancel and try again if needed!',
  somethingWentWrong: 'Something went wrong! authorization failed.',
  canceled: 'The authorization has been canceled. You may now close this page.',
  // Omron / device (device-data §8, access §8).
  omronAuthorizationFailed: 'Authorization failed! Please click Cancel and try again if needed.',
  authorizationFailed: 'Authorization failed!',
  revokeFailed: 'Something went wrong! We could not revoke the access token.',
  refreshFailed: 'Something went wrong! We could not refresh the access token.',
  participantNotFound: "Something went wrong! We could not find participant's info.",
  someDeviceInfoFailed:
    'Some device information could not be loaded. Participants are still displayed.',
  invalidDataFormat: 'Invalid data format received from server',
  errorLoadingDevices: 'Error loading devices.',
  // Ours (decision 0019).
  authorized: 'Authorization complete. You may now close this page.',
  consentLinkInvalid:
    'This consent link is invalid or has expired. Please ask the study team for a new one.',
  consentEmailSent: 'The consent link has been sent to the participant.',
  participantHasNoEmail: 'The participant has no email address to send the consent link to.',
  brandNotAllowed: "This device brand is not enabled for the participant's team.",
  providerNotConfigured: 'This device provider is not configured on this server.',
  notAuthorized: 'The participant has not authorised this device.',
  dexcomEmailMismatch: "The email does not match the participant's email.",
  revoked: 'Access has been revoked.',
  refreshed: 'The access token has been refreshed.',
  needsReconsent: 'Needs re-consent',
  /** A data call on a connection that needs re-consent: the cause and the action (issue 30). */
  needsReconsentData:
    "This participant's connection needs re-consent: send them the consent link from the participant page, then their data can be read again.",
} as const;

/**
 * `reason` of device error bodies. Provider failures answer 502 (their message is never
 * shown: the web app shows the spec's text for the reason, e.g. REFRESH_FAILED →
 * DEVICE_MESSAGES.refreshFailed; EXCHANGE_FAILED → unableToComplete for Fitbit,
 * authorizationFailed for Omron and Dexcom).
 */
export const DEVICE_ERROR_REASONS = {
  invalidState: 'INVALID_STATE',
  invalidConsentLink: 'INVALID_TOKEN',
  denied: 'AUTHORIZATION_DENIED',
  exchangeFailed: 'EXCHANGE_FAILED',
  refreshFailed: 'REFRESH_FAILED',
  revokeFailed: 'REVOKE_FAILED',
  notAuthorized: 'NOT_AUTHORIZED',
  providerNotConfigured: 'PROVIDER_NOT_CONFIGURED',
  brandNotAllowed: 'BRAND_NOT_ALLOWED',
  emailMismatch: 'EMAIL_MISMATCH',
  noEmail: 'NO_EMAIL',
} as const;

/** Access-spec §4 battery icon thresholds. */
export type BatteryIcon = 'high' | 'medium' | 'low' | 'very-low' | 'empty';
export function batteryIconOf(batteryLevel: number | null | undefined): BatteryIcon {
  const level = batteryLevel ?? 0;
  if (level > 90) return 'high';
  if (level > 50) return 'medium';
  if (level > 25) return 'low';
  if (level > 0) return 'very-low';
  return 'empty';
}

const participantIdSchema = rowIdSchema();

/** Staff: `POST /api/participantConsentEmail` sends the participant a consent link. */
export const consentEmailRequestSchema = z.strictObject({
  participantId: participantIdSchema,
  brand: z.enum(CONSENT_LINK_BRANDS),
});
export type ConsentEmailRequest = z.infer<typeof consentEmailRequestSchema>;

/** Public: `POST /api/consentLinkAuthorize`, from the consent page's Authorize Access. */
export const consentLinkAuthorizeSchema = z.strictObject({
  participantId: participantIdSchema,
  token: z.string().min(1).max(200),
  brand: z.enum(CONSENT_LINK_BRANDS),
});
export type ConsentLinkAuthorizeRequest = z.infer<typeof consentLinkAuthorizeSchema>;

/** Staff with the participant present: `POST /api/deviceAuthorization`. */
export const staffAuthorizeSchema = z.strictObject({
  participantId: participantIdSchema,
  brand: deviceBrandSchema,
});
export type StaffAuthorizeRequest = z.infer<typeof staffAuthorizeSchema>;

/** The provider consent URL the browser is sent to. */
export const authorizeUrlResponseSchema = z.object({ authorizeUrl: z.url() });

/** What a callback page posts: the code, or the provider's error, and the state it got. */
const callbackBase = {
  authCode: z.string().min(1).max(2048).optional(),
  state: z.string().min(1).max(200),
  /** The provider's `error` query parameter (e.g. access_denied) when consent failed. */
  error: z.string().min(1).max(200).optional(),
};

export const fitbitCallbackSchema = z.strictObject({
  ...callbackBase,
  /** The participant the callback page was opened for (compared with the pending link); '' when unknown. */
  participantId: z.union([rowIdSchema(), z.literal('')]).optional(),
});
export const omronCallbackSchema = z.strictObject({
  ...callbackBase,
  participantData: z
    .object({ participantId: z.union([rowIdSchema(), z.literal('')]).optional() })
    .optional(),
});
/** The participant's email is required with a code; a Deny (error) comes without one. */
export const dexcomCallbackSchema = z.strictObject({
  ...callbackBase,
  participantData: z.object({ email: z.email().max(254) }).optional(),
});
export type FitbitCallbackRequest = z.infer<typeof fitbitCallbackSchema>;
export type OmronCallbackRequest = z.infer<typeof omronCallbackSchema>;
export type DexcomCallbackRequest = z.infer<typeof dexcomCallbackSchema>;

export const callbackResponseSchema = z.object({
  message: z.string(),
  participantId: z.number().int(),
  trialId: z.number().int(),
  brand: deviceBrandSchema,
});
export type CallbackResponse = z.infer<typeof callbackResponseSchema>;

/** `POST /api/fitbitRefreshToken` etc. and Omron/Dexcom revoke: the participant id. */
export const participantDeviceIdSchema = z.strictObject({ id: participantIdSchema });

export const tokenActionResponseSchema = z.object({
  code: z.number().int(),
  message: z.string(),
});

/** `GET /api/fitbitIsParticipantAuth/{id}`, `/api/omronIsParticipantAuth/{id}`, Dexcom's. */
export const isAuthResponseSchema = z.object({
  /** 'found' means authorised (spec). */
  message: z.enum(['found', 'not found']),
  status: z.enum(CONNECTION_STATUSES),
  upstream: z.enum(DEVICE_UPSTREAM_NAMES).nullable(),
});
export type IsAuthResponse = z.infer<typeof isAuthResponseSchema>;

/** Access spec §3 authorised device entry (Dexcom added as a brand). */
export const authorisedDeviceEntrySchema = z.object({
  device: deviceBrandSchema,
  deviceVersion: z.string().nullable(),
  deviceType: z.string().nullable(),
  batteryLevel: z.number().int().nullable(),
  battery: z.string().nullable(),
  lastSyncTime: z.string().nullable(),
  hasError: z.boolean(),
  errorType: z.enum(DEVICE_ERROR_TYPES).nullable(),
});
export type AuthorisedDeviceEntry = z.infer<typeof authorisedDeviceEntrySchema>;

/**
 * One entry of the device list call: the device spec §7 names the device's kind `type`
 * ("returns battery, batteryLevel, deviceVersion, type, lastSyncTime"); the page's
 * authorised device entry (access spec §3) calls it `deviceType` (`authorisedEntryOf`).
 */
export const deviceListEntrySchema = authorisedDeviceEntrySchema
  .omit({ deviceType: true })
  .extend({ type: z.string().nullable() });
export type DeviceListEntry = z.infer<typeof deviceListEntrySchema>;

/** `GET /api/fitbitDevices/{id}` (the spec's Fitbit device list call) and Dexcom's. */
export const deviceListResponseSchema = z.object({
  devices: z.array(deviceListEntrySchema),
});
export type DeviceListResponse = z.infer<typeof deviceListResponseSchema>;

/** An authorised device entry as the device list call sends it (`deviceType` → `type`). */
export function deviceListEntryOf(entry: AuthorisedDeviceEntry): DeviceListEntry {
  const { deviceType, ...rest } = entry;
  return { ...rest, type: deviceType };
}

/** A device list call's entry as the page's authorised device entry (`type` → `deviceType`). */
export function authorisedEntryOf(entry: DeviceListEntry): AuthorisedDeviceEntry {
  const { type, ...rest } = entry;
  return { ...rest, deviceType: type };
}

/**
 * The batched device status of the trial table's visible page (decision 0041):
 * `GET /api/deviceStatus?ids=1,2,3` — up to 50 participant ids, comma-separated.
 */
export const DEVICE_STATUS_BATCH = {
  path: '/deviceStatus',
  maxParticipants: 50,
  /** Brands whose device list the cycle reads (access spec §4: Fitbit's devices). */
  deviceListBrands: ['Fitbit'] as const satisfies readonly DeviceBrandName[],
  /** The order of the checks within one participant (access spec §4, Dexcom last). */
  checkOrder: ['Fitbit', 'Omron', 'Dexcom'] as const satisfies readonly DeviceBrandName[],
} as const;

export const DEVICE_STATUS_MESSAGES = {
  ids: `ids must be 1 to ${DEVICE_STATUS_BATCH.maxParticipants} participant ids, separated by commas.`,
} as const;

export const deviceStatusQuerySchema = z.object({
  ids: z
    .string({ error: DEVICE_STATUS_MESSAGES.ids })
    .regex(/^[1-9]\d{0,9}(,[1-9]\d{0,9})*$/, DEVICE_STATUS_MESSAGES.ids)
    .transform((text) => [...new Set(text.split(',').map(Number))])
    .refine(
      (ids) =>
        ids.length <= DEVICE_STATUS_BATCH.maxParticipants && ids.every((id) => id <= 2_147_483_647),
      DEVICE_STATUS_MESSAGES.ids,
    ),
});

/** One brand of one participant: the authorisation check and (Fitbit) the device list. */
export const brandDeviceStatusSchema = z.object({
  brand: deviceBrandSchema,
  auth: isAuthResponseSchema,
  /** Authorised devices and error entries (`hasError`): the spec's `auth_devices`. */
  devices: z.array(authorisedDeviceEntrySchema),
  /** When the device list was read from the provider (null: no list for this brand). */
  checkedAt: z.string().nullable(),
});
export type BrandDeviceStatusAnswer = z.infer<typeof brandDeviceStatusSchema>;

export const participantDeviceStatusSchema = z.object({
  participantId: z.number().int(),
  /** The brands the team allows, in check order. */
  brands: z.array(brandDeviceStatusSchema),
});

/** Participants the caller may not see (or that no longer exist) are left out. */
export const deviceStatusResponseSchema = z.object({
  statuses: z.array(participantDeviceStatusSchema),
});
export type DeviceStatusResponse = z.infer<typeof deviceStatusResponseSchema>;

/** One participant's connection for a brand, without any token. */
export const deviceConnectionSchema = z.object({
  participantId: z.number().int(),
  participantCode: z.string(),
  trialId: z.number().int(),
  trialNumber: z.string(),
  brand: deviceBrandSchema,
  upstream: z.enum(DEVICE_UPSTREAM_NAMES).nullable(),
  status: z.enum(CONNECTION_STATUSES),
  authorizationDate: z.string().nullable(),
  tokenExpiresAt: z.string().nullable(),
  lastRefreshedAt: z.string().nullable(),
  scopes: z.array(z.string()),
});
export type DeviceConnection = z.infer<typeof deviceConnectionSchema>;

/** `GET /api/deviceConnections/{brand}` (token management pages, team-wide). */
export const deviceConnectionsResponseSchema = z.object({
  connections: z.array(deviceConnectionSchema),
});

/** `GET /api/participantConnections/{participantId}`: every allowed brand, linked or not. */
export const participantConnectionsResponseSchema = z.object({
  connections: z.array(deviceConnectionSchema),
});

/** Participant portal: `GET /api/Participants/me/enrolments`. */
export const portalEnrolmentSchema = z.object({
  participantId: z.number().int(),
  participantCode: z.string(),
  trialName: z.string(),
  teamName: z.string(),
  connections: z.array(deviceConnectionSchema),
});
export const portalEnrolmentsResponseSchema = z.object({
  enrolments: z.array(portalEnrolmentSchema),
});
export type PortalEnrolment = z.infer<typeof portalEnrolmentSchema>;

/** Participant portal: authorise or revoke one brand of one own enrolment. */
export const portalDeviceActionSchema = z.strictObject({
  participantId: participantIdSchema,
  brand: deviceBrandSchema,
});

/** Lower-case brand in paths (`/api/deviceConnections/fitbit`). */
export const brandPathSchema = z
  .enum(['fitbit', 'omron', 'dexcom'])
  .transform((value): DeviceBrandName =>
    value === 'fitbit' ? 'Fitbit' : value === 'omron' ? 'Omron' : 'Dexcom',
  );

/** Client ids (`GET /api/fitbitClientId` etc.): not secret, public. */
export const fitbitClientIdResponseSchema = z.object({ FITBIT_CLIENT_ID: z.string() });
export const omronClientIdResponseSchema = z.object({ OMRON_CLIENT_ID: z.string() });
export const dexcomClientIdResponseSchema = z.object({ DEXCOM_CLIENT_ID: z.string() });

/** How long an emailed consent link stays usable. */
export const CONSENT_LINK_LIFETIME_HOURS = 72;
/** How long a started authorisation (state nonce) waits for its callback. */
export const AUTHORIZATION_STATE_LIFETIME_MINUTES = 15;
