/**
 * Omron's error answers. The token and revocation endpoints behave like IdentityServer
 * (HTTP 400, `{"error":"..."}`); the measurement API is an ASP.NET resource server (401
 * with a `WWW-Authenticate: Bearer` challenge and no body). The JSON body of other API
 * errors (400/403/429/5xx) is not public, so `{"status":<non-zero>,"message":...}` mirrors the
 * success envelope's `status` field: a simulator choice, documented in the README.
 */
import type { FastifyReply } from 'fastify';
import type { FaultResponder } from '../common/faults';

export function tokenError(reply: FastifyReply, error: string, description?: string): FastifyReply {
  return reply
    .code(400)
    .header('cache-control', 'no-store')
    .send(description ? { error, error_description: description } : { error });
}

export function unauthorized(
  reply: FastifyReply,
  reason: 'missing' | 'invalid' | 'expired',
): FastifyReply {
  const challenge =
    reason === 'missing'
      ? 'Bearer'
      : reason === 'expired'
        ? 'Bearer error="invalid_token", error_description="The token expired"'
        : 'Bearer error="invalid_token", error_description="The signature is invalid or the token was revoked"';
  return reply.code(401).header('www-authenticate', challenge).send();
}

export function apiError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).send({ status, message });
}

export function tooManyRequests(reply: FastifyReply, retryAfterSeconds: number): FastifyReply {
  return reply
    .code(429)
    .header('retry-after', String(retryAfterSeconds))
    .send({ status: 429, message: 'Too Many Requests' });
}

export const respondToOmronFault: FaultResponder = (fault, reply) => {
  switch (fault.kind) {
    case 'expired-token':
      return unauthorized(reply, 'expired');
    case 'revoked-token':
      return unauthorized(reply, 'invalid');
    case 'invalid-grant':
      return tokenError(reply, 'invalid_grant');
    case 'rate-limit':
      return tooManyRequests(reply, 3600);
    default: {
      const status = fault.status ?? 500;
      return apiError(
        reply,
        status,
        status === 503 ? 'Service Unavailable' : 'Internal Server Error',
      );
    }
  }
};
