import { describe, expect, it } from 'vitest';
import { api } from '@/lib/api-client';
import { baseHandlers, mockApi } from '@/testing/mock-api';
import { resetSfa } from './reset-sfa';
import { validateTotp } from './validate-totp';
import { verifyTotp } from './verify-totp';

/**
 * The server binds an anti-forgery token to its session (plugins/csrf.ts) and starts a new
 * session at each of these calls; the first write after one must carry a token fetched
 * after it, not be refused 403 and retried (a failed request, and a second write attempt).
 */
describe('second-factor calls that change the session', () => {
  it.each([
    ['validateTOTP', () => validateTotp({ sfaToken: '123456', skipSFA: false })],
    ['verifyTOTP', () => verifyTotp({ sfaToken: '123456' })],
    ['resetSFA', () => resetSfa()],
  ])('%s: the next write fetches a new anti-forgery token', async (name, call) => {
    let issued = 0;
    const { calls } = mockApi({
      ...baseHandlers({ kind: 'second-factor', authStatus: 'SFAValidateCodeNeeded' }),
      'GET /api/csrf-token': () => ({ body: { csrfToken: `csrf-${(issued += 1)}` } }),
      [`POST /api/auth/${name}`]: { body: { success: true } },
      'POST /api/userTrials': { body: { trialId: 1 } },
    });

    await call();
    await api.post('/userTrials', { trialNumber: 'T-1', trialName: 'T', trialNotes: '' });

    const sfaCall = calls.find((recorded) => recorded.url === `/api/auth/${name}`);
    const write = calls.find((recorded) => recorded.url === '/api/userTrials');
    expect(sfaCall?.headers.get('x-csrf-token')).toBe('csrf-1');
    expect(write?.headers.get('x-csrf-token')).toBe('csrf-2');
    expect(calls.filter((recorded) => recorded.url === '/api/userTrials')).toHaveLength(1);
  });
});
