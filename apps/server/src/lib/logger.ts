import type { FastifyServerOptions } from 'fastify';
import type { DestinationStream, LoggerOptions } from 'pino';

/**
 * Secret and personal fields that must never reach a log line. Pino's redaction works on
 * paths, so each sensitive key is listed at the depths our log objects use.
 */
const SENSITIVE_KEYS = [
  'password',
  'newPassword',
  'currentPassword',
  'confirmPassword',
  'newConfirmPassword',
  'token',
  'accessToken',
  'refreshToken',
  'access_token',
  'refresh_token',
  'sfaToken',
  'code',
  'authCode',
  'secret',
  'email',
  'userEmail',
  'username',
  'recaptchaResponse',
  'csrfToken',
];

export const REDACT_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  ...SENSITIVE_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]),
];

/**
 * A path segment that is an email (getFitbitServerParticipantData carries one) is replaced:
 * redaction by key cannot reach inside the path string.
 */
export function redactPath(path: string): string {
  return path
    .split('/')
    .map((segment) => (/@|%40/i.test(segment) ? '[redacted]' : segment))
    .join('/');
}

export type LoggerSettings = {
  level: string;
  /** Where lines go; tests pass a stream to inspect what was logged. */
  stream?: DestinationStream;
};

/** Fastify logger options: pino with redaction, no bodies, request id on every line. */
export function loggerOptions(settings: LoggerSettings): FastifyServerOptions['logger'] {
  const options: LoggerOptions = {
    level: settings.level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      // Only method, path (no query string: it can carry tokens) and ids.
      req: (request: { method: string; url: string; id: string; ip?: string }) => ({
        id: request.id,
        method: request.method,
        path: redactPath(request.url.split('?')[0] ?? ''),
      }),
    },
  };
  return settings.stream ? { ...options, stream: settings.stream } : options;
}
