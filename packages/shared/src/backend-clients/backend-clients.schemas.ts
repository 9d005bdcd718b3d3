import { z } from 'zod';
import { rowIdSchema } from '../ids';

/**
 * SMART Backend Services clients (issue 31): the team Admin's registration form and list,
 * and the answers of the token endpoint and the SMART configuration. The messages are the
 * server's and the web form's alike.
 */

/** The resource types a backend token may reach (FHIR Bulk Data, Group export). */
export const BACKEND_RESOURCE_TYPES = ['Observation', 'Patient', 'Group', 'Device'] as const;
export type BackendResourceType = (typeof BACKEND_RESOURCE_TYPES)[number];

/**
 * The scopes a client may be allowed, as the form offers them (SMART v2 `.rs`: read and
 * search). Registration also takes the v1 spelling `.read` of the same scopes.
 */
export const BACKEND_SCOPES = [
  'system/*.rs',
  ...BACKEND_RESOURCE_TYPES.map((type) => `system/${type}.rs` as const),
] as const;

/** A scope registration accepts: `system/<Type or *>.rs` or `.read`. */
export const BACKEND_SCOPE_PATTERN = /^system\/(\*|Observation|Patient|Group|Device)\.(rs|read)$/;

/** The signing algorithms of client assertions (SMART Backend Services: RS384, ES384). */
export const BACKEND_ASSERTION_ALGORITHMS = ['RS384', 'ES384'] as const;

/** Access tokens and assertions live at most five minutes (SMART Backend Services). */
export const BACKEND_TOKEN_LIFETIME_SECONDS = 300;

export const BACKEND_CLIENT_MESSAGES = {
  nameRequired: 'Name is required',
  nameTooLong: 'Name can not be more than 100 characters',
  keyRequired: 'Public key is required',
  keyTooLong: 'Public key can not be more than 20000 characters',
  keyInvalid:
    'Public key must be a JWKS (JSON with a "keys" array) or a PEM public key (-----BEGIN PUBLIC KEY-----)',
  keyPrivate: 'This is a private key. Paste the public key only',
  keyUnusable:
    'Public key has no RS384 or ES384 signing key (RSA of 2048 bits or more, or EC P-384)',
  scopesRequired: 'Choose at least one scope',
  scopeInvalid: 'Unknown scope',
  notFound: 'Backend client not found.',
  alreadyRevoked: 'This client is already revoked.',
  registered: 'Client registered.',
  revoked: 'Client revoked.',
} as const;

const MAX_KEY_LENGTH = 20_000;

/**
 * The key's shape as the form can tell it: a JSON object (a JWKS or one JWK) or a PEM block.
 * Whether it holds a usable public key is the server's check (it parses the key).
 */
function keyShapeProblem(text: string): string | null {
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) return BACKEND_CLIENT_MESSAGES.keyPrivate;
  if (text.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        return BACKEND_CLIENT_MESSAGES.keyInvalid;
      const record = parsed as Record<string, unknown>;
      const keys = Array.isArray(record.keys) ? record.keys : [record];
      if (keys.some((key) => typeof key === 'object' && key !== null && 'd' in key))
        return BACKEND_CLIENT_MESSAGES.keyPrivate;
      if (!Array.isArray(record.keys) && typeof record.kty !== 'string')
        return BACKEND_CLIENT_MESSAGES.keyInvalid;
      return null;
    } catch {
      return BACKEND_CLIENT_MESSAGES.keyInvalid;
    }
  }
  if (/^-----BEGIN PUBLIC KEY-----[\s\S]+-----END PUBLIC KEY-----$/.test(text)) return null;
  return BACKEND_CLIENT_MESSAGES.keyInvalid;
}

export const backendClientIdSchema = rowIdSchema(BACKEND_CLIENT_MESSAGES.notFound);

export const registerBackendClientInputSchema = z.object({
  name: z
    .string({ error: BACKEND_CLIENT_MESSAGES.nameRequired })
    .trim()
    .min(1, BACKEND_CLIENT_MESSAGES.nameRequired)
    .max(100, BACKEND_CLIENT_MESSAGES.nameTooLong),
  publicKey: z
    .string({ error: BACKEND_CLIENT_MESSAGES.keyRequired })
    .trim()
    .min(1, BACKEND_CLIENT_MESSAGES.keyRequired)
    .max(MAX_KEY_LENGTH, BACKEND_CLIENT_MESSAGES.keyTooLong)
    .superRefine((text, ctx) => {
      const problem = keyShapeProblem(text);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  scopes: z
    .array(
      z
        .string({ error: BACKEND_CLIENT_MESSAGES.scopeInvalid })
        .regex(BACKEND_SCOPE_PATTERN, BACKEND_CLIENT_MESSAGES.scopeInvalid),
      { error: BACKEND_CLIENT_MESSAGES.scopesRequired },
    )
    .min(1, BACKEND_CLIENT_MESSAGES.scopesRequired)
    .max(BACKEND_SCOPES.length * 2, BACKEND_CLIENT_MESSAGES.scopeInvalid)
    .transform((scopes) => [...new Set(scopes)]),
});
export type RegisterBackendClientInput = z.input<typeof registerBackendClientInputSchema>;
export type RegisterBackendClientValues = z.output<typeof registerBackendClientInputSchema>;

/** A registered client as the Admin's list shows it (no key material beyond key ids). */
export const backendClientSchema = z.object({
  id: z.number().int(),
  clientId: z.string(),
  name: z.string(),
  scopes: z.array(z.string()),
  keyFormat: z.enum(['jwks', 'pem']),
  /** The `kid` of each registered key (a PEM key gets its JWK thumbprint). */
  keyIds: z.array(z.string()),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
});
export type BackendClient = z.infer<typeof backendClientSchema>;

export const backendClientListSchema = z.array(backendClientSchema);

export const backendClientMessageSchema = z.object({
  message: z.string(),
  client: backendClientSchema,
});

/** `POST /fhir/auth/token` success (SMART Backend Services, RFC 6749 §5.1). */
export const backendTokenResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('bearer'),
  expires_in: z.number().int(),
  scope: z.string(),
});
export type BackendTokenResponse = z.infer<typeof backendTokenResponseSchema>;

/** OAuth 2 error answer (RFC 6749 §5.2). */
export const oauthErrorSchema = z.object({
  error: z.enum([
    'invalid_request',
    'invalid_client',
    'invalid_grant',
    'unauthorized_client',
    'unsupported_grant_type',
    'invalid_scope',
  ]),
  error_description: z.string(),
});
export type OAuthErrorBody = z.infer<typeof oauthErrorSchema>;

/** `GET /fhir/.well-known/smart-configuration`. */
export const smartConfigurationSchema = z.object({
  issuer: z.string(),
  token_endpoint: z.string(),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  token_endpoint_auth_signing_alg_values_supported: z.array(z.string()),
  grant_types_supported: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  capabilities: z.array(z.string()),
});
export type SmartConfiguration = z.infer<typeof smartConfigurationSchema>;
