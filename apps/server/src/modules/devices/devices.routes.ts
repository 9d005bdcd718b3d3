import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  LOGIN_MESSAGES,
  authorizeUrlResponseSchema,
  brandPathSchema,
  callbackResponseSchema,
  consentEmailRequestSchema,
  consentLinkAuthorizeSchema,
  deviceConnectionsResponseSchema,
  deviceListEntryOf,
  deviceListResponseSchema,
  deviceStatusQuerySchema,
  deviceStatusResponseSchema,
  DEVICE_STATUS_BATCH,
  dexcomCallbackSchema,
  dexcomClientIdResponseSchema,
  fitbitCallbackSchema,
  fitbitClientIdResponseSchema,
  isAuthResponseSchema,
  omronCallbackSchema,
  omronClientIdResponseSchema,
  participantConnectionsResponseSchema,
  participantDeviceIdSchema,
  portalDeviceActionSchema,
  portalEnrolmentsResponseSchema,
  staffAuthorizeSchema,
  tokenActionResponseSchema,
  type DeviceBrandName,
  rowIdSchema,
} from '@trialpulse/shared';
import type { Clock } from '../../lib/clock';
import { AppError } from '../../lib/errors';
import { requestMeta } from '../../lib/request-meta';
import type { AuthContext } from '../auth/session-context';
import type { DevicesService } from './devices.service';

type Options = { devices: DevicesService; clock: Clock };

const participantParams = z.object({ id: rowIdSchema() });
const messageSchema = z.object({ message: z.string() });
const SCOPE_NOTE =
  'A participant of another team, or of a trial a User is not a trial user of, answers 404. No provider token is ever sent.';
/** Public authorisation calls: generous for a person, tight for a script guessing tokens. */
const PUBLIC_LIMIT = { rateLimit: { max: 30, timeWindow: '15 minutes' } };

/**
 * Device linking and the token lifecycle (access spec §7; device-data spec §7; decision
 * 0019). Staff calls are for Sys_Admin, Admin and User (token management lists for
 * Sys_Admin and Admin); consent-link and callback calls are public and bound to a
 * consent token or an OAuth state; the participant portal is for participant accounts.
 */
export const devicesRoutes: FastifyPluginAsyncZod<Options> = async (app, { devices, clock }) => {
  // When each request arrived, before it queued for the session check and the database: a
  // refresh that finished after that moment answers the request (single-flight refresh).
  const arrivedAt = new WeakMap<FastifyRequest, Date>();
  app.addHook('onRequest', async (request) => {
    arrivedAt.set(request, clock.now());
  });
  const connect = app.requireStaff({ action: 'device.connect' });
  const caller = (request: { auth: AuthContext | null }) => request.auth!;
  const requireParticipant = async (request: FastifyRequest) => {
    const auth = await app.loadAuth(request);
    if (!auth) throw AppError.unauthenticated(LOGIN_MESSAGES.sessionExpired);
    if (auth.kind !== 'participant') throw AppError.forbidden();
  };
  const noStore = { 'cache-control': 'no-store' };

  // --- Client ids (public: they are in every consent URL anyway) ---------------------------
  app.get(
    '/api/fitbitClientId',
    {
      schema: {
        tags: ['devices'],
        summary: 'The Fitbit OAuth client id',
        response: { 200: fitbitClientIdResponseSchema },
      },
    },
    async () => ({ FITBIT_CLIENT_ID: devices.linking.clientId('Fitbit') }),
  );
  app.get(
    '/api/omronClientId',
    {
      schema: {
        tags: ['devices'],
        summary: 'The Omron OAuth client id',
        response: { 200: omronClientIdResponseSchema },
      },
    },
    async () => ({ OMRON_CLIENT_ID: devices.linking.clientId('Omron') }),
  );
  app.get(
    '/api/dexcomClientId',
    {
      schema: {
        tags: ['devices'],
        summary: 'The Dexcom OAuth client id',
        response: { 200: dexcomClientIdResponseSchema },
      },
    },
    async () => ({ DEXCOM_CLIENT_ID: devices.linking.clientId('Dexcom') }),
  );

  // --- Starting an authorisation -----------------------------------------------------------
  app.post(
    '/api/participantConsentEmail',
    {
      schema: {
        tags: ['devices'],
        summary: 'Emails the participant a consent link (valid 72 hours) for Fitbit or Omron',
        description: SCOPE_NOTE,
        body: consentEmailRequestSchema,
        response: { 200: messageSchema },
      },
      preHandler: connect,
    },
    async (request) =>
      devices.sendConsentEmail(caller(request), request.body, requestMeta(request)),
  );

  app.post(
    '/api/deviceAuthorization',
    {
      schema: {
        tags: ['devices'],
        summary:
          "Starts a provider authorisation with the participant present; answers the provider's consent URL",
        description: SCOPE_NOTE,
        body: staffAuthorizeSchema,
        response: { 200: authorizeUrlResponseSchema },
      },
      preHandler: connect,
    },
    async (request, reply) => {
      reply.headers(noStore);
      return devices.authorizeAsStaff(caller(request), request.body, requestMeta(request));
    },
  );

  app.post(
    '/api/consentLinkAuthorize',
    {
      schema: {
        tags: ['devices'],
        summary:
          "The consent page's Authorize Access: checks the emailed link and answers the provider's consent URL",
        body: consentLinkAuthorizeSchema,
        response: { 200: authorizeUrlResponseSchema },
      },
      config: PUBLIC_LIMIT,
    },
    async (request, reply) => {
      reply.headers(noStore);
      return devices.linking.authorizeFromConsentLink(request.body, requestMeta(request));
    },
  );

  // --- Callbacks -----------------------------------------------------------------------------
  const callbackNote =
    'Public. `state` must be the one this server issued for the brand, unused and not expired (else 422).';
  app.post(
    '/api/fitbit-callback',
    {
      schema: {
        tags: ['devices'],
        summary: 'Completes a Fitbit authorisation',
        description: callbackNote,
        body: fitbitCallbackSchema,
        response: { 200: callbackResponseSchema },
      },
      config: PUBLIC_LIMIT,
    },
    async (request) =>
      devices.linking.completeCallback('Fitbit', request.body, requestMeta(request)),
  );
  app.post(
    '/api/omron-callback',
    {
      schema: {
        tags: ['devices'],
        summary: 'Completes an Omron authorisation',
        description: callbackNote,
        body: omronCallbackSchema,
        response: { 200: callbackResponseSchema },
      },
      config: PUBLIC_LIMIT,
    },
    async (request) =>
      devices.linking.completeCallback(
        'Omron',
        { ...request.body, participantId: request.body.participantData?.participantId },
        requestMeta(request),
      ),
  );
  app.post(
    '/api/dexcom-callback',
    {
      schema: {
        tags: ['devices'],
        summary: "Completes a Dexcom authorisation; the participant's email must match",
        description: callbackNote,
        body: dexcomCallbackSchema,
        response: { 200: callbackResponseSchema },
      },
      config: PUBLIC_LIMIT,
    },
    async (request) =>
      devices.linking.completeCallback(
        'Dexcom',
        { ...request.body, email: request.body.participantData?.email },
        requestMeta(request),
      ),
  );

  // --- Token lifecycle -------------------------------------------------------------------------
  const tokenRoute = (path: string, brand: DeviceBrandName, action: 'refresh' | 'revoke') =>
    app.post(
      path,
      {
        schema: {
          tags: ['devices'],
          summary: `${action === 'refresh' ? 'Refreshes' : 'Revokes'} the participant's ${brand} access token`,
          description: SCOPE_NOTE,
          body: participantDeviceIdSchema,
          response: { 200: tokenActionResponseSchema },
        },
        preHandler: connect,
      },
      async (request) =>
        devices.tokenAction(
          caller(request),
          request.body.id,
          brand,
          action,
          requestMeta(request),
          arrivedAt.get(request),
        ),
    );
  tokenRoute('/api/fitbitRefreshToken', 'Fitbit', 'refresh');
  tokenRoute('/api/omronRefreshToken', 'Omron', 'refresh');
  tokenRoute('/api/omronRevokeToken', 'Omron', 'revoke');
  tokenRoute('/api/dexcomRefreshToken', 'Dexcom', 'refresh');
  tokenRoute('/api/dexcomRevokeToken', 'Dexcom', 'revoke');

  // The spec makes Fitbit's revoke a GET; it changes state, so it needs the CSRF header too.
  app.get(
    '/api/revokeAccessToken/:id',
    {
      schema: {
        tags: ['devices'],
        summary:
          "Revokes the participant's Fitbit access (needs the x-csrf-token header although a GET)",
        description: SCOPE_NOTE,
        params: participantParams,
        response: { 200: tokenActionResponseSchema },
      },
      preHandler: [connect, app.csrfProtection],
    },
    async (request) =>
      devices.tokenAction(
        caller(request),
        request.params.id,
        'Fitbit',
        'revoke',
        requestMeta(request),
      ),
  );

  // --- Status --------------------------------------------------------------------------------
  const isAuthRoute = (path: string, brand: DeviceBrandName) =>
    app.get(
      path,
      {
        schema: {
          tags: ['devices'],
          summary: `Whether the participant has authorised ${brand} ('found')`,
          description: SCOPE_NOTE,
          params: participantParams,
          response: { 200: isAuthResponseSchema },
        },
        preHandler: connect,
      },
      async (request) => devices.isAuth(caller(request), request.params.id, brand),
    );
  isAuthRoute('/api/fitbitIsParticipantAuth/:id', 'Fitbit');
  isAuthRoute('/api/omronIsParticipantAuth/:id', 'Omron');
  isAuthRoute('/api/dexcomIsParticipantAuth/:id', 'Dexcom');

  const deviceListRoute = (path: string, brand: DeviceBrandName) =>
    app.get(
      path,
      {
        schema: {
          tags: ['devices'],
          summary: `The participant's ${brand} devices (battery, version, type, last sync); provider failures come back as error entries`,
          description: SCOPE_NOTE,
          params: participantParams,
          response: { 200: deviceListResponseSchema },
        },
        preHandler: connect,
      },
      async (request) => ({
        devices: (
          await devices.deviceList(caller(request), request.params.id, brand, requestMeta(request))
        ).map(deviceListEntryOf),
      }),
    );
  deviceListRoute('/api/fitbitDevices/:id', 'Fitbit');
  deviceListRoute('/api/omronDevices/:id', 'Omron');
  deviceListRoute('/api/dexcomDevices/:id', 'Dexcom');

  app.get(
    `/api${DEVICE_STATUS_BATCH.path}`,
    {
      schema: {
        tags: ['devices'],
        summary:
          "Device status of a table page: each participant's authorisation per allowed brand and (Fitbit) devices",
        description:
          'Up to 50 participant ids (`ids=1,2,3`). Device lists come from the stored status, read again from the provider only when older than one status cycle (decision 0041). Ids the caller may not see are left out.',
        querystring: deviceStatusQuerySchema,
        response: { 200: deviceStatusResponseSchema },
      },
      // Before validation: an anonymous caller learns nothing about the query's shape.
      preValidation: connect,
    },
    async (request, reply) => {
      reply.headers(noStore);
      return devices.deviceStatus(caller(request), request.query.ids, requestMeta(request));
    },
  );

  app.get(
    '/api/participantConnections/:id',
    {
      schema: {
        tags: ['devices'],
        summary: "The participant's connection for each brand the team allows",
        description: SCOPE_NOTE,
        params: participantParams,
        response: { 200: participantConnectionsResponseSchema },
      },
      preHandler: connect,
    },
    async (request) => devices.participantConnections(caller(request), request.params.id),
  );

  app.get(
    '/api/deviceConnections/:brand',
    {
      schema: {
        tags: ['devices'],
        summary: "Every connection of a brand in the caller's team (token management pages)",
        params: z.object({ brand: brandPathSchema }),
        response: { 200: deviceConnectionsResponseSchema },
      },
      // Roles before the brand is validated: an unknown brand tells a Viewer nothing.
      preValidation: app.requireStaff({ action: 'deviceToken.manage' }),
    },
    async (request) => devices.teamConnections(caller(request), request.params.brand),
  );

  // --- Participant portal ------------------------------------------------------------------
  app.get(
    '/api/Participants/me/enrolments',
    {
      schema: {
        tags: ['devices'],
        summary: "The signed-in participant account's enrolments and their device connections",
        response: { 200: portalEnrolmentsResponseSchema },
      },
      preHandler: requireParticipant,
    },
    async (request, reply) => {
      reply.headers(noStore);
      return devices.portalEnrolments(caller(request));
    },
  );
  app.post(
    '/api/Participants/me/deviceAuthorization',
    {
      schema: {
        tags: ['devices'],
        summary: 'The participant starts authorising a brand for one of their own enrolments',
        body: portalDeviceActionSchema,
        response: { 200: authorizeUrlResponseSchema },
      },
      preHandler: requireParticipant,
    },
    async (request) => devices.portalAuthorize(caller(request), request.body, requestMeta(request)),
  );
  app.post(
    '/api/Participants/me/deviceRevoke',
    {
      schema: {
        tags: ['devices'],
        summary: 'The participant revokes a brand of one of their own enrolments',
        body: portalDeviceActionSchema,
        response: { 200: tokenActionResponseSchema },
      },
      preHandler: requireParticipant,
    },
    async (request) => devices.portalRevoke(caller(request), request.body, requestMeta(request)),
  );
};
