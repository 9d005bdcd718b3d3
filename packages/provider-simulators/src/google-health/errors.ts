import type { FastifyReply } from 'fastify';

/**
 * Google's error envelope (`google.rpc.Status` as JSON) and the token endpoint's OAuth error
 * bodies, with the messages seen on the live API where the facts have them.
 */

export interface GoogleErrorBody {
  error: { code: number; message: string; status: string; details?: unknown[] };
}

export const DOMAIN = 'health.googleapis.com';

export function googleError(
  code: number,
  status: string,
  message: string,
  details?: unknown[],
): GoogleErrorBody {
  return { error: { code, message, status, ...(details && { details }) } };
}

export function errorInfo(reason: string, domain = DOMAIN, metadata?: Record<string, string>) {
  return {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason,
    domain,
    ...(metadata && { metadata }),
  };
}

export function sendGoogleError(
  reply: FastifyReply,
  body: GoogleErrorBody,
  headers: Record<string, string> = {},
) {
  return reply.code(body.error.code).headers(headers).send(body);
}

const AUTH_HELP =
  'Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';

export const googleErrors = {
  credentialsMissing: (method: string) =>
    googleError(
      401,
      'UNAUTHENTICATED',
      `Request is missing required authentication credential. ${AUTH_HELP}`,
      [errorInfo('CREDENTIALS_MISSING', 'googleapis.com', { service: DOMAIN, method })],
    ),
  /** Expired, revoked or unknown token: the live body carries no details. */
  invalidCredentials: () =>
    googleError(
      401,
      'UNAUTHENTICATED',
      `Request had invalid authentication credentials. ${AUTH_HELP}`,
    ),
  scopeInsufficient: (method: string) =>
    googleError(403, 'PERMISSION_DENIED', 'Request had insufficient authentication scopes.', [
      errorInfo('ACCESS_TOKEN_SCOPE_INSUFFICIENT', 'googleapis.com', { service: DOMAIN, method }),
    ]),
  permissionDenied: () =>
    googleError(403, 'PERMISSION_DENIED', 'The caller does not have permission'),
  rateLimited: (userId: string) =>
    googleError(
      429,
      'RESOURCE_EXHAUSTED',
      "Quota exceeded for quota metric 'Requests per user' and limit 'Requests per minute per user' of service 'health.googleapis.com'.",
      [
        errorInfo('RATE_LIMIT_EXCEEDED', 'googleapis.com', {
          service: DOMAIN,
          quota_metric: 'health.googleapis.com/user_requests',
          quota_limit: 'UserRequestsPerMinutePerUser',
          quota_limit_value: '300',
        }),
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [
            { subject: `users/${userId}`, description: 'Requests per minute per user: 300' },
          ],
        },
      ],
    ),
  serverError: (status: number) =>
    status === 503
      ? googleError(503, 'UNAVAILABLE', 'The service is currently unavailable.')
      : status === 504
        ? googleError(504, 'DEADLINE_EXCEEDED', 'The request timed out.')
        : googleError(status, 'INTERNAL', 'Internal error encountered.'),
  accountNotLinked: () =>
    googleError(
      400,
      'FAILED_PRECONDITION',
      'The Google account is not linked to a Google Health (Fitbit) profile.',
      [
        errorInfo('ACCOUNT_NOT_LINKED', DOMAIN, {
          redirect_uri: 'https://fitbit.google.com/auth/signup',
        }),
      ],
    ),
  notFound: () =>
    googleError(
      404,
      'NOT_FOUND',
      'The requested resource was not found. Please refer to the Google Health API developer documentation for the list of supported resources.',
      [errorInfo('RESOURCE_NOT_FOUND')],
    ),
  invalidArgument: (
    message: string,
    reason?: string,
    metadata?: Record<string, string>,
    field?: string,
  ) =>
    googleError(400, 'INVALID_ARGUMENT', message, [
      ...(reason ? [errorInfo(reason, DOMAIN, metadata)] : []),
      ...(field
        ? [
            {
              '@type': 'type.googleapis.com/google.rpc.BadRequest',
              fieldViolations: [{ field, description: message }],
            },
          ]
        : []),
    ]),
  invalidDataType: (dataType: string) =>
    googleError(
      400,
      'INVALID_ARGUMENT',
      `Invalid data type ID referenced in the parent data type collection: ${dataType}`,
      [errorInfo('INVALID_PARENT_DATA_TYPE_COLLECTION')],
    ),
  unsupportedAction: (dataType: string, action: string) =>
    googleError(
      400,
      'INVALID_ARGUMENT',
      `The data type ${dataType} does not support the ${action} operation.`,
      [errorInfo('UNSUPPORTED_DATA_TYPE_ACTION')],
    ),
  invalidPageToken: () =>
    googleError(400, 'INVALID_ARGUMENT', 'The page token is invalid.', [
      errorInfo('INVALID_PAGE_TOKEN'),
    ]),
  unsupportedFamily: () =>
    googleError(400, 'INVALID_ARGUMENT', 'Data family is missing or is not supported', [
      errorInfo('INVALID_DATA_POINT_DATA_SOURCE_FAMILY'),
    ]),
};

/** OAuth error body of oauth2.googleapis.com. */
export function oauthError(
  reply: FastifyReply,
  status: number,
  error: string,
  description: string,
) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .send({ error, error_description: description });
}
