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
import { AppError } from './lib/errors';
import { loggerOptions, type LoggerSettings } from './lib/logger';
import { csrfPlugin } from './plugins/csrf';
import { errorHandlerPlugin } from './plugins/error-handler';
import { webAppPlugin } from './plugins/web-app';
import { systemRoutes } from './modules/system/system.routes';
import { mailPlugin } from './modules/mail/mail.plugin';
import { humanCheckPlugin } from './modules/human-check/human-check.plugin';
import { contactRoutes } from './modules/contact/contact.routes';
import { authGuardPlugin } from './modules/auth/auth.guard';
import { createAuthRepository } from './modules/auth/auth.repository';
import { authRoutes } from './modules/auth/auth.routes';
import { createAuthService } from './modules/auth/auth.service';
import { passwordRoutes } from './modules/passwords/passwords.routes';
import { signupRoutes } from './modules/signup/signup.routes';
import { participantAccountRoutes } from './modules/participant-accounts/participant-accounts.routes';
import { createSfaRepository } from './modules/sfa/sfa.repository';
import { sfaRoutes } from './modules/sfa/sfa.routes';
import { createSfaService, initialAuthStatusFrom } from './modules/sfa/sfa.service';
import { teamsRoutes } from './modules/teams/teams.routes';
import { trialsRoutes } from './modules/trials/trials.routes';
import { teamAdminRoutes } from './modules/team-admin/team-admin.routes';
import { participantsRoutes } from './modules/participants/participants.routes';
import { createParticipantsRepository } from './modules/participants/participants.repository';
import { createParticipantsService } from './modules/participants/participants.service';
import { devicesRoutes } from './modules/devices/devices.routes';
import { createDevicesRepository } from './modules/devices/devices.repository';
import { createDevicesService } from './modules/devices/devices.service';
import { createDeviceConnectionsService } from './modules/devices/device-connections.service';
import { createDeviceLinkingService } from './modules/devices/device-linking.service';
import { createProviderRegistry } from './modules/devices/core/provider-registry';
import { providerSettingsFromConfig, type ProviderSettings } from './modules/devices/core/provider-settings';
import { systemClock, type Clock } from './lib/clock';
import { argon2Hasher, type PasswordHasher } from './lib/passwords';

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
};

/**
 * Builds the whole HTTP application: used by main.ts and by every integration test, so
 * tests exercise exactly what runs in production. Does not listen.
 */
function rejectNulCharacters(key: string, value: unknown) {
  if (key === '__proto__' || key === 'constructor') return undefined; // no prototype pollution
  if (typeof value === 'string' && value.includes('\u0000')) {
    throw new AppError(400, 'Text must not contain control characters.', { reason: 'VALIDATION_ERROR' });
  }
  return value;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  const clock = deps.clock ?? systemClock;
  const hasher = deps.passwordHasher ?? argon2Hasher;
  const secureCookies = config.isProduction;
  const recaptcha = Boolean(config.RECAPTCHA_SITE_KEY && config.RECAPTCHA_SECRET_KEY);
  const app = Fastify({
    logger: loggerOptions({ level: deps.logger?.level ?? config.LOG_LEVEL, stream: deps.logger?.stream }),
    bodyLimit: config.BODY_LIMIT_BYTES,
    // Never trust a client-supplied request id; ours goes back in x-request-id.
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    trustProxy: config.isProduction,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  }).withTypeProvider<ZodTypeProvider>();

  // PostgreSQL text cannot hold NUL characters; refuse them at the door (400), for every route.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, body === '' ? undefined : JSON.parse(body as string, rejectNulCharacters));
    } catch (error) {
      done(error instanceof AppError ? error : new AppError(400, 'The request could not be read.', { cause: error }), undefined);
    }
  });
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
        // reCAPTCHA v3 (only when configured) loads Google's script and frame.
        scriptSrc: ["'self'", ...(recaptcha ? ['https://www.google.com/recaptcha/', 'https://www.gstatic.com/recaptcha/'] : [])],
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
  // Routes opt in with `config.rateLimit`; limits are per route (login, contact, …).
  await app.register(fastifyRateLimit, { global: false });
  await app.register(csrfPlugin, { secureCookies });

  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'TrialPulse API', version: APP_VERSION },
      servers: [{ url: config.PUBLIC_URL }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs' });

  // Cross-cutting services other modules use: app.mail, app.humanCheck.
  await app.register(mailPlugin, { config, database });
  await app.register(humanCheckPlugin, { config });
  const authRepository = createAuthRepository(database.db);
  await app.register(authGuardPlugin, { repository: authRepository, appSecret: config.APP_SECRET, clock });
  // The second factor decides the status a sign-in starts in (remembered device or not).
  const sfaRepository = createSfaRepository(database.db);
  const authService = createAuthService({
    repository: authRepository,
    hasher,
    clock,
    appSecret: config.APP_SECRET,
    initialAuthStatus: initialAuthStatusFrom(sfaRepository, clock),
  });
  const sfaService = createSfaService({
    repository: sfaRepository,
    authService,
    mail: () => app.mail,
    clock,
    encryptionKey: config.TOKEN_ENCRYPTION_KEY,
  });

  await app.register(systemRoutes, { db: database.db });
  await app.register(contactRoutes, { config, database });
  await app.register(authRoutes, { service: authService, secureCookies });
  await app.register(sfaRoutes, { service: sfaService, secureCookies });
  const accountDeps = { config, database, clock, hasher, authService, secureCookies };
  await app.register(passwordRoutes, accountDeps);
  await app.register(signupRoutes, accountDeps);
  await app.register(participantAccountRoutes, accountDeps);
  const featureDeps = { config, database, clock };
  await app.register(teamsRoutes, featureDeps);
  await app.register(trialsRoutes, featureDeps);
  await app.register(teamAdminRoutes, featureDeps);

  // Device linking needs the participants service (visibility) and deleting a participant
  // needs device linking (revoke first): the services are wired here, not in the routes.
  const devicesRepository = createDevicesRepository(database.db);
  const providers = createProviderRegistry(deps.providers ?? providerSettingsFromConfig(config), { clock });
  const deviceConnections = createDeviceConnectionsService({
    repository: devicesRepository,
    providers,
    clock,
    encryptionKey: config.TOKEN_ENCRYPTION_KEY,
  });
  const participants = createParticipantsService({
    repository: createParticipantsRepository(database.db),
    beforeDelete: (teamId, participantId, meta) => devices.revokeBeforeDelete(teamId, participantId, meta),
  });
  const devices = createDevicesService({
    repository: devicesRepository,
    participants,
    connections: deviceConnections,
    clock,
    linking: createDeviceLinkingService({
      repository: devicesRepository,
      providers,
      clock,
      encryptionKey: config.TOKEN_ENCRYPTION_KEY,
      publicUrl: config.PUBLIC_URL.replace(/\/+$/, ''),
      mail: () => app.mail,
    }),
  });
  await app.register(participantsRoutes, { participants });
  await app.register(devicesRoutes, { devices, clock });

  if (config.SERVE_WEB) await app.register(webAppPlugin, { distDir: config.WEB_DIST_DIR });

  return app;
}
