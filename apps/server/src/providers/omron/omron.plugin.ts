import {
  DEVICE_MESSAGES,
  omronCallbackSchema,
  omronClientIdResponseSchema,
  type OmronCallbackRequest,
} from '@trialpulse/shared';
import type { ProviderPlugin } from '../types';
import { omronDataRoutes } from './omron-data.routes';
import { createOmronClient, OMRON_SCOPES, omronEndpoints } from './omron.client';
import { omronSource } from './omron.source';

/**
 * Omron Connect. Omron documents no webhook signature: the notification URI registered with
 * Omron carries the secret (`?token=`; query strings are not logged), and Omron expects 200
 * with no body (decision 0102).
 */
export const omronPlugin: ProviderPlugin = {
  upstream: 'omron',
  label: 'Omron API',
  brand: 'Omron',
  linksNewConnections: true,
  linking: {
    consentPage: '/OmronConsentPage',
    callbackTexts: {
      denied: DEVICE_MESSAGES.omronAuthorizationFailed,
      exchangeFailed: DEVICE_MESSAGES.authorizationFailed,
    },
    routes: {
      clientId: {
        path: '/api/omronClientId',
        key: 'OMRON_CLIENT_ID',
        response: omronClientIdResponseSchema,
      },
      callback: {
        path: '/api/omron-callback',
        summary: 'Completes an Omron authorisation',
        body: omronCallbackSchema,
        input: (body: OmronCallbackRequest) => ({
          ...body,
          participantId: body.participantData?.participantId,
        }),
      },
      refreshToken: '/api/omronRefreshToken',
      revokeToken: { method: 'POST', path: '/api/omronRevokeToken' },
      isAuth: '/api/omronIsParticipantAuth/:id',
      devices: '/api/omronDevices/:id',
    },
  },
  scopes: OMRON_SCOPES,
  callbackPath: '/omron-callback',
  settings: (config, redirectUri) =>
    config.OMRON_CLIENT_ID
      ? {
          ...omronEndpoints(config.OMRON_BASE_URL),
          brand: 'omron',
          upstream: 'omron',
          clientId: config.OMRON_CLIENT_ID,
          ...(config.OMRON_CLIENT_SECRET && { clientSecret: config.OMRON_CLIENT_SECRET }),
          clientAuth: 'body',
          redirectUri,
          scopes: OMRON_SCOPES,
        }
      : undefined,
  createClient: (settings, deps) => createOmronClient(settings, deps),
  sync: omronSource,
  dataRoutes: omronDataRoutes,
  webhook: {
    path: '/webhooks/omron',
    secret: (config) => config.OMRON_NOTIFICATION_SECRET,
    credential: (request) => (request.query as { token?: unknown } | undefined)?.token,
    expected: (secret) => secret,
    notifications(body) {
      const note = body as { id?: unknown; type?: unknown } | null;
      if (
        !note ||
        typeof note !== 'object' ||
        typeof note.id !== 'string' ||
        note.id.length === 0 ||
        note.id.length > 200
      )
        return { status: 400, reply: { error: 'invalid notification' }, users: [] };
      const type = note.type === 'bloodpressure' || note.type === 'weight' ? note.type : undefined;
      // A type TrialPulse does not store (activity) needs no sync.
      const wanted = note.type === undefined || type;
      return {
        status: 200,
        users: wanted ? [{ providerUserId: note.id, ...(type && { stream: type }) }] : [],
      };
    },
  },
};
