import { randomUUID } from 'node:crypto';
import zlib from 'node:zlib';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import fastifyCompress from '@fastify/compress';
import helmet from 'helmet';
import fastifyCookie from '@fastify/cookie';
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
import { API_BROTLI_QUALITY, API_GZIP_LEVEL } from './lib/compression';
import { AppError } from './lib/errors';
import { loggerOptions, type LoggerSettings } from './lib/logger';
import { csrfPlugin } from './plugins/csrf';
import { postgresRateLimitStore } from './plugins/rate-limit-store';
import { errorHandlerPlugin } from './plugins/error-handler';
import { requestLogPlugin } from './plugins/request-log';
import { webAppPlugin } from './plugins/web-app';
import { systemRoutes } from './modules/system/system.routes';
import { mailPlugin } from './modules/mail/mail.plugin';
import { humanCheckRoutes } from './modules/human-check/human-check.routes';
import { contactRoutes } from './modules/contact/contact.routes';
import { authGuardPlugin } from './modules/auth/auth.guard';
import { authRoutes } from './modules/auth/auth.routes';
import { backendAuthGuardPlugin } from './modules/backend-clients/backend-auth.guard';
import { backendClientsRoutes } from './modules/backend-clients/backend-clients.routes';
import { smartRoutes } from './modules/backend-clients/smart.routes';
import { passwordRoutes } from './modules/passwords/passwords.routes';
import { signupRoutes } from './modules/signup/signup.routes';
import { participantAccountRoutes } from './modules/participant-accounts/participant-accounts.routes';
import { sfaRoutes } from './modules/sfa/sfa.routes';
import { teamsRoutes } from './modules/teams/teams.routes';
import { trialsRoutes } from './modules/trials/trials.routes';
import { teamAdminRoutes } from './modules/team-admin/team-admin.routes';
import { participantsRoutes } from './modules/participants/participants.routes';
import { devicesRoutes } from './modules/devices/devices.routes';
import { exportRoutes } from './modules/export/export.routes';
import { fhirBulkRoutes } from './modules/fhir-bulk/fhir-bulk.routes';
import { deviceDataRoutes } from './modules/device-data/device-data.routes';
import {
  providerSettingsFromConfig,
  type ProviderSettings,
} from './modules/devices/core/provider-settings';
import { metricsRoutes } from './modules/metrics/metrics.routes';
import { sysAdminRoutes } from './modules/sysadmin/sysadmin.routes';
import { completenessRoutes } from './modules/completeness/completeness.routes';
import { fitbitDataRoutes, fitbitRawRoutes } from './providers';
import { createServices, type Services } from './services';
import { systemClock, type Clock } from './lib/clock';
import {
  syncWebhookRoutes,
  webhookSecrets,
  type EnqueueSync,
} from './modules/sync/webhooks.routes';
import { syncStatusRoutes } from './modules/sync/sync-status.routes';
import { argon2Hasher, type PasswordHasher } from './lib/passwords';

/** A registered route and its route-level hooks (where access guards sit). */
export type RegisteredRoute = { method: string; url: string; guards: unknown[] };

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered so far (HEAD left out), for the security suite. */
    registeredRoutes(): readonly RegisteredRoute[];
  }
}

export type AppDeps = {
  config: Config;
  database: Database;
  /** Overrides the configured log level or sends lines to a stream (tests). */
  logger?: Partial<LoggerSettings>;
  /** The time (tests move it to check lockout, expiry and lifetimes). */
  clock?: Clock;
  /** Password hashing (tests count the checks). */
  passwordHasher?: PasswordHasher;
  /** Provider clients' settings; default: from the configuration (simulators in demo mode). */
  providers?: ProviderSettings;
  /** Enqueues a targeted device sync (webhooks); main.ts binds it to the running pg-boss. */
  enqueueSync?: EnqueueSync;
  /**
   * The process's services, when main.ts built them (once, shared with the job workers);
   * else built here from the deps above (tests).
   */
  services?: Services;
};

/**
 * Builds the whole HTTP application: used by main.ts and by every integration test, so
 * tests exercise exactly what runs in production. Does not listen.
 */
function rejectNulCharacters(key: string, value: unknown) {
  if (key === '__proto__' || key === 'constructor') return undefined; // no prototype pollution
  if (typeof value === 'string' && value.includes('\u0000')) {
    throw new AppError(400, 'Text must not contain control characters.', {
      reason: 'VALIDATION_ERROR',
    });
  }
  return value;
}

/** Trust the `hops` proxies nearest to us (proxy-addr asks hop by hop, 0 = our TCP peer). */
function trustHops(hops: number) {
  return (_address: string, hop: number) => hop < hops;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  const clock = deps.clock ?? deps.services?.clock ?? systemClock;
  const hasher = deps.passwordHasher ?? argon2Hasher;
  const secureCookies = config.isProduction;
  const recaptcha = Boolean(config.RECAPTCHA_SITE_KEY && config.RECAPTCHA_SECRET_KEY);
  const app = Fastify({
    logger: loggerOptions({
      level: deps.logger?.level ?? config.LOG_LEVEL,
      stream: deps.logger?.stream,
    }),
    bodyLimit: config.BODY_LIMIT_BYTES,
    // Never trust a client-supplied request id; ours goes back in x-request-id.
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    // plugins/request-log writes one line per request instead of Fastify's two (the log
    // controller is Fastify 5.12's place for it; the top-level option is deprecated).
    logController: new LogController({ disableRequestLogging: true }),
    // Forwarded-for headers count only from the proxies TRUST_PROXY names (off by default).
    trustProxy:
      typeof config.TRUST_PROXY === 'number' ? trustHops(config.TRUST_PROXY) : config.TRUST_PROXY,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  }).withTypeProvider<ZodTypeProvider>();

  // PostgreSQL text cannot hold NUL characters; refuse them at the door (400), for every route.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, body === '' ? undefined : JSON.parse(body as string, rejectNulCharacters));
    } catch (error) {
      done(
        error instanceof AppError
          ? error
          : new AppError(400, 'The request could not be read.', { cause: error }),
        undefined,
      );
    }
  });
  // Every route as registered (method, path, options): the security suite walks this list,
  // so a new route cannot escape its CSRF, sign-in, role and id checks.
  const registered: RegisteredRoute[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') {
        registered.push({
          method,
          url: route.url,
          guards: [route.onRequest ?? [], route.preValidation ?? [], route.preHandler ?? []].flat(),
        });
      }
    }
  });
  app.decorate('registeredRoutes', () => registered);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(requestLogPlugin);
  await app.register(errorHandlerPlugin);
  await app.register(fastifyCookie, { secret: config.APP_SECRET });
  // Security headers: helmet's middleware built once (@fastify/helmet rebuilds it, parsing
  // the CSP directives, on every request — decision 0044).
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        // reCAPTCHA v3 (only when configured) loads Google's script and frame.
        scriptSrc: [
          "'self'",
          ...(recaptcha
            ? ['https://www.google.com/recaptcha/', 'https://www.gstatic.com/recaptcha/']
            : []),
        ],
        frameSrc: recaptcha ? ['https://www.google.com/recaptcha/'] : ["'none'"],
        // MUI (emotion) injects style elements at run time.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'", ...(recaptcha ? ['https://www.google.com/recaptcha/'] : [])],
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
  app.addHook('onRequest', (request, reply, done) => {
    securityHeaders(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined));
  });
  // Answers over 1 KB leave compressed (brotli at a fast quality, else gzip; decision 0265);
  // the web build's own .br/.gz files are served as they are (plugins/web-app). Request
  // bodies are never decompressed: nothing sends them compressed, and it would be a way
  // round bodyLimit.
  await app.register(fastifyCompress, {
    threshold: 1024,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: API_BROTLI_QUALITY } },
    zlibOptions: { level: API_GZIP_LEVEL },
    globalDecompression: false,
  });
  // Routes opt in with `config.rateLimit`; limits are per route (login, contact, …) and per
  // client address (request.ip, which honours TRUST_PROXY only). Counters live in the
  // database, shared by every web process.
  await app.register(fastifyRateLimit, {
    global: false,
    store: postgresRateLimitStore(database.db, clock),
  });
  await app.register(csrfPlugin, { secureCookies, appSecret: config.APP_SECRET });

  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'TrialPulse API', version: APP_VERSION },
      servers: [{ url: config.PUBLIC_URL }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs' });

  // Every service is built once, in services.ts; the route plugins below receive them.
  const services =
    deps.services ??
    createServices({
      config,
      database,
      clock,
      hasher,
      providers: deps.providers ?? providerSettingsFromConfig(config),
      logger: app.log,
      ...(deps.enqueueSync && { enqueueSync: deps.enqueueSync }),
    });
  const { humanCheck, mail } = services;
  await app.register(mailPlugin, { mail, db: database.db, isDemo: config.isDemo });
  await app.register(authGuardPlugin, {
    repository: services.sessions,
    appSecret: config.APP_SECRET,
    clock,
  });
  // /fhir routes: bearer tokens of backend clients, never cookies (issue 31).
  await app.register(backendAuthGuardPlugin, { backendClients: services.backendClients });

  await app.register(systemRoutes, { db: database.db });
  await app.register(humanCheckRoutes, { service: services.humanCheckService });
  await app.register(contactRoutes, { service: services.contact, humanCheck });
  await app.register(authRoutes, { service: services.auth, humanCheck, secureCookies });
  await app.register(sfaRoutes, { service: services.sfa, secureCookies });
  await app.register(passwordRoutes, {
    service: services.passwords,
    mail,
    humanCheck,
    secureCookies,
  });
  await app.register(signupRoutes, { service: services.signup, mail, humanCheck });
  await app.register(participantAccountRoutes, {
    service: services.participantAccounts,
    mail,
    humanCheck,
    secureCookies,
  });
  await app.register(teamsRoutes, { service: services.teams });
  await app.register(trialsRoutes, { trials: services.trials, trialUsers: services.trialUsers });
  await app.register(teamAdminRoutes, { service: services.teamAdmin });
  await app.register(participantsRoutes, { participants: services.participants });
  await app.register(devicesRoutes, { devices: services.devices, clock });
  await app.register(fitbitDataRoutes, { fitbitData: services.fitbitData });
  await app.register(fitbitRawRoutes, { fitbitRaw: services.fitbitRaw });
  await app.register(exportRoutes, { exports: services.exports, clock });
  app.addHook('onClose', async () => services.jobQueue.stop());
  await app.register(deviceDataRoutes, { deviceData: services.deviceData });
  await app.register(syncStatusRoutes, {
    status: services.syncStatus,
    weekly: services.weeklySummary,
  });

  await app.register(syncWebhookRoutes, {
    runs: services.syncRuns,
    secrets: webhookSecrets(config),
    ...(deps.enqueueSync && { enqueue: deps.enqueueSync }),
  });
  await app.register(metricsRoutes, { metrics: services.metrics });
  await app.register(sysAdminRoutes, { sysAdmin: services.sysAdmin });
  await app.register(completenessRoutes, { completeness: services.completeness });
  await app.register(backendClientsRoutes, { backendClients: services.backendClients });
  await app.register(smartRoutes, {
    backendClients: services.backendClients,
    publicUrl: config.PUBLIC_URL,
  });
  await app.register(fhirBulkRoutes, { fhirBulk: services.fhirBulk, publicUrl: config.PUBLIC_URL });

  if (config.SERVE_WEB) await app.register(webAppPlugin, { distDir: config.WEB_DIST_DIR });

  return app;
}
