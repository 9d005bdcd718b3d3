import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import {
  ERROR_REASONS,
  GENERIC_ERROR_MESSAGE,
  type ErrorBody,
  type FieldError,
} from '@trialpulse/shared';
import { isDatabaseUnavailable } from '../lib/db-errors';
import { AppError } from '../lib/errors';
import {
  FHIR_JSON,
  FhirError,
  OAuthError,
  issueCodeOf,
  operationOutcome,
} from '../lib/fhir-errors';
import { noteRejection } from './request-log';

/**
 * The one error handler: every failure leaves the server as the spec's error body
 * `{message, displayToUser, reason, location, errors, user}`. Validation failures carry
 * the field messages from the shared zod schemas; unknown errors become a 500 with
 * "An error occurred." and the request id, never a stack or SQL text.
 */
export const errorHandlerPlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((error: FastifyError, request, reply) => sendError(error, request, reply));
    // A missing route carries its own reason, so clients tell "no such endpoint" from a
    // real route's "no such record" 404 without matching texts.
    app.setNotFoundHandler((request, reply) =>
      sendError(AppError.routeNotFound(request), request, reply),
    );
  },
  { name: 'error-handler' },
);

export const SERVICE_UNAVAILABLE_MESSAGE =
  'The service is temporarily unavailable. Please try again in a moment.';

function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  // The token endpoint answers as OAuth 2 says (RFC 6749 §5.2), never cached.
  if (error instanceof OAuthError) {
    noteRejection(reply, error.error);
    return reply
      .code(error.statusCode)
      .header('cache-control', 'no-store')
      .header('pragma', 'no-cache')
      .type('application/json; charset=utf-8')
      .send({ error: error.error, error_description: error.message });
  }
  if (error instanceof FhirError) {
    noteRejection(reply, error.code);
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    return reply
      .code(error.statusCode)
      .type(FHIR_JSON)
      .send(operationOutcome(error.code, error.message));
  }
  const { statusCode, body, headers } = toErrorBody(error, request);
  if (statusCode === 503)
    request.log.warn(
      { reason: body.reason, errorCode: (error as { code?: unknown }).code },
      'database unavailable',
    );
  else if (statusCode >= 500) request.log.error({ err: error }, 'request failed');
  else noteRejection(reply, body.reason); // said by the request's one log line
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  // A streamed answer (a CSV) that fails before its first byte has already chosen its type
  // and file name: the error body is JSON, and no download.
  reply.removeHeader('content-disposition');
  if (!reply.raw.headersSent) reply.raw.removeHeader('content-disposition');
  // FHIR clients read failures of /fhir as an OperationOutcome (issue 31).
  if (isFhirUrl(request.url)) {
    const diagnostics =
      statusCode >= 500 ? `${body.message} (request ${request.id})` : body.message;
    return reply
      .code(statusCode)
      .type(FHIR_JSON)
      .send(operationOutcome(issueCodeOf(statusCode), diagnostics));
  }
  return reply.code(statusCode).type('application/json; charset=utf-8').send(body);
}

function isFhirUrl(url: string): boolean {
  return url === '/fhir' || url.startsWith('/fhir/') || url.startsWith('/fhir?');
}

function toErrorBody(
  error: unknown,
  request: FastifyRequest,
): { statusCode: number; body: ErrorBody; headers: Record<string, string> } {
  const location = request.url.split('?')[0] ?? null;
  const base = { location, user: null, requestId: request.id };

  // The database is down or restarting: fail fast and say so; the same process serves
  // again once it is back (the pool reconnects on demand).
  if (!(error instanceof AppError) && isDatabaseUnavailable(error)) {
    return {
      statusCode: 503,
      headers: { 'retry-after': '5' },
      body: {
        ...base,
        message: SERVICE_UNAVAILABLE_MESSAGE,
        displayToUser: true,
        reason: ERROR_REASONS.unavailable,
        errors: null,
      },
    };
  }

  if (error instanceof AppError) {
    return {
      statusCode: error.statusCode,
      headers: error.headers,
      body: {
        ...base,
        message: error.statusCode >= 500 ? GENERIC_ERROR_MESSAGE : error.message,
        displayToUser: error.statusCode >= 500 ? false : error.displayToUser,
        reason: error.reason,
        errors: error.errors,
        user: error.user ?? null,
      },
    };
  }

  if (hasZodFastifySchemaValidationErrors(error)) {
    const errors: FieldError[] = error.validation.map((issue) => ({
      field: fieldName(issue.instancePath),
      message: issue.message ?? 'Invalid value',
    }));
    return {
      statusCode: 400,
      headers: {},
      body: {
        ...base,
        message: errors[0]?.message ?? 'Invalid request.',
        displayToUser: true,
        reason: ERROR_REASONS.validation,
        errors,
      },
    };
  }

  const fastifyError = error as Partial<FastifyError>;
  const status = fastifyError.statusCode ?? 500;
  if (fastifyError.code?.startsWith('FST_CSRF')) {
    return {
      statusCode: 403,
      headers: {},
      body: {
        ...base,
        message: 'Invalid or missing security token. Please reload the page and try again.',
        displayToUser: true,
        reason: ERROR_REASONS.csrf,
        errors: null,
      },
    };
  }
  if (status === 413 || fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return {
      statusCode: 413,
      headers: {},
      body: {
        ...base,
        message: 'Request body is too large.',
        displayToUser: true,
        reason: ERROR_REASONS.payloadTooLarge,
        errors: null,
      },
    };
  }
  if (status === 429) {
    return {
      statusCode: 429,
      headers: {},
      body: {
        ...base,
        message: 'Too many requests. Please wait and try again.',
        displayToUser: true,
        reason: ERROR_REASONS.rateLimited,
        errors: null,
      },
    };
  }
  if (status >= 400 && status < 500) {
    // Fastify's own client errors (bad JSON, wrong content type): safe to describe.
    return {
      statusCode: status,
      headers: {},
      body: {
        ...base,
        message: status === 415 ? 'Unsupported content type.' : 'The request could not be read.',
        displayToUser: true,
        reason: ERROR_REASONS.validation,
        errors: null,
      },
    };
  }
  return {
    statusCode: 500,
    headers: {},
    body: {
      ...base,
      message: GENERIC_ERROR_MESSAGE,
      displayToUser: false,
      reason: ERROR_REASONS.internal,
      errors: null,
    },
  };
}

function fieldName(instancePath: string | undefined): string {
  return (instancePath ?? '').replace(/^\//, '').replaceAll('/', '.') || 'body';
}
