import {
  DEVICE_MESSAGES,
  dexcomCallbackSchema,
  dexcomClientIdResponseSchema,
  type DexcomCallbackRequest,
} from '@trialpulse/shared';
import type { ProviderPlugin } from '../types';
import { dexcomDataRoutes } from './dexcom-data.routes';
import { createDexcomClient, DEXCOM_SCOPES, dexcomEndpoints } from './dexcom.client';
import { dexcomSource } from './dexcom.source';

/** Dexcom API v3: no webhook (polling only), one application-wide hourly budget. */
export const dexcomPlugin: ProviderPlugin = {
  upstream: 'dexcom',
  label: 'Dexcom API',
  brand: 'Dexcom',
  linksNewConnections: true,
  linking: {
    callbackTexts: {
      denied: DEVICE_MESSAGES.authorizationFailed,
      exchangeFailed: DEVICE_MESSAGES.authorizationFailed,
    },
    emailCheck: { mismatch: DEVICE_MESSAGES.dexcomEmailMismatch },
    routes: {
      clientId: {
        path: '/api/dexcomClientId',
        key: 'DEXCOM_CLIENT_ID',
        response: dexcomClientIdResponseSchema,
      },
      callback: {
        path: '/api/dexcom-callback',
        summary: "Completes a Dexcom authorisation; the participant's email must match",
        body: dexcomCallbackSchema,
        input: (body: DexcomCallbackRequest) => ({
          ...body,
          email: body.participantData?.email,
        }),
      },
      refreshToken: '/api/dexcomRefreshToken',
      revokeToken: { method: 'POST', path: '/api/dexcomRevokeToken' },
      isAuth: '/api/dexcomIsParticipantAuth/:id',
      devices: '/api/dexcomDevices/:id',
    },
  },
  scopes: DEXCOM_SCOPES,
  callbackPath: '/dexcom-callback',
  settings: (config, redirectUri) =>
    config.DEXCOM_CLIENT_ID
      ? {
          ...dexcomEndpoints(config.DEXCOM_BASE_URL),
          brand: 'dexcom',
          upstream: 'dexcom',
          clientId: config.DEXCOM_CLIENT_ID,
          ...(config.DEXCOM_CLIENT_SECRET && { clientSecret: config.DEXCOM_CLIENT_SECRET }),
          clientAuth: 'body',
          redirectUri,
          scopes: DEXCOM_SCOPES,
        }
      : undefined,
  createClient: (settings, deps) => createDexcomClient(settings, deps),
  sync: dexcomSource,
  dataRoutes: dexcomDataRoutes,
};
