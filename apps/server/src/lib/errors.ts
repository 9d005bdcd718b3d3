import { ERROR_REASONS, type ErrorReason, type FieldError } from '@trialpulse/shared';

type AppErrorOptions = {
  /** Whether the client may show `message` to the user (spec §8). */
  displayToUser?: boolean;
  reason?: ErrorReason | string;
  errors?: FieldError[] | null;
  /** Extra user state the client needs, e.g. the second-factor status on a 403. */
  user?: unknown;
  headers?: Record<string, string>;
  cause?: unknown;
};

/**
 * The one error class of the server. Services throw it; only the error handler turns it
 * into the spec's error body.
 */
export class AppError extends Error {
  readonly displayToUser: boolean;
  readonly reason: string;
  readonly errors: FieldError[] | null;
  readonly user: unknown;
  readonly headers: Record<string, string>;

  constructor(
    readonly statusCode: number,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.displayToUser = options.displayToUser ?? statusCode < 500;
    this.reason = options.reason ?? defaultReason(statusCode);
    this.errors = options.errors ?? null;
    this.user = options.user ?? null;
    this.headers = options.headers ?? {};
  }

  static badRequest(message: string, errors?: FieldError[]) {
    return new AppError(400, message, { reason: ERROR_REASONS.validation, errors });
  }
  static unauthenticated(message = 'Your session has expired. Please log in again.') {
    return new AppError(401, message, { reason: ERROR_REASONS.unauthenticated });
  }
  static forbidden(
    message = 'You do not have access to this resource.',
    options: AppErrorOptions = {},
  ) {
    return new AppError(403, message, { reason: ERROR_REASONS.forbidden, ...options });
  }
  static notFound(message = 'Not found.') {
    return new AppError(404, message, { reason: ERROR_REASONS.notFound });
  }
  /** The server has no such endpoint — told apart from a missing record by its reason. */
  static routeNotFound(request: { method: string; url: string }) {
    return new AppError(404, `Route ${request.method} ${request.url.split('?')[0]} not found.`, {
      reason: ERROR_REASONS.routeNotFound,
    });
  }
  static conflict(message: string) {
    return new AppError(409, message, { reason: ERROR_REASONS.conflict });
  }
}

function defaultReason(statusCode: number): string {
  switch (statusCode) {
    case 400:
      return ERROR_REASONS.validation;
    case 401:
      return ERROR_REASONS.unauthenticated;
    case 403:
      return ERROR_REASONS.forbidden;
    case 404:
      return ERROR_REASONS.notFound;
    case 409:
      return ERROR_REASONS.conflict;
    case 413:
      return ERROR_REASONS.payloadTooLarge;
    case 429:
      return ERROR_REASONS.rateLimited;
    case 503:
      return ERROR_REASONS.unavailable;
    default:
      return statusCode >= 500 ? ERROR_REASONS.internal : ERROR_REASONS.validation;
  }
}
