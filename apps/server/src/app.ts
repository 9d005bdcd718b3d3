import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Config } from './config/env';
import type { Database } from './db/client';
import { APP_VERSION } from './lib/app-version';
import { loggerOptions, type LoggerSettings } from './lib/logger';
import { csrfPlugin } from './plugins/csrf';
import { errorHandlerPlugin } from './plugins/error-handler';
import { webAppPlugin } from './plugins/web-app';
import { systemRoutes } from './modules/system/system.routes';

export type AppDeps = {
  config: Config;
  database: Database;
  /** Overrides the configured log level or sends lines to a stream (tests). */
  logger?: Partial<LoggerSettings>;
};

/**
 * Builds the whole HTTP application: used by main.ts and by every integration test, so
 * tests exercise exactly what runs in production. Does not listen.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  const app = Fastify({
    logger: loggerOptions({ level: deps.logger?.level ?? config.LOG_LEVEL, stream: deps.logger?.stream }),
    bodyLimit: config.BODY_LIMIT_BYTES,
    // Never trust a client-supplied request id; ours goes back in x-request-id.
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    trustProxy: config.isProduction,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(errorHandlerPlugin);
  await app.register(fastifyCookie, { secret: config.APP_SECRET });
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // MUI (emotion) injects style elements at run time.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        upgradeInsecureRequests: config.isProduction ? [] : null,
      },
    },
    strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
    referrerPolicy: { policy: 'same-origin' },
  });
  // Routes opt in with `config.rateLimit`; limits are per route (login, contact, …).
  await app.register(fastifyRateLimit, { global: false });
  await app.register(csrfPlugin, { secureCookies: config.isProduction });

  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'TrialPulse API', version: APP_VERSION },
      servers: [{ url: config.PUBLIC_URL }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs' });

  await app.register(systemRoutes, { db: database.db });

  if (config.SERVE_WEB) await app.register(webAppPlugin, { distDir: config.WEB_DIST_DIR });

  return app;
}
