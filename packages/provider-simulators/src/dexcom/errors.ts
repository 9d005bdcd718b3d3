/**
 * Dexcom's error answers. The facts leave Dexcom's error JSON open, so the simulator uses
 * the OAuth style everywhere: `{"error":"...","error_description":"..."}`, 400 on the token
 * endpoint (401 for client authentication), 401 with a `WWW-Authenticate: Bearer` challenge
 * for a bad or expired access token, 400 for bad dates, 429 over the hourly limit.
 */
import type { FastifyReply } from 'fastify';
import type { FaultResponder } from '../common/faults';

export function dexcomError(
  reply: FastifyReply,
  status: number,
  error: string,
  description: string,
): FastifyReply {
  return reply.code(status).send({ error, error_description: description });
}

export function tokenError(reply: FastifyReply, error: string, description: string): FastifyReply {
  reply.header('cache-control', 'no-store');
  return dexcomError(reply, error === 'invalid_client' ? 401 : 400, error, description);
}

export function unauthorized(
  reply: FastifyReply,
  reason: 'missing' | 'invalid' | 'expired',
): FastifyReply {
  if (reason === 'missing') {
    reply.header('www-authenticate', 'Bearer realm="dexcom"');
    return dexcomError(reply, 401, 'invalid_request', 'Missing access token');
  }
  const description =
    reason === 'expired'
      ? 'The access token expired'
      : 'The access token is invalid or was revoked';
  reply.header(
    'www-authenticate',
    `Bearer realm="dexcom", error="invalid_token", error_description="${description}"`,
  );
  return dexcomError(reply, 401, 'invalid_token', description);
}

export function tooManyRequests(
  reply: FastifyReply,
  retryAfterSeconds: number,
  limit: number,
): FastifyReply {
  reply.header('retry-after', String(retryAfterSeconds));
  return dexcomError(
    reply,
    429,
    'rate_limit_exceeded',
    `Rate limit of ${limit} calls per hour exceeded`,
  );
}

export const respondToDexcomFault: FaultResponder = (fault, reply) => {
  switch (fault.kind) {
    case 'expired-token':
      return unauthorized(reply, 'expired');
    case 'revoked-token':
      return unauthorized(reply, 'invalid');
    case 'invalid-grant':
      return tokenError(reply, 'invalid_grant', 'Invalid or expired grant');
    case 'rate-limit':
      return tooManyRequests(reply, 3600, 60_000);
    default: {
      const status = fault.status ?? 500;
      return dexcomError(
        reply,
        status,
        'server_error',
        status === 503 ? 'Service Unavailable' : 'Internal Server Error',
      );
    }
  }
};
