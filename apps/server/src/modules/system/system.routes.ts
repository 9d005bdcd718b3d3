import { sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Db } from '../../db/client';
import { APP_VERSION } from '../../lib/app-version';
import { AppError } from '../../lib/errors';

export const appVersionResponseSchema = z.object({ version: z.string() });

/** Version for the footer, and a health probe for load balancers and tests. */
export const systemRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/api/appVersion',
    {
      schema: {
        tags: ['system'],
        summary: 'Product version shown in the footer',
        response: { 200: appVersionResponseSchema },
      },
    },
    async () => ({ version: APP_VERSION }),
  );

  app.get(
    '/api/health',
    {
      schema: {
        tags: ['system'],
        summary: 'Liveness and database reachability',
        response: { 200: z.object({ status: z.literal('ok'), database: z.literal('ok') }) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      try {
        await db.execute(sql`select 1`);
      } catch (error) {
        throw new AppError(503, 'The database is not reachable.', {
          cause: error,
          displayToUser: false,
        });
      }
      return { status: 'ok' as const, database: 'ok' as const };
    },
  );
};
