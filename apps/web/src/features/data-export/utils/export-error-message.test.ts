import { describe, expect, it } from 'vitest';
import { ERROR_REASONS, EXPORT_MESSAGES, TRIAL_MESSAGES } from '@trialpulse/shared';
import { ApiError } from '@/lib/api-client';
import { errorBody } from '@/testing/mock-api';
import { exportErrorMessage } from './export-error-message';

describe('exportErrorMessage (device-data spec §8)', () => {
  it.each([
    ['no answer at all', new ApiError(0, null), EXPORT_MESSAGES.unreachable],
    [
      'a 500',
      new ApiError(500, errorBody('An error occurred.', false, 'INTERNAL_ERROR')),
      EXPORT_MESSAGES.serverError(500),
    ],
    [
      'a 502 from a proxy, no body',
      new ApiError(502, null),
      'Server error (502). Please try again or contact support.',
    ],
    [
      'a 401',
      new ApiError(
        401,
        errorBody('Your session has expired. Please log in again.', true, 'UNAUTHENTICATED'),
      ),
      EXPORT_MESSAGES.authError,
    ],
    [
      'a 403',
      new ApiError(403, errorBody('You do not have access to this resource.', true, 'FORBIDDEN')),
      EXPORT_MESSAGES.authError,
    ],
    ['a bare 404', new ApiError(404, null), EXPORT_MESSAGES.endpointNotFound],
    [
      "the server's 404 for a route it does not have (its own reason)",
      new ApiError(
        404,
        errorBody(
          'Route POST /api/dataExport/batchDataExport not found.',
          true,
          ERROR_REASONS.routeNotFound,
        ),
      ),
      EXPORT_MESSAGES.endpointNotFound,
    ],
    [
      'a route-not-found 404 whatever its text',
      new ApiError(404, errorBody(TRIAL_MESSAGES.notFound, true, ERROR_REASONS.routeNotFound)),
      EXPORT_MESSAGES.endpointNotFound,
    ],
    [
      'a 404 for a trial that is gone',
      new ApiError(404, errorBody(TRIAL_MESSAGES.notFound, true, ERROR_REASONS.notFound)),
      TRIAL_MESSAGES.notFound,
    ],
    [
      'a 404 for a device that is gone',
      new ApiError(404, errorBody(EXPORT_MESSAGES.deviceRequired, true, ERROR_REASONS.notFound)),
      EXPORT_MESSAGES.deviceRequired,
    ],
    [
      'a 404 for a job that is gone',
      new ApiError(404, errorBody(EXPORT_MESSAGES.jobNotFound, true, ERROR_REASONS.notFound)),
      EXPORT_MESSAGES.jobNotFound,
    ],
    [
      'a record 404 with any other displayable text (no list of texts to keep in step)',
      new ApiError(404, errorBody('Participant not found.', true, ERROR_REASONS.notFound)),
      'Participant not found.',
    ],
    [
      'a 404 not meant for users',
      new ApiError(404, errorBody('internal detail', false, ERROR_REASONS.notFound)),
      EXPORT_MESSAGES.endpointNotFound,
    ],
    [
      'a displayable §5 refusal',
      new ApiError(400, errorBody(EXPORT_MESSAGES.rangeTooLong, true, 'VALIDATION_ERROR')),
      EXPORT_MESSAGES.rangeTooLong,
    ],
    [
      'a refusal not meant for users',
      new ApiError(409, errorBody('internal detail', false, 'CONFLICT')),
      EXPORT_MESSAGES.createFailed,
    ],
    ['something that is not an API error', new TypeError('boom'), EXPORT_MESSAGES.createFailed],
  ])('%s', (_case, error, expected) => {
    expect(exportErrorMessage(error)).toBe(expected);
  });

  it('uses the caller’s fallback for texts the spec leaves to the caller', () => {
    expect(
      exportErrorMessage(
        new ApiError(400, errorBody('internal', false)),
        'Failed to delete the export.',
      ),
    ).toBe('Failed to delete the export.');
    expect(exportErrorMessage(new ApiError(0, null), 'Failed to delete the export.')).toBe(
      EXPORT_MESSAGES.unreachable,
    );
  });
});
