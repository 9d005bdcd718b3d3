import { randomBytes, type KeyObject } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, errors as joseErrors } from 'jose';
import {
  BACKEND_ASSERTION_ALGORITHMS,
  BACKEND_CLIENT_MESSAGES,
  BACKEND_TOKEN_LIFETIME_SECONDS,
  type BackendClient,
  type BackendTokenResponse,
  type RegisterBackendClientValues,
} from '@trialpulse/shared/backend-clients/backend-clients.schemas';
import { recordAudit } from '../../lib/audit';
import type { Clock } from '../../lib/clock';
import { AppError } from '../../lib/errors';
import { FhirError, OAuthError } from '../../lib/fhir-errors';
import type { Meta } from '../../lib/request-meta';
import type { AccessService } from '../access/access.service';
import { teamStatus, type AuthContext } from '../auth/session-context';
import type { BackendClientRow, BackendClientsRepository } from './backend-clients.repository';
import { KeyProblem, parsePublicKeys, verifyAssertion } from './backend-keys';
import { grantScopes, splitScopes } from './backend-scopes';
import { signBackendToken, verifyBackendToken } from './backend-tokens';

export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const TEAM_INACTIVE = "The client's team is not active (switched off or outside its subscription).";

/** The caller of a /fhir route, as the guard sets it on `request.backendClient`. */
export type BackendCaller = { clientId: string; teamId: number; scopes: string[] };

/** The form fields of a token request (RFC 6749 §4.4 with RFC 7523 client authentication). */
export type TokenRequest = Partial<
  Record<
    'grant_type' | 'scope' | 'client_assertion_type' | 'client_assertion' | 'client_id',
    string
  >
>;

/**
 * SMART Backend Services clients of a team (issue 31): the Admin's register, list and
 * revoke; the token endpoint's check of a signed client assertion; and the bearer-token
 * check every /fhir call makes (`authenticate`, behind the guard).
 */
export function createBackendClientsService(deps: {
  repository: BackendClientsRepository;
  access: Pick<AccessService, 'requireTeam'>;
  clock: Clock;
  /** Signs and verifies the access tokens (backendTokenKey(APP_SECRET)). */
  tokenKey: KeyObject;
  /** The token endpoint's absolute URL: the `aud` every assertion must name. */
  tokenEndpoint: string;
}) {
  const { repository, access, clock, tokenKey, tokenEndpoint } = deps;

  return {
    /** The caller's team's clients, newest first. Throws 403 (role, inactive team). */
    async list(auth: AuthContext): Promise<BackendClient[]> {
      const teamId = access.requireTeam(auth, 'backendClient.manage');
      return (await repository.listOfTeam(teamId)).map(present);
    },

    /**
     * Registers a client for the caller's team with a fresh opaque client_id; audited.
     * Throws 403 (role, inactive team) and 400 with the key field's message when the key
     * is not a usable RS384/ES384 public key.
     */
    async register(
      auth: AuthContext,
      input: RegisterBackendClientValues,
      meta: Meta,
    ): Promise<BackendClient> {
      const teamId = access.requireTeam(auth, 'backendClient.manage');
      let keys;
      try {
        keys = await parsePublicKeys(input.publicKey);
      } catch (error) {
        if (error instanceof KeyProblem)
          throw AppError.badRequest(error.message, [
            { field: 'publicKey', message: error.message },
          ]);
        throw error;
      }
      return repository.transaction(async (tx) => {
        const row = await repository.insert(tx, {
          teamId,
          clientId: randomBytes(24).toString('base64url'),
          name: input.name,
          keyFormat: keys.format,
          jwks: keys.jwks,
          scopes: input.scopes,
          createdBy: auth.userId,
        });
        await recordAudit(tx, {
          action: 'backendClient.register',
          entityType: 'backend_client',
          entityId: row.id,
          actorUserId: auth.userId,
          teamId,
          after: {
            clientId: row.clientId,
            name: row.name,
            scopes: row.scopes,
            keyIds: row.jwks.keys.map((key) => key.kid),
          },
          requestId: meta.requestId,
        });
        return present(row);
      });
    },

    /**
     * Revokes the team's client `id` (its tokens stop at their next request); audited.
     * Throws 403 (role, inactive team), 404 for an unknown or another team's client, 409
     * when it is already revoked.
     */
    async revoke(auth: AuthContext, id: number, meta: Meta): Promise<BackendClient> {
      const teamId = access.requireTeam(auth, 'backendClient.manage');
      return repository.transaction(async (tx) => {
        const row = await repository.lockOfTeam(tx, teamId, id);
        if (!row) throw AppError.notFound(BACKEND_CLIENT_MESSAGES.notFound);
        if (row.revokedAt) throw AppError.conflict(BACKEND_CLIENT_MESSAGES.alreadyRevoked);
        const revoked = await repository.revoke(tx, id, auth.userId, clock.now());
        await recordAudit(tx, {
          action: 'backendClient.revoke',
          entityType: 'backend_client',
          entityId: id,
          actorUserId: auth.userId,
          teamId,
          before: { revokedAt: null },
          after: { clientId: row.clientId, revokedAt: revoked.revokedAt },
          requestId: meta.requestId,
        });
        return present(revoked);
      });
    },

    /**
     * The token endpoint (SMART Backend Services): checks the client assertion — RS384 or
     * ES384 by a registered key, iss = sub = a registered, unrevoked client_id, aud = this
     * endpoint, exp present and at most five minutes ahead, a jti not seen before — and
     * grants the asked scopes the client is allowed. Audited. Throws OAuthError:
     * invalid_request, unsupported_grant_type, invalid_client (401) or invalid_scope.
     */
    async issueToken(form: TokenRequest, meta: Meta): Promise<BackendTokenResponse> {
      if (!form.grant_type) throw new OAuthError('invalid_request', 'grant_type is required.');
      if (form.grant_type !== 'client_credentials')
        throw new OAuthError(
          'unsupported_grant_type',
          'Only grant_type=client_credentials is supported.',
        );
      if (form.client_assertion_type !== JWT_BEARER_ASSERTION)
        throw new OAuthError(
          'invalid_request',
          `client_assertion_type must be ${JWT_BEARER_ASSERTION}.`,
        );
      if (!form.client_assertion)
        throw new OAuthError('invalid_request', 'client_assertion is required.');
      if (!form.scope) throw new OAuthError('invalid_request', 'scope is required.');
      const assertion = form.client_assertion;

      let header: { alg?: string; kid?: string };
      let unverified: { iss?: string };
      try {
        header = decodeProtectedHeader(assertion);
        unverified = decodeJwt(assertion);
      } catch {
        throw new OAuthError('invalid_client', 'client_assertion is not a signed JWT.');
      }
      if (!(BACKEND_ASSERTION_ALGORITHMS as readonly string[]).includes(header.alg ?? ''))
        throw new OAuthError(
          'invalid_client',
          'client_assertion must be signed with RS384 or ES384.',
        );
      const client =
        typeof unverified.iss === 'string' && unverified.iss !== ''
          ? await repository.byClientId(unverified.iss)
          : undefined;
      // RFC 7523 §3: a client_id sent beside the assertion must name the same client.
      if (form.client_id !== undefined && form.client_id !== unverified.iss)
        throw new OAuthError('invalid_client', "client_id does not match the assertion's iss.");
      if (!client || client.revokedAt)
        throw new OAuthError('invalid_client', 'Unknown or revoked client.');
      const now = clock.now();
      if (teamStatus(client.team, now) !== 'Active')
        throw new OAuthError('invalid_client', TEAM_INACTIVE);
      let claims;
      try {
        claims = await verifyAssertion(assertion, client.jwks.keys, header, {
          clientId: client.clientId,
          audience: tokenEndpoint,
          now,
        });
      } catch (error) {
        throw new OAuthError('invalid_client', assertionProblem(error, tokenEndpoint));
      }
      const exp = claims.exp!;
      if (exp * 1000 - now.getTime() > BACKEND_TOKEN_LIFETIME_SECONDS * 1000)
        throw new OAuthError(
          'invalid_client',
          'client_assertion exp must be at most 5 minutes in the future.',
        );
      if (typeof claims.jti !== 'string' || claims.jti === '')
        throw new OAuthError('invalid_client', 'client_assertion must carry a jti.');

      const scopes = grantScopes(splitScopes(form.scope), client.scopes);
      if (scopes.length === 0)
        throw new OAuthError(
          'invalid_scope',
          `None of the asked scopes is allowed for this client (allowed: ${client.scopes.join(' ')}).`,
        );

      return repository.transaction(async (tx) => {
        await repository.sweepAssertions(tx, now);
        const fresh = await repository.recordAssertion(
          tx,
          client.id,
          claims.jti!,
          new Date(exp * 1000),
        );
        if (!fresh)
          throw new OAuthError('invalid_client', 'client_assertion jti has already been used.');
        await recordAudit(tx, {
          action: 'backendClient.token',
          entityType: 'backend_client',
          entityId: client.id,
          teamId: client.teamId,
          after: { clientId: client.clientId, scopes },
          requestId: meta.requestId,
        });
        const accessToken = await signBackendToken(
          { clientId: client.clientId, teamId: client.teamId, scopes },
          tokenKey,
          now,
        );
        return {
          access_token: accessToken,
          token_type: 'bearer' as const,
          expires_in: BACKEND_TOKEN_LIFETIME_SECONDS,
          scope: scopes.join(' '),
        };
      });
    },

    /**
     * The caller of a /fhir request from its bearer token: a valid, unexpired token of a
     * client that still exists unrevoked in the same team. Records the use in the audit log
     * (client, route, when). Throws FhirError 401 (login) for anything else.
     */
    async authenticate(
      authorization: string | undefined,
      route: { method: string; url: string; path: string },
      meta: Meta,
    ): Promise<BackendCaller> {
      const match = /^Bearer\s+([A-Za-z0-9\-_.~+/]+=*)\s*$/i.exec(authorization ?? '');
      if (!match) throw FhirError.login('A bearer access token is required.');
      const claims = await verifyBackendToken(match[1]!, tokenKey, clock.now());
      if (!claims) throw FhirError.login('The access token is invalid or has expired.');
      const client = await repository.byClientId(claims.clientId);
      if (!client || client.teamId !== claims.teamId)
        throw FhirError.login('The access token is invalid or has expired.');
      if (client.revokedAt) throw FhirError.login('The client has been revoked.');
      if (teamStatus(client.team, clock.now()) !== 'Active') throw FhirError.login(TEAM_INACTIVE);
      await recordAudit(repository.db, {
        action: 'backendClient.use',
        entityType: 'backend_client',
        entityId: client.id,
        teamId: client.teamId,
        after: {
          clientId: client.clientId,
          method: route.method,
          route: route.url,
          path: route.path,
        },
        requestId: meta.requestId,
      });
      return { clientId: client.clientId, teamId: client.teamId, scopes: claims.scopes };
    },
  };
}

export type BackendClientsService = ReturnType<typeof createBackendClientsService>;

function present(row: BackendClientRow): BackendClient {
  return {
    id: row.id,
    clientId: row.clientId,
    name: row.name,
    scopes: row.scopes,
    keyFormat: row.keyFormat,
    keyIds: row.jwks.keys.map((key) => key.kid ?? ''),
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt ? row.revokedAt.toISOString() : null,
  };
}

/** What was wrong with an assertion, in words a client's developer can act on. */
function assertionProblem(error: unknown, audience: string): string {
  if (error instanceof joseErrors.JWTExpired) return 'client_assertion has expired.';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return `client_assertion aud must be ${audience}.`;
    if (error.claim === 'iss' || error.claim === 'sub')
      return 'client_assertion iss and sub must both be the client_id.';
    return `client_assertion ${error.claim} is missing or invalid.`;
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed)
    return 'client_assertion must be signed with RS384 or ES384.';
  return 'client_assertion signature does not verify with a registered key.';
}
