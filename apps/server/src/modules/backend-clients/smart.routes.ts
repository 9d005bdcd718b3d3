import fastifyFormbody from '@fastify/formbody';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  BACKEND_ASSERTION_ALGORITHMS,
  BACKEND_SCOPES,
  backendTokenResponseSchema,
  smartConfigurationSchema,
  type SmartConfiguration,
} from '@trialpulse/shared/backend-clients/backend-clients.schemas';
import { OAuthError } from '../../lib/fhir-errors';
import { requestMeta } from '../../lib/request-meta';
import type { BackendClientsService, TokenRequest } from './backend-clients.service';

/** The path of the token endpoint; its absolute URL (PUBLIC_URL + path) is every assertion's `aud`. */
export const TOKEN_PATH = '/fhir/auth/token';

/** The token endpoint's absolute URL for the app's public URL (what links use, decision 0242). */
export function tokenEndpointUrl(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${TOKEN_PATH}`;
}

const TOKEN_FIELDS = [
  'grant_type',
  'scope',
  'client_assertion_type',
  'client_assertion',
  'client_id',
] as const;

/**
 * SMART Backend Services (issue 31): the discovery document and the token endpoint. Both
 * are called by machines without cookies; the app's CSRF check covers /api only, and the
 * token endpoint authenticates the client by its signed assertion.
 */
export const smartRoutes: FastifyPluginAsyncZod<{
  backendClients: Pick<BackendClientsService, 'issueToken'>;
  publicUrl: string;
}> = async (app, { backendClients, publicUrl }) => {
  // Form bodies only here (this plugin's scope): the token request is form-encoded (RFC 6749).
  await app.register(fastifyFormbody);

  const configuration: SmartConfiguration = {
    issuer: `${publicUrl.replace(/\/+$/, '')}/fhir`,
    token_endpoint: tokenEndpointUrl(publicUrl),
    token_endpoint_auth_methods_supported: ['private_key_jwt'],
    token_endpoint_auth_signing_alg_values_supported: [...BACKEND_ASSERTION_ALGORITHMS],
    grant_types_supported: ['client_credentials'],
    scopes_supported: [...BACKEND_SCOPES, 'system/*.read'],
    capabilities: ['client-confidential-asymmetric'],
  };

  app.get(
    '/fhir/.well-known/smart-configuration',
    {
      schema: {
        tags: ['fhir'],
        summary: 'SMART configuration: the token endpoint and what it supports',
        response: { 200: smartConfigurationSchema },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=3600');
      return configuration;
    },
  );

  app.post(
    TOKEN_PATH,
    {
      schema: {
        tags: ['fhir'],
        summary: 'SMART Backend Services token endpoint (client_credentials, private_key_jwt)',
        description:
          'Form-encoded: grant_type=client_credentials, scope, client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer, client_assertion (RS384/ES384 JWT). Errors as RFC 6749 §5.2.',
        response: { 200: backendTokenResponseSchema },
      },
      config: { rateLimit: { max: 60, timeWindow: '1 minute' } },
    },
    async (request, reply) => {
      const form = tokenForm(request.body, request.headers['content-type']);
      const token = await backendClients.issueToken(form, requestMeta(request));
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return token;
    },
  );
};

/** The token request's fields: a form body, each field at most once. */
function tokenForm(body: unknown, contentType: string | undefined): TokenRequest {
  if (!contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded'))
    throw new OAuthError(
      'invalid_request',
      'The token request must be application/x-www-form-urlencoded.',
    );
  const fields = (body ?? {}) as Record<string, unknown>;
  const form: TokenRequest = {};
  for (const name of TOKEN_FIELDS) {
    const value = fields[name];
    if (value === undefined) continue;
    if (typeof value !== 'string')
      throw new OAuthError('invalid_request', `${name} must be given once.`);
    form[name] = value;
  }
  return form;
}
