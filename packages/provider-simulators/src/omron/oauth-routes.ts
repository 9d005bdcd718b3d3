/**
 * Omron's OAuth 2.0 / OpenID endpoints, IdentityServer style: /connect/authorize (consent
 * page), /connect/token (client secret in the body or a Basic header; PKCE optional but
 * enforced when a challenge was sent), /connect/revocation, and OIDC discovery with JWKS.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OMRON_SCOPES, type OmronContext } from './context';
import { tokenError } from './errors';
import { jwks } from './id-token';
import { renderConsentPage, renderErrorPage } from '../common/authorize-page';
import {
  findClient,
  formValues,
  isRedirectAllowed,
  pkceMatches,
  readClientCredentials,
  redirectWith,
  type FormBody,
} from '../common/oauth';
import type { OAuthClientConfig } from '../common/types';

type Form = Record<string, string | undefined>;

const PROVIDER = 'OMRON connect';
const ACCENT = '#005eb8';

export function registerOmronOAuthRoutes(app: FastifyInstance, ctx: OmronContext) {
  app.get('/.well-known/openid-configuration', async (request) => {
    const issuer = ctx.issuerFor(request);
    const origin = originOf(request);
    return {
      issuer,
      jwks_uri: `${origin}/.well-known/openid-configuration/jwks`,
      authorization_endpoint: `${origin}/connect/authorize`,
      token_endpoint: `${origin}/connect/token`,
      revocation_endpoint: `${origin}/connect/revocation`,
      scopes_supported: [...OMRON_SCOPES],
      claims_supported: ['sub'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      code_challenge_methods_supported: ['plain', 'S256'],
    };
  });
  app.get('/.well-known/openid-configuration/jwks', async () => jwks());

  app.get('/connect/authorize', async (request, reply) => {
    const query = request.query as Form;
    const client = findClient(ctx.clients, query.client_id);
    // Without a known client and redirect URI there is nowhere safe to send an error.
    if (!client)
      return errorPage(reply, 'unauthorized_client', 'Unknown client or client not enabled');
    if (!query.redirect_uri || !isRedirectAllowed(client, query.redirect_uri)) {
      return errorPage(reply, 'invalid_request', 'Invalid redirect_uri');
    }
    const back = (error: string, description: string) =>
      reply.redirect(
        redirectWith(query.redirect_uri as string, {
          error,
          error_description: description,
          state: query.state,
        }),
        302,
      );
    if (query.response_type !== 'code')
      return back('unsupported_response_type', 'Response type not supported');
    const scopes = (query.scope ?? '').split(' ').filter(Boolean);
    if (scopes.length === 0) return back('invalid_scope', 'Missing scope');
    if (scopes.some((s) => !(OMRON_SCOPES as readonly string[]).includes(s))) {
      return back('invalid_scope', 'Invalid scope');
    }
    let codeChallengeMethod: 'S256' | 'plain' | undefined;
    if (query.code_challenge !== undefined) {
      codeChallengeMethod = (query.code_challenge_method ?? 'plain') as 'S256' | 'plain';
      if (codeChallengeMethod !== 'S256' && codeChallengeMethod !== 'plain') {
        return back('invalid_request', 'Transform algorithm not supported');
      }
      if (query.code_challenge.length < 43 || query.code_challenge.length > 128) {
        return back('invalid_request', 'Invalid code_challenge');
      }
    }
    const requestId = ctx.authorizations.addPending({
      clientId: client.clientId,
      redirectUri: query.redirect_uri,
      scope: scopes.join(' '),
      state: query.state,
      nonce: query.nonce,
      codeChallenge: query.code_challenge,
      codeChallengeMethod,
    });
    return reply.type('text/html; charset=utf-8').send(
      renderConsentPage({
        providerName: PROVIDER,
        accent: ACCENT,
        clientId: client.clientId,
        scopes: scopes.map((scope) => ({ value: scope, label: scope })),
        partialConsent: false,
        accounts: ctx.accounts.map((a) => ({ id: a.id, label: a.name, detail: a.description })),
        formAction: '/connect/authorize/consent',
        hiddenFields: { request_id: requestId },
      }),
    );
  });

  app.post('/connect/authorize/consent', async (request, reply) => {
    const form = formValues(request.body);
    const pending = form.request_id ? ctx.authorizations.takePending(form.request_id) : undefined;
    if (!pending)
      return errorPage(reply, 'invalid_request', 'The sign-in request expired or was already used');
    if (form.decision !== 'allow') {
      return reply.redirect(
        redirectWith(pending.redirectUri, { error: 'access_denied', state: pending.state }),
        302,
      );
    }
    const account = ctx.accounts.find((a) => a.id === form.account);
    if (!account) return errorPage(reply, 'invalid_request', 'Unknown account');
    const code = ctx.authorizations.issueCode(pending, account.id);
    return reply.redirect(
      redirectWith(pending.redirectUri, {
        code,
        scope: pending.scope,
        state: pending.state,
        session_state: `${code.slice(0, 16).toLowerCase()}.${account.id.slice(0, 8)}`,
      }),
      302,
    );
  });

  app.post('/connect/token', async (request, reply) => {
    const form = formBody(request);
    if (!form) return tokenError(reply, 'invalid_request');
    const client = authenticateClient(ctx.clients, request);
    if (!client) return tokenError(reply, 'invalid_client');
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');

    if (form.grant_type === 'authorization_code') {
      if (!form.code) return tokenError(reply, 'invalid_request');
      const code = ctx.authorizations.takeCode(form.code);
      if (!code || code === 'expired') return tokenError(reply, 'invalid_grant');
      if (code.clientId !== client.clientId || code.redirectUri !== form.redirect_uri) {
        return tokenError(reply, 'invalid_grant');
      }
      if (code.codeChallenge && code.codeChallengeMethod) {
        const verifier = form.code_verifier;
        if (!verifier || !pkceMatches(verifier, code.codeChallenge, code.codeChallengeMethod)) {
          return tokenError(reply, 'invalid_grant');
        }
      }
      const issued = ctx.tokens.issue({
        accountId: code.accountId,
        clientId: client.clientId,
        scope: code.scope,
      });
      return ctx.tokenResponse(issued, ctx.issuerFor(request), code.nonce);
    }

    if (form.grant_type === 'refresh_token') {
      if (!form.refresh_token) return tokenError(reply, 'invalid_request');
      // One-time-only refresh tokens: each refresh consumes the old one and returns a new one.
      const checked = ctx.tokens.checkRefresh(form.refresh_token, client.clientId, true);
      if (!checked.ok) return tokenError(reply, 'invalid_grant');
      const issued = ctx.tokens.issue(checked.grant);
      return ctx.tokenResponse(issued, ctx.issuerFor(request));
    }

    return tokenError(reply, form.grant_type ? 'unsupported_grant_type' : 'invalid_request');
  });

  app.post('/connect/revocation', async (request, reply) => {
    const form = formBody(request);
    if (!form) return tokenError(reply, 'invalid_request');
    const client = authenticateClient(ctx.clients, request);
    if (!client) return tokenError(reply, 'invalid_client');
    if (!form.token) return tokenError(reply, 'invalid_request');
    const hint = form.token_type_hint;
    if (hint && hint !== 'access_token' && hint !== 'refresh_token') {
      return tokenError(reply, 'unsupported_token_type');
    }
    // RFC 7009: unknown or foreign tokens still get 200, so revocation reveals nothing.
    ctx.tokens.revokeToken(form.token, client.clientId);
    return reply.code(200).send();
  });
}

/** IdentityServer accepts the secret in the form body or in a Basic header. */
function authenticateClient(
  clients: OAuthClientConfig[],
  request: FastifyRequest,
): OAuthClientConfig | undefined {
  const credentials = readClientCredentials(
    request.headers.authorization,
    (request.body ?? {}) as FormBody,
  );
  if (credentials.method !== 'basic' && credentials.method !== 'post') return undefined;
  const client = findClient(clients, credentials.clientId);
  return client?.clientSecret !== undefined && credentials.clientSecret === client.clientSecret
    ? client
    : undefined;
}

function formBody(request: FastifyRequest): Form | undefined {
  const type = request.headers['content-type'] ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) return undefined;
  return formValues(request.body);
}

function errorPage(reply: FastifyReply, error: string, description: string) {
  return reply
    .code(400)
    .type('text/html; charset=utf-8')
    .send(renderErrorPage(PROVIDER, ACCENT, error, description));
}

export function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}
