import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createChallenge as createChallengeV2,
  verifySolution as verifySolutionV2,
} from 'altcha-lib';
import { deriveKey as nodeSha } from 'altcha-lib/algorithms/sha';
import { createChallenge, verifySolution } from 'altcha-lib/v1';
import { LIMITS } from '@trialpulse/shared';
import { decodeAltchaPayload, errorBody, mockApi } from '@/testing/mock-api';
import { getHumanCheckConfig } from './get-human-check-config';
import { resetRecaptcha } from './recaptcha';
import { HumanCheckError, getHumanCheckToken } from './use-human-check';

const HMAC_KEY = 'test-key';

describe('human check', () => {
  afterEach(() => {
    vi.useRealTimers();
    resetRecaptcha();
    delete window.grecaptcha;
  });

  it('solves a fresh ALTCHA challenge (v1) into a payload the server library accepts', async () => {
    const { calls } = mockApi({
      'GET /api/humanCheck/challenge': async () => ({
        body: await createChallenge({ hmacKey: HMAC_KEY, maxnumber: 200 }),
      }),
    });

    const first = await getHumanCheckToken('login', { provider: 'altcha', siteKey: null });
    const second = await getHumanCheckToken('login', { provider: 'altcha', siteKey: null });

    await expect(verifySolution(first, HMAC_KEY)).resolves.toBe(true);
    await expect(verifySolution(second, HMAC_KEY)).resolves.toBe(true);
    // Single-use payloads: every token comes from its own challenge.
    expect(calls.filter((call) => call.url === '/api/humanCheck/challenge')).toHaveLength(2);
    expect(decodeAltchaPayload(first).salt).not.toBe(decodeAltchaPayload(second).salt);
  });

  it('solves a v2 (key-derivation) challenge as well', async () => {
    mockApi({
      'GET /api/humanCheck/challenge': async () => ({
        body: await createChallengeV2({
          algorithm: 'SHA-256',
          cost: 1,
          keyPrefix: '0',
          deriveKey: nodeSha,
          hmacSignatureSecret: HMAC_KEY,
        }),
      }),
    });

    const token = await getHumanCheckToken('contact', { provider: 'altcha', siteKey: null });

    const payload = decodeAltchaPayload(token) as unknown as Parameters<typeof verifySolutionV2>[0];
    const result = await verifySolutionV2({
      ...payload,
      deriveKey: nodeSha,
      hmacSignatureSecret: HMAC_KEY,
    });
    expect(result.verified).toBe(true);
  });

  it('uses reCAPTCHA v3 when the server is set up for it and the script answers', async () => {
    const execute = vi.fn(async () => 'recaptcha-token');
    window.grecaptcha = { ready: (callback) => callback(), execute };
    const { calls } = mockApi({});

    const token = await getHumanCheckToken('contact', { provider: 'recaptcha', siteKey: 'site-1' });

    expect(token).toBe('recaptcha-token');
    expect(execute).toHaveBeenCalledWith('site-1', { action: 'contact' });
    expect(calls).toHaveLength(0);
  });

  it('falls back to ALTCHA when Google’s script has not loaded after 8 seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    mockApi({
      'GET /api/humanCheck/challenge': async () => ({
        body: await createChallenge({ hmacKey: HMAC_KEY, maxnumber: 50 }),
      }),
    });

    let settled = false;
    const pending = getHumanCheckToken('login', { provider: 'recaptcha', siteKey: 'site-1' });
    void pending.then(() => (settled = true));

    expect(document.querySelector('script[src*="recaptcha/api.js?render=site-1"]')).not.toBeNull();
    await vi.advanceTimersByTimeAsync(LIMITS.humanCheckLoadTimeoutMs - 100);
    expect(settled).toBe(false);

    await vi.advanceTimersByTimeAsync(100);
    await expect(verifySolution(await pending, HMAC_KEY)).resolves.toBe(true);
  });

  it('fails with HumanCheckError when no challenge can be had', async () => {
    mockApi({
      'GET /api/humanCheck/challenge': { status: 503, body: errorBody('Unavailable', false) },
    });

    await expect(
      getHumanCheckToken('login', { provider: 'altcha', siteKey: null }),
    ).rejects.toBeInstanceOf(HumanCheckError);
  });

  it('reads the provider config and defaults to ALTCHA when it is unavailable', async () => {
    mockApi({ 'GET /api/humanCheck/config': { body: { provider: 'recaptcha', siteKey: 'k' } } });
    await expect(getHumanCheckConfig()).resolves.toEqual({ provider: 'recaptcha', siteKey: 'k' });

    mockApi({});
    await expect(getHumanCheckConfig()).resolves.toEqual({ provider: 'altcha', siteKey: null });
  });
});
