import { z } from 'zod';

/**
 * The error body every failing API call answers with (access spec §8). Clients show
 * `message` only when `displayToUser` is true.
 */
export const errorBodySchema = z.object({
  message: z.string(),
  displayToUser: z.boolean(),
  reason: z.string().nullable(),
  location: z.string().nullable(),
  errors: z.array(z.object({ field: z.string(), message: z.string() })).nullable(),
  user: z.unknown().nullable(),
  requestId: z.string().optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;
export type FieldError = { field: string; message: string };

export const GENERIC_ERROR_MESSAGE = 'An error occurred.';

/** Machine-readable reasons carried in `reason`. */
export const ERROR_REASONS = {
  validation: 'VALIDATION_ERROR',
  unauthenticated: 'UNAUTHENTICATED',
  forbidden: 'FORBIDDEN',
  csrf: 'CSRF_TOKEN_INVALID',
  /** A record asked for is not (or no longer) there: the route exists. */
  notFound: 'NOT_FOUND',
  /** No such endpoint: the server has no route for this method and path. */
  routeNotFound: 'ROUTE_NOT_FOUND',
  conflict: 'CONFLICT',
  rateLimited: 'RATE_LIMITED',
  accountLocked: 'ACCOUNT_LOCKED',
  payloadTooLarge: 'PAYLOAD_TOO_LARGE',
  internal: 'INTERNAL_ERROR',
  unavailable: 'SERVICE_UNAVAILABLE',
} as const;
export type ErrorReason = (typeof ERROR_REASONS)[keyof typeof ERROR_REASONS];

export function isErrorBody(value: unknown): value is ErrorBody {
  return errorBodySchema.safeParse(value).success;
}
