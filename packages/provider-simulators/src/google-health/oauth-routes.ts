import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SIMULATED_ACCOUNTS, findAccount } from '../common/accounts';
import { CONSENT_FIELDS, renderConsentPage, renderErrorPage } from '../common/authorize-page';
import type { SimulatedClock } from '../common/clock';
import {
  type FaultController,
  type InjectedFault,
  applyTransportFault,
  isTransportFault,
} from '../common/faults';
import {
  type FormBody,
  type OAuthStore,
  formField,
  isValidPkceValue,
  pkceMatches,
  randomToken,
  readClientCredentials,
  redirectUriAllowed,
  secretMatches,
} from '../common/oauth';
import { requestBaseUrl, routeConfig } from '../common/server';
import { SCOPE_LABELS } from './catalog';
import { oauthError } from './errors';

/**
 * Google OAuth 2.0 as the Health API uses it (facts §2, §13.1):
 * - GET/POST /o/oauth2/v2/auth (accounts.google.com): consent page, redirect with code+state
 *   (and scope), or error=access_denied.
 * - POST /token (oauth2.googleapis.com): authorization_code (+PKCE) and refresh_token; client
 *   secret in the body or a Basic header; access tokens live 3599 s; a refresh token only
 *   with access_type=offline, only on first consent unless prompt=consent; refreshing does
 *   not rotate it; it dies after 6 months unused (7 days absolute in "testing" mode).
 * - POST/GET /revoke?token=… revokes the whole grant.
 * - GET /.well-known/openid-configuration for clients that discover endpoints.
 */

export const ACCESS_TOKEN_SECONDS = 3599;
export const TESTING_REFRESH_SECONDS = 604_799;
const SIX_MONTHS_MS = 183 * 86_400_000;
const CODE_LIFETIME_MS = 10 * 60_000;

export interface GoogleOAuthDeps {
  clock: SimulatedClock;
  oauth: OAuthStore;
  faults: FaultController;
  /** 'testing': refresh tokens expire after 7 days and the response says so. */
  publishingStatus: 'production' | 'testing';
}

export function registerGoogleOAuthRoutes(app: FastifyInstance, deps: GoogleOAuthDeps): void {
  const { oauth, clock } = deps;

  app.get(
    '/.well-known/openid-configuration',
    { config: routeConfig('other') },
    async (request) => {
      const base = requestBaseUrl(request);
      return {
        issuer: base,
        authorization_endpoint: `${base}/o/oauth2/v2/auth`,
        token_endpoint: `${base}/token`,
        revocation_endpoint: `${base}/revoke`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['plain', 'S256'],
        token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
        scopes_supported: Object.keys(SCOPE_LABELS),
      };
    },
  );

  app.get('/o/oauth2/v2/auth', { config: routeConfig('authorize') }, async (request, reply) => {
    if (await authorizeFault(deps.faults, request, reply)) return reply;
    const query = request.query as Record<string, string | undefined>;
    const client = oauth.client(query.client_id);
    if (!client)
      return errorPage(reply, 401, 'Error 401: invalid_client', 'The OAuth client was not found.');
    const redirectUri = query.redirect_uri;
    if (!redirectUri)
      return errorPage(
        reply,
        400,
        'Error 400: invalid_request',
        'Missing required parameter: redirect_uri',
      );
    if (!redirectUriAllowed(client.redirectUris, redirectUri)) {
      return errorPage(
        reply,
        400,
        'Error 400: redirect_uri_mismatch',
        `You can't sign in to this app because it doesn't comply with Google's OAuth 2.0 policy. redirect_uri=${redirectUri}`,
      );
    }
    if (query.response_type !== 'code') {
      return errorPage(
        reply,
        400,
        'Error 400: invalid_request',
        `Invalid response_type: ${query.response_type ?? ''}`,
      );
    }
    const scopes = (query.scope ?? '').split(/[ +]/).filter(Boolean);
    if (scopes.length === 0)
      return errorPage(
        reply,
        400,
        'Error 400: invalid_request',
        'Missing required parameter: scope',
      );
    const unknownScope = scopes.find((scope) => !(scope in SCOPE_LABELS));
    if (unknownScope) {
      return errorPage(
        reply,
        400,
        'Error 400: invalid_scope',
        `Some requested scopes were invalid. {invalid=[${unknownScope}]}`,
      );
    }
    const method = query.code_challenge_method;
    if (query.code_challenge !== undefined) {
      if (method !== undefined && method !== 'S256' && method !== 'plain') {
        return errorPage(
          reply,
          400,
          'Error 400: invalid_request',
          `Invalid code_challenge_method: ${method}`,
        );
      }
      if (!isValidPkceValue(query.code_challenge)) {
        return errorPage(reply, 400, 'Error 400: invalid_request', 'Invalid code_challenge.');
      }
    } else if (method !== undefined) {
      return errorPage(
        reply,
        400,
        'Error 400: invalid_request',
        'code_challenge_method without code_challenge.',
      );
    }
    const pending = oauth.savePending({
      clientId: client.clientId,
      redirectUri,
      redirectUriProvided: true,
      scopes,
      state: query.state,
      codeChallenge: query.code_challenge,
      codeChallengeMethod: query.code_challenge === undefined ? undefined : (method ?? 'plain'),
      params: pickDefined({ access_type: query.access_type, prompt: query.prompt }),
    });
    const hint = query.login_hint;
    const hinted = SIMULATED_ACCOUNTS.find(
      (account) => account.id === hint || account.email === hint,
    );
    return reply.type('text/html; charset=utf-8').send(
      renderConsentPage({
        providerName: 'Google',
        accent: '#1a73e8',
        clientId: client.clientId,
        formAction: '/o/oauth2/v2/auth',
        hiddenFields: { request_id: pending.id },
        accounts: SIMULATED_ACCOUNTS.map((account) => ({
          id: account.id,
          label: `${account.displayName} <${account.email}>`,
          detail: account.note,
        })),
        scopes: scopes.map((scope) => ({ value: scope, label: SCOPE_LABELS[scope] ?? scope })),
        ...(hinted && { selectedAccountId: hinted.id }),
      }),
    );
  });

  app.post('/o/oauth2/v2/auth', { config: routeConfig('authorize') }, async (request, reply) => {
    if (await authorizeFault(deps.faults, request, reply)) return reply;
    const form = (request.body ?? {}) as FormBody;
    const pending = oauth.pendingRequest(formField(form, 'request_id'));
    if (!pending)
      return errorPage(
        reply,
        400,
        'Error 400: invalid_request',
        'This sign-in request has expired. Start again.',
      );
    const redirect = new URL(pending.redirectUri);
    const addState = () => {
      if (pending.state !== undefined) redirect.searchParams.set('state', pending.state);
    };
    if (formField(form, CONSENT_FIELDS.decision) !== CONSENT_FIELDS.allow) {
      oauth.deletePending(pending.id);
      redirect.searchParams.set('error', 'access_denied');
      addState();
      return reply.redirect(redirect.toString(), 302);
    }
    const account = findAccount(formField(form, CONSENT_FIELDS.account) ?? '');
    if (!account) return errorPage(reply, 400, 'Error 400: invalid_request', 'Choose an account.');
    // Granular consent: only the scopes still ticked are granted.
    const ticked = new Set(form[CONSENT_FIELDS.scope] ?? []);
    const granted = pending.scopes.filter((scope) => ticked.has(scope));
    oauth.deletePending(pending.id);
    if (granted.length === 0) {
      redirect.searchParams.set('error', 'access_denied');
      addState();
      return reply.redirect(redirect.toString(), 302);
    }
    const code = `4/0A${randomToken(40)}`;
    oauth.issueCode(code, {
      clientId: pending.clientId,
      accountId: account.id,
      redirectUri: pending.redirectUri,
      redirectUriProvided: true,
      scopes: granted,
      codeChallenge: pending.codeChallenge,
      codeChallengeMethod: pending.codeChallengeMethod,
      params: pending.params,
      expiresAt: clock.nowMs() + CODE_LIFETIME_MS,
    });
    addState();
    redirect.searchParams.set('code', code);
    redirect.searchParams.set('scope', granted.join(' '));
    redirect.searchParams.set('authuser', '0');
    redirect.searchParams.set('prompt', 'consent');
    return reply.redirect(redirect.toString(), 302);
  });

  app.post('/token', { config: routeConfig('token') }, async (request, reply) => {
    const fault = deps.faults.take('token', request.url);
    if (fault && (await tokenFault(fault, request, reply))) return reply;
    const form = toForm(request.body);
    const credentials = readClientCredentials(request.headers.authorization, form);
    if (credentials.method === 'malformed')
      return oauthError(reply, 401, 'invalid_client', 'Unauthorized');
    if (credentials.method === 'none') {
      return oauthError(
        reply,
        400,
        'invalid_request',
        'Could not determine client ID from request.',
      );
    }
    const client = oauth.client(credentials.clientId);
    if (!client) return oauthError(reply, 401, 'invalid_client', 'The OAuth client was not found.');
    if (
      client.clientSecret !== null &&
      !secretMatches(client.clientSecret, credentials.clientSecret)
    ) {
      return oauthError(reply, 401, 'invalid_client', 'Unauthorized');
    }
    const grantType = formField(form, 'grant_type');
    const now = clock.nowMs();

    if (grantType === 'authorization_code') {
      const codeValue = formField(form, 'code');
      if (!codeValue)
        return oauthError(reply, 400, 'invalid_request', 'Missing required parameter: code');
      const code = oauth.code(codeValue);
      if (!code || code.clientId !== client.clientId)
        return oauthError(reply, 400, 'invalid_grant', 'Bad Request');
      if (code.grantId !== null) {
        // A replayed code: revoke what it produced (RFC 6749 §4.1.2).
        oauth.revokeGrant(code.grantId);
        return oauthError(reply, 400, 'invalid_grant', 'Bad Request');
      }
      if (code.expiresAt <= now) return oauthError(reply, 400, 'invalid_grant', 'Bad Request');
      const redirectUri = formField(form, 'redirect_uri');
      if (redirectUri === undefined)
        return oauthError(
          reply,
          400,
          'invalid_request',
          'Missing required parameter: redirect_uri',
        );
      if (redirectUri !== code.redirectUri)
        return oauthError(reply, 400, 'redirect_uri_mismatch', 'Bad Request');
      const verifier = formField(form, 'code_verifier');
      if (code.codeChallenge !== undefined) {
        if (verifier === undefined)
          return oauthError(reply, 400, 'invalid_grant', 'Missing code verifier.');
        if (!pkceMatches(verifier, code.codeChallenge, code.codeChallengeMethod)) {
          return oauthError(reply, 400, 'invalid_grant', 'Invalid code verifier.');
        }
      }
      const firstConsent = !oauth.everGranted(client.clientId, code.accountId);
      const grant = oauth.createGrant(client.clientId, code.accountId, code.scopes);
      code.grantId = grant.id;
      const accessToken = `ya29.a0${randomToken(120)}`;
      oauth.addAccessToken({
        token: accessToken,
        grantId: grant.id,
        issuedAt: now,
        expiresAt: now + ACCESS_TOKEN_SECONDS * 1000,
        parentRefreshToken: null,
      });
      const offline = code.params.access_type === 'offline';
      const forcedConsent = (code.params.prompt ?? '').split(' ').includes('consent');
      const body: Record<string, unknown> = {
        access_token: accessToken,
        expires_in: ACCESS_TOKEN_SECONDS,
      };
      if (offline && (firstConsent || forcedConsent)) {
        const refreshToken = `1//0${randomToken(72)}`;
        oauth.addRefreshToken({
          token: refreshToken,
          grantId: grant.id,
          issuedAt: now,
          expiresAt:
            deps.publishingStatus === 'testing' ? now + TESTING_REFRESH_SECONDS * 1000 : null,
          parentRefreshToken: null,
        });
        body.refresh_token = refreshToken;
        if (deps.publishingStatus === 'testing')
          body.refresh_token_expires_in = TESTING_REFRESH_SECONDS;
      }
      body.scope = code.scopes.join(' ');
      body.token_type = 'Bearer';
      return reply.header('cache-control', 'no-store').send(body);
    }

    if (grantType === 'refresh_token') {
      const token = formField(form, 'refresh_token');
      if (!token)
        return oauthError(
          reply,
          400,
          'invalid_request',
          'Missing required parameter: refresh_token',
        );
      const found = oauth.refreshToken(token);
      if (!found || found.grant.clientId !== client.clientId)
        return oauthError(reply, 400, 'invalid_grant', 'Bad Request');
      const { record, grant } = found;
      const unusedTooLong = now - record.lastUsedAt > SIX_MONTHS_MS;
      const expired = record.expiresAt !== null && record.expiresAt <= now;
      if (grant.revoked || record.invalidated || unusedTooLong || expired) {
        return oauthError(reply, 400, 'invalid_grant', 'Token has been expired or revoked.');
      }
      record.lastUsedAt = now;
      const accessToken = `ya29.a0${randomToken(120)}`;
      oauth.addAccessToken({
        token: accessToken,
        grantId: grant.id,
        issuedAt: now,
        expiresAt: now + ACCESS_TOKEN_SECONDS * 1000,
        parentRefreshToken: token,
      });
      // Google does not rotate refresh tokens: the response has no refresh_token.
      return reply.header('cache-control', 'no-store').send({
        access_token: accessToken,
        expires_in: ACCESS_TOKEN_SECONDS,
        ...(record.expiresAt !== null && {
          refresh_token_expires_in: Math.max(0, Math.floor((record.expiresAt - now) / 1000)),
        }),
        scope: grant.scopes.join(' '),
        token_type: 'Bearer',
      });
    }

    if (grantType === undefined)
      return oauthError(reply, 400, 'invalid_request', 'Missing required parameter: grant_type');
    return oauthError(reply, 400, 'unsupported_grant_type', `Invalid grant_type: ${grantType}`);
  });

  const revoke = async (request: FastifyRequest, reply: FastifyReply) => {
    const fault = deps.faults.take('revoke', request.url);
    if (fault && (await tokenFault(fault, request, reply))) return reply;
    const query = request.query as Record<string, string | undefined>;
    const token = query.token ?? formField(toForm(request.body), 'token');
    if (!token)
      return oauthError(reply, 400, 'invalid_request', 'Missing required parameter: token');
    const grantId = oauth.accessToken(token)?.grant.id ?? oauth.refreshToken(token)?.grant.id;
    const grant = grantId === undefined ? undefined : oauth.grant(grantId);
    if (!grant || grant.revoked)
      return oauthError(reply, 400, 'invalid_token', 'Token expired or revoked');
    // Revoking either token ends the whole grant, as Google does.
    oauth.revokeGrant(grant.id);
    return reply.header('cache-control', 'no-store').send({});
  };
  app.post('/revoke', { config: routeConfig('revoke') }, revoke);
  app.get('/revoke', { config: routeConfig('revoke') }, revoke);
}

function errorPage(reply: FastifyReply, status: number, title: string, message: string) {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(renderErrorPage('Google', '#d93025', title, message));
}

/** Faults on the consent page: transport faults, or a 5xx / 429 HTML page. */
async function authorizeFault(
  faults: FaultController,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  const fault = faults.take('authorize', request.url);
  if (!fault) return false;
  if (isTransportFault(fault)) return applyTransportFault(fault, request, reply);
  const status = fault.kind === 'rate-limit' ? 429 : (fault.status ?? 500);
  await errorPage(
    reply,
    status,
    `Error ${status}`,
    status === 429 ? 'Too many requests. Try again later.' : 'Something went wrong.',
  );
  return true;
}

/** Faults on /token and /revoke, answered in the OAuth error shape. */
async function tokenFault(
  fault: InjectedFault,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  if (isTransportFault(fault)) return applyTransportFault(fault, request, reply);
  if (fault.kind === 'invalid-grant') await oauthError(reply, 400, 'invalid_grant', 'Bad Request');
  else if (fault.kind === 'rate-limit')
    await oauthError(reply, 429, 'rate_limit_exceeded', 'Rate limit exceeded.');
  else await oauthError(reply, fault.status ?? 500, 'internal_failure', 'Backend Error');
  return true;
}

/** Google's token endpoint also accepts JSON bodies. */
function toForm(body: unknown): FormBody {
  if (body === null || typeof body !== 'object') return {};
  const form: FormBody = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (Array.isArray(value)) form[key] = value.map(String);
    else if (value !== undefined && value !== null) form[key] = [String(value)];
  }
  return form;
}

function pickDefined(values: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) out[key] = value;
  return out;
}
