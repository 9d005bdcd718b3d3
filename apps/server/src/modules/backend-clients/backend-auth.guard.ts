/**
 * The guard of every /fhir route a backend client calls (issue 31, SMART Backend Services).
 *
 * API:
 *   preHandler: app.requireBackendClient()                                  // any valid token
 *   preHandler: app.requireBackendClient({ scope: 'system/Observation.rs' }) // and that scope
 *   request.backendClient  // { clientId, teamId, scopes } once the guard passed
 *   scopesAllow(request.backendClient.scopes, 'Patient')  // per resource type (backend-scopes.ts)
 *
 * It reads only the `Authorization: Bearer <token>` header (cookies never authorise /fhir),
 * verifies the token (ours, unexpired), re-reads the client on every request (revoked →
 * 401 at the next call) and audits the use (client, route, when). Refusals are FhirError:
 * 401 OperationOutcome code `login` (missing/invalid/expired token, revoked client) and 403
 * code `forbidden` (the option's scope not granted), Content-Type application/fhir+json.
 * The team is the token's: a route finds its objects in `request.backendClient.teamId`
 * only and answers 404 for anything else. Tokens come from `POST /fhir/auth/token`
 * (smart.routes.ts); tests get one with `backendToken` (test-support.ts).
 */
import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { BackendResourceType } from '@trialpulse/shared/backend-clients/backend-clients.schemas';
import { FhirError } from '../../lib/fhir-errors';
import { requestMeta } from '../../lib/request-meta';
import type { BackendCaller, BackendClientsService } from './backend-clients.service';
import { scopesAllow } from './backend-scopes';

/** Marks a preHandler made by `requireBackendClient`; its value is the guard's options. */
export const BACKEND_GUARD = Symbol.for('trialpulse.backendGuard');

export type RequireBackendClientOptions = {
  /** A scope the token must grant, `system/<Type>.rs` (or `.read`); omit for any token. */
  scope?: `system/${BackendResourceType}.${'rs' | 'read'}`;
};

declare module 'fastify' {
  interface FastifyRequest {
    /** The backend client of a /fhir call, once `requireBackendClient` let it through. */
    backendClient: BackendCaller | null;
  }
  interface FastifyInstance {
    /** preHandler: a valid bearer token of an unrevoked backend client (and its scope). */
    requireBackendClient(options?: RequireBackendClientOptions): preHandlerAsyncHookHandler;
  }
}

export const backendAuthGuardPlugin = fp(
  async (
    app: FastifyInstance,
    options: { backendClients: Pick<BackendClientsService, 'authenticate'> },
  ) => {
    app.decorateRequest('backendClient', null);
    app.decorate(
      'requireBackendClient',
      (guard: RequireBackendClientOptions = {}): preHandlerAsyncHookHandler => {
        const type = guard.scope?.slice('system/'.length).split('.')[0] as
          BackendResourceType | undefined;
        const handler: preHandlerAsyncHookHandler = async (request) => {
          const caller = await options.backendClients.authenticate(
            request.headers.authorization,
            {
              method: request.method,
              url: request.routeOptions.url ?? request.url,
              path: request.url.split('?')[0]!,
            },
            requestMeta(request),
          );
          if (type && !scopesAllow(caller.scopes, type))
            throw FhirError.forbidden(`The access token does not grant ${guard.scope}.`);
          request.backendClient = caller;
        };
        // The route's declared access, readable from the route list (security suite).
        return Object.assign(handler, { [BACKEND_GUARD]: guard });
      },
    );
  },
  { name: 'backend-auth-guard' },
);
