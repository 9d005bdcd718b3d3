/**
 * Dexcom's OAuth 2.0 endpoints (under /v2/oauth2 even for v3 data): the sandbox-style
 * login page, and the token endpoint with the client secret in the form body. No PKCE (a
 * code_verifier is ignored), no revocation endpoint; every refresh rotates the refresh token.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DexcomContext } from './context';
import { tokenError } from './errors';
import { renderConsentPage, renderErrorPage } from '../common/authorize-page';
import { findClient, formValues, isRedirectAllowed, redirectWith } from '../common/oauth';
import type { IssuedTokens } from '../common/signed-tokens';

type Form = Record<string, string | undefined>;

export const DEXCOM_SCOPE = 'offline_access';

const PROVIDER = 'Dexcom Sandbox';
const ACCENT = '#58a618';

export function registerDexcomOAuthRoutes(app: FastifyInstance, ctx: DexcomContext) {
  app.get('/v2/oauth2/login', async (request, reply) => {
    const query = request.query as Form;
    const client = findClient(ctx.clients, query.client_id);
    if (!client) return errorPage(reply, 'invalid_client', 'Unknown client_id');
    if (!query.redirect_uri || !isRedirectAllowed(client, query.redirect_uri)) {
      return errorPage(
        reply,
        'invalid_request',
        'redirect_uri does not match a registered redirect URI',
      );
    }
    if (query.response_type !== 'code') {
      return reply.redirect(
        redirectWith(query.redirect_uri, {
          error: 'unsupported_response_type',
          state: query.state,
        }),
        302,
      );
    }
    const requestId = ctx.authorizations.addPending({
      clientId: client.clientId,
      redirectUri: query.redirect_uri,
      scope: query.scope || DEXCOM_SCOPE,
      state: query.state,
    });
    return reply.type('text/html; charset=utf-8').send(
      renderConsentPage({
        providerName: PROVIDER,
        accent: ACCENT,
        clientId: client.clientId,
        scopes: [
          {
            value: DEXCOM_SCOPE,
            label:
              'Estimated glucose values, events, calibrations, alerts and devices (offline access)',
          },
        ],
        partialConsent: false,
        accounts: ctx.accounts.map((a) => ({ id: a.id, label: a.id, detail: a.description })),
        formAction: '/v2/oauth2/login/consent',
        hiddenFields: { request_id: requestId },
        accountInput: 'select',
        accountLabel: 'Sandbox user',
        note: 'Sandbox users need no password.',
      }),
    );
  });

  app.post('/v2/oauth2/login/consent', async (request, reply) => {
    const form = formValues(request.body);
    const pending = form.request_id ? ctx.authorizations.takePending(form.request_id) : undefined;
    if (!pending)
      return errorPage(reply, 'invalid_request', 'The login request expired or was already used');
    if (form.decision !== 'allow') {
      return reply.redirect(
        redirectWith(pending.redirectUri, { error: 'access_denied', state: pending.state }),
        302,
      );
    }
    const account = ctx.accounts.find((a) => a.id === form.account);
    if (!account) return errorPage(reply, 'invalid_request', 'Unknown sandbox user');
    const code = ctx.authorizations.issueCode(pending, account.id);
    return reply.redirect(redirectWith(pending.redirectUri, { code, state: pending.state }), 302);
  });

  app.post('/v2/oauth2/token', async (request, reply) => {
    const type = request.headers['content-type'] ?? '';
    if (!type.startsWith('application/x-www-form-urlencoded')) {
      return tokenError(
        reply,
        'invalid_request',
        'Content-Type must be application/x-www-form-urlencoded',
      );
    }
    const form = formValues(request.body);
    const client = findClient(ctx.clients, form.client_id);
    // Dexcom takes the secret in the body; a Basic header alone does not authenticate.
    if (
      !client ||
      client.clientSecret === undefined ||
      form.client_secret !== client.clientSecret
    ) {
      return tokenError(
        reply,
        'invalid_client',
        form.client_secret === undefined && request.headers.authorization
          ? 'client_id and client_secret must be sent in the request body'
          : 'Client authentication failed',
      );
    }

    if (form.grant_type === 'authorization_code') {
      if (!form.code) return tokenError(reply, 'invalid_request', 'Missing parameter: code');
      if (!form.redirect_uri)
        return tokenError(reply, 'invalid_request', 'Missing parameter: redirect_uri');
      const code = ctx.authorizations.takeCode(form.code);
      if (!code || code === 'expired')
        return tokenError(reply, 'invalid_grant', 'Invalid or expired authorization code');
      if (code.clientId !== client.clientId || code.redirectUri !== form.redirect_uri) {
        return tokenError(
          reply,
          'invalid_grant',
          'Authorization code was issued to another client or redirect_uri',
        );
      }
      return tokenResponse(
        reply,
        ctx.tokens.issue({
          accountId: code.accountId,
          clientId: client.clientId,
          scope: code.scope,
        }),
      );
    }

    if (form.grant_type === 'refresh_token') {
      if (!form.refresh_token)
        return tokenError(reply, 'invalid_request', 'Missing parameter: refresh_token');
      // Rotation: the old refresh token is consumed; the response carries a new one.
      const checked = ctx.tokens.checkRefresh(form.refresh_token, client.clientId, true);
      if (!checked.ok)
        return tokenError(reply, 'invalid_grant', `Invalid refresh token: ${checked.reason}`);
      return tokenResponse(reply, ctx.tokens.issue(checked.grant));
    }

    return tokenError(
      reply,
      form.grant_type ? 'unsupported_grant_type' : 'invalid_request',
      form.grant_type
        ? `Unsupported grant_type: ${form.grant_type}`
        : 'Missing parameter: grant_type',
    );
  });
}

export function tokenBody(issued: IssuedTokens): Record<string, unknown> {
  return {
    access_token: issued.accessToken,
    expires_in: issued.expiresIn,
    token_type: 'Bearer',
    refresh_token: issued.refreshToken,
  };
}

function tokenResponse(reply: FastifyReply, issued: IssuedTokens) {
  return reply
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .send(tokenBody(issued));
}

function errorPage(reply: FastifyReply, error: string, description: string) {
  return reply
    .code(400)
    .type('text/html; charset=utf-8')
    .send(renderErrorPage(PROVIDER, ACCENT, error, description));
}
