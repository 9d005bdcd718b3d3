import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';

/** Why a request was refused (set by the error handler), so the one line can say it. */
const rejectReasons = new WeakMap<FastifyReply, string | null>();

export function noteRejection(reply: FastifyReply, reason: string | null) {
  rejectReasons.set(reply, reason);
}

/**
 * One log line per request, written when the answer has gone (Fastify's own request
 * logging, two lines per request, is switched off in buildApp). When the level drops info
 * lines the hook does no work at all: nothing on the hot path is built to be thrown away.
 */
export const requestLogPlugin = fp(
  async (app: FastifyInstance) => {
    if (!(app.log as unknown as Logger).isLevelEnabled('info')) return;
    app.addHook('onResponse', async (request, reply) => {
      const reason = rejectReasons.get(reply);
      request.log.info(
        {
          req: request,
          statusCode: reply.statusCode,
          responseTime: Math.round(reply.elapsedTime * 100) / 100,
          ...(reason !== undefined ? { reason } : {}),
        },
        'request completed',
      );
    });
  },
  { name: 'request-log' },
);
