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
  CONSENT_LINK_BRANDS,
  DEVICE_STATUS_BATCH,
  isAuthResponseSchema,
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
import { PROVIDER_PLUGINS } from '../../providers';
import type { AuthContext } from '../auth/session-context';
import type { DevicesService } from './devices.service';

type Options = { devices: DevicesService; clock: Clock };

const participantParams = z.object({ id: rowIdSchema() });
const messageSchema = z.object({ message: z.string() });
const SCOPE_NOTE =
  'A participant of another team, or of a trial a User is not a trial user of, answers 404. No provider token is ever sent.';
/** Public authorisation calls: generous for a person, tight for a script guessing tokens. */
const PUBLIC_LIMIT = { rateLimit: { max: 30, timeWindow: '15 minutes' } };

/** Each brand's spec routes, from the plugin its new links go through (in the registry's order). */
const BRAND_ROUTES = PROVIDER_PLUGINS.flatMap((plugin) =>
  plugin.linksNewConnections && plugin.linking
    ? [{ brand: plugin.brand, ...plugin.linking.routes }]
    : [],
);

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
  for (const { brand, clientId } of BRAND_ROUTES) {
    app.get(
      clientId.path,
      {
        schema: {
          tags: ['devices'],
          summary: `The ${brand} OAuth client id`,
          response: { 200: clientId.response },
        },
      },
      async () => ({ [clientId.key]: devices.linking.clientId(brand) }),
    );
  }

  // --- Starting an authorisation -----------------------------------------------------------
  app.post(
    '/api/participantConsentEmail',
    {
      schema: {
        tags: ['devices'],
        summary: `Emails the participant a consent link (valid 72 hours) for ${CONSENT_LINK_BRANDS.join(' or ')}`,
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
  for (const { brand, callback } of BRAND_ROUTES) {
    app.post(
      callback.path,
      {
        schema: {
          tags: ['devices'],
          summary: callback.summary,
          description: callbackNote,
          body: callback.body,
          response: { 200: callbackResponseSchema },
        },
        config: PUBLIC_LIMIT,
      },
      async (request) =>
        devices.linking.completeCallback(
          brand,
          callback.input(request.body as never),
          requestMeta(request),
        ),
    );
  }

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
  for (const { brand, refreshToken, revokeToken } of BRAND_ROUTES) {
    tokenRoute(refreshToken, brand, 'refresh');
    if (revokeToken.method === 'POST') tokenRoute(revokeToken.path, brand, 'revoke');
  }

  // The spec makes Fitbit's revoke a GET; it changes state, so it needs the CSRF header too.
  for (const { brand, revokeToken } of BRAND_ROUTES) {
    if (revokeToken.method !== 'GET') continue;
    app.get(
      revokeToken.path,
      {
        schema: {
          tags: ['devices'],
          summary: `Revokes the participant's ${brand} access (needs the x-csrf-token header although a GET)`,
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
          brand,
          'revoke',
          requestMeta(request),
        ),
    );
  }

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
  for (const { brand, isAuth } of BRAND_ROUTES) isAuthRoute(isAuth, brand);

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
  for (const { brand, devices: path } of BRAND_ROUTES) deviceListRoute(path, brand);

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
