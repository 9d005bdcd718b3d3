import type { FastifyReply } from 'fastify';

/**
 * Fitbit's error body: `{"errors":[{"errorType","fieldName"?,"message"}],"success":false}`
 * (facts §1.2). The OAuth endpoints use the same shape, not RFC 6749's.
 */

export interface FitbitErrorBody {
  errors: Array<{ errorType: string; fieldName?: string; message: string }>;
  success?: false;
}

export const OAUTH_HELP =
  'Visit https://dev.fitbit.com/docs/oauth2 for more information on the Fitbit Web API authorization process.';

export function fitbitError(
  errorType: string,
  message: string,
  fieldName?: string,
): FitbitErrorBody {
  return {
    errors: [{ errorType, ...(fieldName !== undefined && { fieldName }), message }],
    success: false,
  };
}

export function sendFitbitError(
  reply: FastifyReply,
  status: number,
  body: FitbitErrorBody,
  headers: Record<string, string> = {},
) {
  return reply.code(status).headers(headers).send(body);
}

export const fitbitErrors = {
  missingAuthorization: () =>
    fitbitError(
      'invalid_client',
      `Invalid authorization header format. The header was not recognized to be a valid header for any of known implementations or a client_id was not specified in case of a public client Received header = null. ${OAUTH_HELP}`,
    ),
  expiredToken: (token: string) =>
    fitbitError('expired_token', `Access token expired: ${token}. ${OAUTH_HELP}`),
  invalidToken: (token: string) =>
    fitbitError('invalid_token', `Access token invalid: ${token}. ${OAUTH_HELP}`),
  insufficientScope: (scope: string) =>
    fitbitError(
      'insufficient_scope',
      `This application does not have permission to access ${scope} data. ${OAUTH_HELP}`,
    ),
  insufficientPermissions: (message = 'Access to the requested resource is denied.') =>
    fitbitError('insufficient_permissions', message),
  notFound: () => fitbitError('not_found', 'The API you are requesting could not be found.', 'n/a'),
  /** The 429 body as captured (facts §1.2): no `success` field. */
  tooManyRequests: (): FitbitErrorBody => ({
    errors: [{ errorType: 'system', fieldName: 'n/a', message: 'Too Many Requests' }],
  }),
  system: (status: number) =>
    fitbitError(
      'system',
      status === 503
        ? 'Service Unavailable'
        : status === 502
          ? 'Bad Gateway'
          : 'An unexpected error occurred. Please try again later.',
      'n/a',
    ),
  validation: (fieldName: string, message: string) => fitbitError('validation', message, fieldName),
  gone: () =>
    fitbitError(
      'gone',
      'The Fitbit Web API has been shut down. Use the Google Health API instead: https://developers.google.com/health',
    ),
};
