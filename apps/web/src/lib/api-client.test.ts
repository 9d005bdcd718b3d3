import { describe, expect, it } from 'vitest';
import { ApiError, api, userMessage } from './api-client';
import { errorBody, mockApi } from '@/testing/mock-api';

describe('api client', () => {
  it('sends cookies on reads without fetching a CSRF token', async () => {
    const { calls } = mockApi({ 'GET /api/appVersion': { body: { version: '1.0.0' } } });

    await expect(api.get('/appVersion')).resolves.toEqual({ version: '1.0.0' });

    expect(calls).toHaveLength(1);
    expect(calls[0]?.credentials).toBe('include');
    expect(calls[0]?.headers.has('x-csrf-token')).toBe(false);
  });

  it('fetches the CSRF token once and sends it with every write', async () => {
    const { calls } = mockApi({
      'GET /api/csrf-token': { body: { csrfToken: 'token-A' } },
      'POST /api/userTrials': { body: { trialId: 3 } },
      'DELETE /api/userTrials': { status: 204 },
    });

    await expect(api.post('/userTrials', { trialName: 'Sleep' })).resolves.toEqual({ trialId: 3 });
    await expect(api.delete('/userTrials', { trialId: 3 })).resolves.toBeUndefined();

    expect(calls.map((call) => `${call.method} ${call.url}`)).toEqual([
      'GET /api/csrf-token',
      'POST /api/userTrials',
      'DELETE /api/userTrials',
    ]);
    for (const write of calls.slice(1)) {
      expect(write.headers.get('x-csrf-token')).toBe('token-A');
      expect(write.headers.get('content-type')).toBe('application/json');
      expect(write.credentials).toBe('include');
    }
    expect(calls[1]?.body).toEqual({ trialName: 'Sleep' });
  });

  it('sends the CSRF header on a GET that asks for it (a GET that changes state)', async () => {
    const { calls } = mockApi({
      'GET /api/csrf-token': { body: { csrfToken: 'token-G' } },
      'GET /api/revokeAccessToken/4': { body: { code: 200, message: 'revoked' } },
    });

    await expect(api.get('/revokeAccessToken/4', { csrf: true })).resolves.toEqual({
      code: 200,
      message: 'revoked',
    });

    expect(calls.map((call) => `${call.method} ${call.url}`)).toEqual([
      'GET /api/csrf-token',
      'GET /api/revokeAccessToken/4',
    ]);
    expect(calls[1]?.headers.get('x-csrf-token')).toBe('token-G');
  });

  it('after a CSRF rejection fetches a fresh token and retries the call once', async () => {
    let tokenCount = 0;
    const { calls } = mockApi({
      'GET /api/csrf-token': () => ({ body: { csrfToken: `token-${++tokenCount}` } }),
      'PUT /api/participant': (call) =>
        call.headers.get('x-csrf-token') === 'token-2'
          ? { body: { ok: true } }
          : { status: 403, body: errorBody('Invalid CSRF token', false, 'CSRF_TOKEN_INVALID') },
    });

    await expect(api.put('/participant', { id: 1 })).resolves.toEqual({ ok: true });

    expect(
      calls.map((call) => `${call.method} ${call.url} ${call.headers.get('x-csrf-token')}`),
    ).toEqual([
      'GET /api/csrf-token null',
      'PUT /api/participant token-1',
      'GET /api/csrf-token null',
      'PUT /api/participant token-2',
    ]);
  });

  it('retries only once: a second CSRF rejection reaches the caller', async () => {
    const { calls } = mockApi({
      'GET /api/csrf-token': { body: { csrfToken: 'stale' } },
      'POST /api/auth/logout': {
        status: 403,
        body: errorBody('Invalid CSRF token', false, 'CSRF_TOKEN_INVALID'),
      },
    });

    const failure = await api.post('/auth/logout').catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(403);
    expect((failure as ApiError).reason).toBe('CSRF_TOKEN_INVALID');
    expect(calls.filter((call) => call.method === 'POST')).toHaveLength(2);
  });

  it('does not retry a 403 for any other reason', async () => {
    const { calls } = mockApi({
      'GET /api/csrf-token': { body: { csrfToken: 'token' } },
      'POST /api/trialUsers': { status: 403, body: errorBody('Forbidden', true, 'FORBIDDEN') },
    });

    await expect(api.post('/trialUsers', {})).rejects.toMatchObject({ status: 403 });
    expect(calls.filter((call) => call.method === 'POST')).toHaveLength(1);
  });

  it('throws ApiError with the status and the parsed error body', async () => {
    const body = {
      ...errorBody('Trial number already exists', true, 'CONFLICT'),
      errors: [{ field: 'trialNumber', message: 'Trial number already exists' }],
      requestId: 'req-9',
    };
    mockApi({
      'GET /api/csrf-token': { body: { csrfToken: 'token' } },
      'POST /api/userTrials': { status: 409, body },
    });

    const failure = await api.post('/userTrials', {}).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(409);
    expect((failure as ApiError).body).toEqual(body);
  });

  it('turns a network failure into ApiError with status 0', async () => {
    mockApi({ 'GET /api/appVersion': () => Promise.reject(new TypeError('Failed to fetch')) });

    const failure = await api.get('/appVersion').catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).isNetworkError).toBe(true);
    expect((failure as ApiError).body).toBeNull();
  });
});

describe('userMessage', () => {
  it('shows the server message when displayToUser is true', () => {
    const error = new ApiError(400, errorBody('Invalid username or password', true));
    expect(userMessage(error, 'Login failed - Please try again.')).toBe(
      'Invalid username or password',
    );
  });

  it('hides the server message when displayToUser is false', () => {
    const error = new ApiError(500, errorBody('duplicate key value violates constraint', false));
    expect(userMessage(error, 'Login failed - Please try again.')).toBe(
      'Login failed - Please try again.',
    );
  });

  it('falls back for errors without a body and for non-API errors', () => {
    expect(userMessage(new ApiError(502, null), 'Adding a new trial failed')).toBe(
      'Adding a new trial failed',
    );
    expect(userMessage(new Error('boom'))).toBe('An error occurred.');
  });
});
