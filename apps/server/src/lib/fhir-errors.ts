/**
 * Errors of the machine-facing routes under /fhir (issue 31): FHIR answers failures with an
 * OperationOutcome (application/fhir+json), the OAuth token endpoint with RFC 6749 §5.2's
 * `{error, error_description}`. Throw these from /fhir routes and guards; the one error
 * handler (plugins/error-handler.ts) renders them, and renders any other failure of a /fhir
 * URL (validation, unknown route, 5xx) as an OperationOutcome too.
 */

/** FHIR R4 IssueType codes used here (http://hl7.org/fhir/valueset-issue-type.html). */
export type FhirIssueCode =
  | 'invalid'
  | 'required'
  | 'value'
  | 'security'
  | 'login'
  | 'forbidden'
  | 'not-found'
  | 'not-supported'
  | 'too-costly'
  | 'throttled'
  | 'processing'
  | 'exception'
  | 'transient'
  | 'deleted';

export const FHIR_JSON = 'application/fhir+json';

export type OperationOutcome = {
  resourceType: 'OperationOutcome';
  issue: {
    severity: 'fatal' | 'error' | 'warning' | 'information';
    code: FhirIssueCode;
    diagnostics: string;
  }[];
};

export function operationOutcome(
  code: FhirIssueCode,
  diagnostics: string,
  severity: OperationOutcome['issue'][number]['severity'] = 'error',
): OperationOutcome {
  return { resourceType: 'OperationOutcome', issue: [{ severity, code, diagnostics }] };
}

/** A failure of a /fhir route, answered as an OperationOutcome with `statusCode`. */
export class FhirError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: FhirIssueCode,
    diagnostics: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(diagnostics);
    this.name = 'FhirError';
  }

  /** 401: no, a malformed, expired or revoked bearer token (with its WWW-Authenticate). */
  static login(diagnostics: string) {
    return new FhirError(401, 'login', diagnostics, {
      'www-authenticate': `Bearer error="invalid_token", error_description="${diagnostics.replaceAll('"', "'")}"`,
    });
  }
  static forbidden(diagnostics: string) {
    return new FhirError(403, 'forbidden', diagnostics, {
      'www-authenticate': 'Bearer error="insufficient_scope"',
    });
  }
  static notFound(diagnostics: string) {
    return new FhirError(404, 'not-found', diagnostics);
  }
  static invalid(diagnostics: string) {
    return new FhirError(400, 'invalid', diagnostics);
  }
}

/** The OAuth 2 error codes of RFC 6749 §5.2 the token endpoint answers. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope';

/** A refused token request: 401 for a client that failed to authenticate, else 400. */
export class OAuthError extends Error {
  readonly statusCode: number;
  constructor(
    readonly error: OAuthErrorCode,
    description: string,
  ) {
    super(description);
    this.name = 'OAuthError';
    this.statusCode = error === 'invalid_client' ? 401 : 400;
  }
}

/** The status's IssueType for a failure that is not a FhirError (validation, 404 route, 5xx). */
export function issueCodeOf(statusCode: number): FhirIssueCode {
  if (statusCode === 400) return 'invalid';
  if (statusCode === 401) return 'login';
  if (statusCode === 403) return 'forbidden';
  if (statusCode === 404) return 'not-found';
  if (statusCode === 413) return 'too-costly';
  if (statusCode === 429) return 'throttled';
  if (statusCode === 503) return 'transient';
  return statusCode >= 500 ? 'exception' : 'processing';
}
