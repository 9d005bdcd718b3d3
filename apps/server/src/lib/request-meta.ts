import type { FastifyRequest } from 'fastify';

/**
 * Who asked and from where: what every service call that writes takes, for its audit rows
 * (request id, ip) and session records (user agent). Build it with `requestMeta(request)`.
 */
export type Meta = {
  requestId: string;
  ip?: string;
  userAgent?: string;
};

/** The `Meta` of a request (routes pass it to services; services never see the request). */
export function requestMeta(request: FastifyRequest): Meta {
  return { requestId: request.id, ip: request.ip, userAgent: request.headers['user-agent'] };
}
