import { createHmac } from 'node:crypto';
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
  type RegisteredClient,
  formField,
  isValidPkceValue,
  pkceMatches,
  randomHex,
  randomToken,
  readClientCredentials,
  redirectUriAllowed,
  secretMatches,
} from '../common/oauth';
import { routeConfig } from '../common/server';
import { OAUTH_HELP, fitbitError, fitbitErrors, sendFitbitError } from './errors';

/**
 * Fitbit OAuth 2.0 (facts §1.1):
 * - GET/POST /oauth2/authorize (www.fitbit.com): consent page; redirect with code and state
 *   plus Fitbit's `#_=_` fragment, or error=access_denied. Problems with client_id,
 *   redirect_uri, scope or PKCE are shown on the page, not redirected.
 * - POST /oauth2/token: authorization_code (+PKCE, S256) and refresh_token. Confidential
 *   clients authenticate with a Basic header; public clients send client_id in the body.
 *   Access tokens are HS256 JWTs living 28800 s. Refresh tokens (64 hex) never expire but
 *   are single-use; repeating the identical refresh request returns the identical response
 *   until the new access or refresh token is first used. One refresh token per user and app.
 * - POST /oauth2/revoke: revokes all of the user's tokens for the app.
 * - POST /1.1/oauth2/introspect.
 */

export const FITBIT_ACCESS_TOKEN_SECONDS = 28_800;
const CODE_LIFETIME_MS = 10 * 60_000;

export const FITBIT_SCOPES = [
  'activity',
  'cardio_fitness',
  'electrocardiogram',
  'heartrate',
  'irregular_rhythm_notifications',
  'location',
  'nutrition',
  'oxygen_saturation',
  'profile',
  'respiratory_rate',
  'settings',
  'sleep',
  'social',
  'temperature',
  'weight',
] as const;
export type FitbitScope = (typeof FITBIT_SCOPES)[number];

/** JWT `scopes` claim abbreviations (newer ones are guesses, facts [U]). */
const SCOPE_CODES: Record<FitbitScope, string> = {
  activity: 'act',
  cardio_fitness: 'rcf',
  electrocardiogram: 'ecg',
  heartrate: 'hr',
  irregular_rhythm_notifications: 'irn',
  location: 'loc',
  nutrition: 'nut',
  oxygen_saturation: 'oxy',
  profile: 'pro',
  respiratory_rate: 'res',
  settings: 'set',
  sleep: 'sle',
  social: 'soc',
  temperature: 'tem',
  weight: 'wei',
};

export interface FitbitOAuthDeps {
  clock: SimulatedClock;
  oauth: OAuthStore;
  faults: FaultController;
  /** Signs the access-token JWTs. */
  jwtSecret: string;
}

export function registerFitbitOAuthRoutes(app: FastifyInstance, deps: FitbitOAuthDeps): void {
  const { oauth, clock } = deps;

  app.get('/oauth2/authorize', { config: routeConfig('authorize') }, async (request, reply) => {
    if (await authorizeFault(deps.faults, request, reply)) return reply;
    const query = request.query as Record<string, string | undefined>;
    if (!query.client_id)
      return errorPage(reply, 'invalid_request', 'Missing parameters: client_id');
    const client = oauth.client(query.client_id);
    if (!client) return errorPage(reply, 'unauthorized_client', 'Invalid client_id');
    if (query.response_type !== 'code') {
      return errorPage(
        reply,
        'unsupported_response_type',
        `Unsupported response_type: ${query.response_type ?? ''}`,
      );
    }
    // redirect_uri may be left out when exactly one (non-wildcard) URI is registered.
    const single =
      client.redirectUris.length === 1 && !client.redirectUris[0]?.includes('*')
        ? client.redirectUris[0]
        : undefined;
    const redirectUri = query.redirect_uri ?? single;
    if (!redirectUri)
      return errorPage(reply, 'invalid_request', 'Missing parameters: redirect_uri');
    if (!redirectUriAllowed(client.redirectUris, redirectUri)) {
      return errorPage(reply, 'invalid_request', 'Invalid redirect_uri parameter value');
    }
    const scopes = (query.scope ?? '').split(/[ +]/).filter(Boolean);
    if (scopes.length === 0)
      return errorPage(reply, 'invalid_request', 'Missing parameters: scope');
    const invalid = scopes.find((scope) => !(FITBIT_SCOPES as readonly string[]).includes(scope));
    if (invalid) return errorPage(reply, 'invalid_scope', `Invalid scope: ${invalid}`);
    const challenge = query.code_challenge;
    if (challenge !== undefined) {
      if (!isValidPkceValue(challenge)) {
        return errorPage(
          reply,
          'invalid_request',
          'Invalid code_challenge: it must be 43 to 128 characters long.',
        );
      }
      if (query.code_challenge_method !== 'S256')
        return errorPage(reply, 'invalid_request', 'Unsupported code_challenge_method');
    } else if (client.clientSecret === null) {
      return errorPage(
        reply,
        'invalid_request',
        'Missing parameters: code_challenge (required for client applications)',
      );
    }
    const pending = oauth.savePending({
      clientId: client.clientId,
      redirectUri,
      redirectUriProvided: query.redirect_uri !== undefined,
      scopes,
      state: query.state,
      codeChallenge: challenge,
      codeChallengeMethod: challenge === undefined ? undefined : 'S256',
      params: {},
    });
    return reply.type('text/html; charset=utf-8').send(
      renderConsentPage({
        providerName: 'Fitbit',
        accent: '#00b0b9',
        clientId: client.clientId,
        formAction: '/oauth2/authorize',
        hiddenFields: { request_id: pending.id },
        accounts: SIMULATED_ACCOUNTS.map((account) => ({
          id: account.id,
          label: `${account.displayName} (${account.fitbitUserId})`,
          detail: account.note,
        })),
        scopes: scopes.map((scope) => ({ value: scope, label: scope.replaceAll('_', ' ') })),
      }),
    );
  });

  app.post('/oauth2/authorize', { config: routeConfig('authorize') }, async (request, reply) => {
    if (await authorizeFault(deps.faults, request, reply)) return reply;
    const form = (request.body ?? {}) as FormBody;
    const pending = oauth.pendingRequest(formField(form, 'request_id'));
    if (!pending)
      return errorPage(
        reply,
        'invalid_request',
        'The authorization request has expired. Start again.',
      );
    oauth.deletePending(pending.id);
    const redirect = new URL(pending.redirectUri);
    if (pending.state !== undefined) redirect.searchParams.set('state', pending.state);
    const ticked = new Set(form[CONSENT_FIELDS.scope] ?? []);
    const granted = pending.scopes.filter((scope) => ticked.has(scope));
    const account = findAccount(formField(form, CONSENT_FIELDS.account) ?? '');
    if (
      formField(form, CONSENT_FIELDS.decision) !== CONSENT_FIELDS.allow ||
      granted.length === 0 ||
      !account
    ) {
      redirect.searchParams.set('error', 'access_denied');
      return reply.redirect(`${redirect.toString()}#_=_`, 302);
    }
    const code = randomHex(20);
    oauth.issueCode(code, {
      clientId: pending.clientId,
      accountId: account.id,
      redirectUri: pending.redirectUri,
      redirectUriProvided: pending.redirectUriProvided,
      scopes: granted,
      codeChallenge: pending.codeChallenge,
      codeChallengeMethod: pending.codeChallengeMethod,
      params: {},
      expiresAt: clock.nowMs() + CODE_LIFETIME_MS,
    });
    redirect.searchParams.set('code', code);
    return reply.redirect(`${redirect.toString()}#_=_`, 302);
  });

  app.post('/oauth2/token', { config: routeConfig('token') }, async (request, reply) => {
    const fault = deps.faults.take('token', request.url);
    if (fault && (await oauthFault(fault, request, reply))) return reply;
    const form = (request.body ?? {}) as FormBody;
    const client = authenticateClient(oauth, request, reply, form);
    if (!client) return reply;
    const grantType = formField(form, 'grant_type');
    const now = clock.nowMs();

    if (grantType === 'authorization_code') {
      const codeValue = formField(form, 'code');
      if (!codeValue)
        return sendFitbitError(
          reply,
          400,
          fitbitError('invalid_request', `Missing parameters: code. ${OAUTH_HELP}`),
        );
      const code = oauth.code(codeValue);
      const invalidCode = () =>
        sendFitbitError(
          reply,
          400,
          fitbitError('invalid_grant', `Authorization code invalid: ${codeValue} ${OAUTH_HELP}`),
        );
      if (!code || code.clientId !== client.clientId || code.expiresAt <= now) return invalidCode();
      if (code.grantId !== null) {
        oauth.revokeGrant(code.grantId);
        return invalidCode();
      }
      const redirectUri = formField(form, 'redirect_uri');
      if (code.redirectUriProvided && redirectUri !== code.redirectUri) {
        return sendFitbitError(
          reply,
          400,
          fitbitError(
            'invalid_request',
            `Invalid redirect_uri parameter value: ${redirectUri ?? 'missing'}. ${OAUTH_HELP}`,
          ),
        );
      }
      if (code.codeChallenge !== undefined) {
        const verifier = formField(form, 'code_verifier');
        if (verifier === undefined) {
          return sendFitbitError(
            reply,
            400,
            fitbitError('invalid_request', `Missing parameters: code_verifier. ${OAUTH_HELP}`),
          );
        }
        if (!pkceMatches(verifier, code.codeChallenge, code.codeChallengeMethod)) {
          return sendFitbitError(
            reply,
            400,
            fitbitError('invalid_grant', `Invalid code_verifier: ${verifier}. ${OAUTH_HELP}`),
          );
        }
      }
      // One refresh token per user and app: a new authorization replaces the old one.
      for (const previous of oauth.liveGrants(client.clientId, code.accountId)) {
        for (const record of oauth.refreshTokensOfGrant(previous.id)) record.invalidated = true;
      }
      const grant = oauth.createGrant(client.clientId, code.accountId, code.scopes);
      code.grantId = grant.id;
      return reply
        .header('cache-control', 'no-store')
        .send(issueTokens(deps, grant, now, FITBIT_ACCESS_TOKEN_SECONDS, null));
    }

    if (grantType === 'refresh_token') {
      const token = formField(form, 'refresh_token');
      if (!token) {
        return sendFitbitError(
          reply,
          400,
          fitbitError('invalid_request', `Missing parameters: refresh_token. ${OAUTH_HELP}`),
        );
      }
      const invalid = () =>
        sendFitbitError(
          reply,
          400,
          fitbitError('invalid_grant', `Refresh token invalid: ${token}. ${OAUTH_HELP}`),
        );
      const found = oauth.refreshToken(token);
      if (
        !found ||
        found.grant.clientId !== client.clientId ||
        found.grant.revoked ||
        found.record.invalidated
      ) {
        return invalid();
      }
      const { record, grant } = found;
      const fingerprint = JSON.stringify([client.clientId, sortedForm(form)]);
      if (record.consumedAt !== null) {
        // The grace window: an identical retry gets the identical answer, until the pair it
        // produced has been used.
        if (record.replay && record.replay.fingerprint === fingerprint) {
          return reply.header('cache-control', 'no-store').send(record.replay.body);
        }
        return invalid();
      }
      const requested = formField(form, 'expires_in');
      const lifetime =
        requested !== undefined &&
        /^\d+$/.test(requested) &&
        Number(requested) > 0 &&
        Number(requested) <= FITBIT_ACCESS_TOKEN_SECONDS
          ? Number(requested)
          : FITBIT_ACCESS_TOKEN_SECONDS;
      endGraceWindow(oauth, record.parentRefreshToken);
      const body = issueTokens(deps, grant, now, lifetime, token);
      record.consumedAt = now;
      record.lastUsedAt = now;
      record.replay = { fingerprint, body };
      return reply.header('cache-control', 'no-store').send(body);
    }

    if (grantType === undefined) {
      return sendFitbitError(
        reply,
        400,
        fitbitError('invalid_request', `Missing parameters: grant_type. ${OAUTH_HELP}`),
      );
    }
    return sendFitbitError(
      reply,
      400,
      fitbitError(
        'unsupported_grant_type',
        `The grant_type ${grantType} is not supported. ${OAUTH_HELP}`,
      ),
    );
  });

  app.post('/oauth2/revoke', { config: routeConfig('revoke') }, async (request, reply) => {
    const fault = deps.faults.take('revoke', request.url);
    if (fault && (await oauthFault(fault, request, reply))) return reply;
    const form = (request.body ?? {}) as FormBody;
    const client = authenticateClient(oauth, request, reply, form);
    if (!client) return reply;
    const token = formField(form, 'token');
    if (!token)
      return sendFitbitError(
        reply,
        400,
        fitbitError('invalid_request', `Missing parameters: token. ${OAUTH_HELP}`),
      );
    const grant = oauth.accessToken(token)?.grant ?? oauth.refreshToken(token)?.grant;
    if (grant && grant.clientId === client.clientId) {
      // Revoking one token revokes all of the user's tokens for this app.
      for (const live of oauth.liveGrants(client.clientId, grant.accountId))
        oauth.revokeGrant(live.id);
    }
    // RFC 7009: unknown tokens are not an error.
    return reply.send({});
  });

  app.post('/1.1/oauth2/introspect', { config: routeConfig('api') }, async (request, reply) => {
    const header = request.headers.authorization ?? '';
    const bearer = /^bearer\s+/i.test(header)
      ? header.replace(/^bearer\s+/i, '').trim()
      : undefined;
    if (!bearer) return sendFitbitError(reply, 401, fitbitErrors.missingAuthorization());
    const caller = oauth.accessToken(bearer);
    if (!caller || caller.state !== 'valid') {
      return sendFitbitError(
        reply,
        401,
        caller?.state === 'expired'
          ? fitbitErrors.expiredToken(bearer)
          : fitbitErrors.invalidToken(bearer),
      );
    }
    const token = formField((request.body ?? {}) as FormBody, 'token');
    if (!token)
      return sendFitbitError(
        reply,
        400,
        fitbitError('invalid_request', `Missing parameters: token. ${OAUTH_HELP}`),
      );
    const found = oauth.accessToken(token);
    if (!found || found.state !== 'valid') return { active: false };
    const account = findAccount(found.grant.accountId);
    return {
      active: true,
      scope: `{${found.grant.scopes.map((scope) => `${scope.toUpperCase()}=READ`).join(', ')}}`,
      client_id: found.grant.clientId,
      user_id: account?.fitbitUserId,
      token_type: 'access_token',
      exp: found.record.expiresAt,
      iat: found.record.issuedAt,
    };
  });
}

/** Marks the first use of a token pair: the refresh token that produced it loses its grace. */
export function endGraceWindow(oauth: OAuthStore, parentRefreshToken: string | null): void {
  if (parentRefreshToken === null) return;
  const parent = oauth.refreshToken(parentRefreshToken);
  if (parent) parent.record.replay = null;
}

function issueTokens(
  deps: FitbitOAuthDeps,
  grant: { id: string; clientId: string; accountId: string; scopes: string[] },
  now: number,
  lifetime: number,
  parentRefreshToken: string | null,
): Record<string, unknown> {
  const account = findAccount(grant.accountId);
  const userId = account?.fitbitUserId ?? '-';
  const accessToken = signJwt(deps.jwtSecret, {
    aud: grant.clientId,
    sub: userId,
    iss: 'Fitbit',
    typ: 'access_token',
    scopes: grant.scopes.map((scope) => `r${SCOPE_CODES[scope as FitbitScope] ?? scope}`).join(' '),
    exp: Math.floor(now / 1000) + lifetime,
    iat: Math.floor(now / 1000),
    jti: randomToken(9),
    ver: '1.0',
  });
  const refreshToken = randomHex(32);
  deps.oauth.addAccessToken({
    token: accessToken,
    grantId: grant.id,
    issuedAt: now,
    expiresAt: now + lifetime * 1000,
    parentRefreshToken,
  });
  deps.oauth.addRefreshToken({
    token: refreshToken,
    grantId: grant.id,
    issuedAt: now,
    expiresAt: null,
    parentRefreshToken,
  });
  return {
    access_token: accessToken,
    expires_in: lifetime,
    refresh_token: refreshToken,
    scope: grant.scopes.join(' '),
    token_type: 'Bearer',
    user_id: userId,
  };
}

/** Basic header for confidential clients, client_id in the body for public ones. */
function authenticateClient(
  oauth: OAuthStore,
  request: FastifyRequest,
  reply: FastifyReply,
  form: FormBody,
): RegisteredClient | undefined {
  const credentials = readClientCredentials(request.headers.authorization, form);
  const fail = (message: string) => {
    void sendFitbitError(reply, 401, fitbitError('invalid_client', `${message} ${OAUTH_HELP}`));
    return undefined;
  };
  if (credentials.method === 'malformed') return fail('Invalid authorization header format.');
  if (credentials.method === 'none')
    return fail('Invalid authorization header format. Authorization header or client_id required.');
  const client = oauth.client(credentials.clientId);
  if (!client)
    return fail(`Invalid authorization header. Client id invalid: ${credentials.clientId}.`);
  if (client.clientSecret === null) {
    // Public ("client") apps send only client_id.
    return credentials.method === 'post'
      ? client
      : fail('Public clients must not use an authorization header.');
  }
  if (credentials.method !== 'basic')
    return fail(
      'Invalid authorization header format. Server applications must use Basic authentication.',
    );
  if (!secretMatches(client.clientSecret, credentials.clientSecret))
    return fail('Invalid authorization header. Client secret invalid.');
  return client;
}

function signJwt(secret: string, payload: Record<string, unknown>): string {
  const header = Buffer.from(JSON.stringify({ alg: 'HS256' })).toString('base64url');
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const signature = createHmac('sha256', secret).update(`${header}.${body}`).digest('base64url');
  return `${header}.${body}.${signature}`;
}

function sortedForm(form: FormBody): Array<[string, string[]]> {
  return Object.entries(form).sort(([a], [b]) => a.localeCompare(b));
}

function errorPage(reply: FastifyReply, error: string, description: string) {
  return reply
    .code(400)
    .type('text/html; charset=utf-8')
    .send(
      renderErrorPage(
        'Fitbit',
        '#00b0b9',
        `The app you're trying to connect did not provide valid information to Fitbit.`,
        `Developer information: ${error} - ${description}`,
      ),
    );
}

async function authorizeFault(
  faults: FaultController,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  const fault = faults.take('authorize', request.url);
  if (!fault) return false;
  if (isTransportFault(fault)) return applyTransportFault(fault, request, reply);
  const status = fault.kind === 'rate-limit' ? 429 : (fault.status ?? 500);
  await reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(
      renderErrorPage(
        'Fitbit',
        '#00b0b9',
        `Error ${status}`,
        'Something went wrong. Please try again later.',
      ),
    );
  return true;
}

async function oauthFault(
  fault: InjectedFault,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  if (isTransportFault(fault)) return applyTransportFault(fault, request, reply);
  if (fault.kind === 'invalid-grant') {
    const token =
      formField((request.body ?? {}) as FormBody, 'refresh_token') ??
      formField((request.body ?? {}) as FormBody, 'code') ??
      '';
    await sendFitbitError(
      reply,
      400,
      fitbitError('invalid_grant', `Refresh token invalid: ${token}. ${OAUTH_HELP}`),
    );
  } else if (fault.kind === 'rate-limit') {
    await sendFitbitError(reply, 429, fitbitErrors.tooManyRequests(), { 'retry-after': '60' });
  } else {
    await sendFitbitError(reply, fault.status ?? 500, fitbitErrors.system(fault.status ?? 500));
  }
  return true;
}
