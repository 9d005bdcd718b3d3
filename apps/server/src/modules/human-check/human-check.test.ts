import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema, HUMAN_CHECK_MESSAGE } from '@trialpulse/shared';
import { createManualClock } from '../../lib/clock';
import { createTestApp, csrfSession, type TestApp } from '../../test/test-app';
import { ALTCHA_CHALLENGE_TTL_MS, createAltchaVerifier } from './altcha-verifier';
import { createRecaptchaVerifier, RECAPTCHA_TIMEOUT_MS } from './recaptcha-verifier';
import { solveAltchaChallenge, solveHumanCheck } from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const SECRET = 'a-test-app-secret-that-is-long-enough-0123456789';
const context = { ip: '203.0.113.5', action: 'contact' };

describe('ALTCHA verifier', () => {
  const clock = createManualClock(new Date('2026-11-21T10:00:00Z'));
  const verifier = createAltchaVerifier({ appSecret: SECRET, difficulty: 1_000, clock });
  const solved = async () => solveAltchaChallenge(await verifier.createChallenge());

  it('issues the challenge the altcha widget expects, with a 10-minute expiry in the salt', async () => {
    const challenge = await verifier.createChallenge();
    expect(challenge).toEqual({
      algorithm: 'SHA-256',
      challenge: expect.stringMatching(/^[0-9a-f]{64}$/),
      maxnumber: 1_000,
      salt: expect.stringMatching(/\?expires=\d+&$/),
      signature: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const expires = Number(/expires=(\d+)/.exec(challenge.salt)![1]);
    expect(expires * 1000).toBe(clock.now().getTime() + ALTCHA_CHALLENGE_TTL_MS);
  });

  it('accepts a solved payload once', async () => {
    const payload = await solved();
    expect(verifier.recognises(payload)).toBe(true);
    expect(await verifier.verify(payload, context)).toEqual({ ok: true });
    expect(await verifier.verify(payload, context)).toEqual({ ok: false, reason: 'replayed' });
  });

  it('two concurrent submissions of one payload: exactly one passes', async () => {
    const payload = await solved();
    const results = await Promise.all([1, 2, 3].map(() => verifier.verify(payload, context)));
    expect(results.filter((result) => result.ok)).toHaveLength(1);
  });

  it('refuses a tampered number, challenge or signature', async () => {
    const decoded = JSON.parse(Buffer.from(await solved(), 'base64').toString());
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64');
    const flip = (hex: string) => (hex[0] === '0' ? '1' : '0') + hex.slice(1);
    for (const tampered of [
      { ...decoded, number: decoded.number + 1 },
      { ...decoded, signature: flip(decoded.signature) },
      { ...decoded, challenge: flip(decoded.challenge) },
      { ...decoded, algorithm: 'SHA-1' },
      { ...decoded, salt: decoded.salt.replace(/expires=\d+/, 'expires=9999999999') },
    ]) {
      expect((await verifier.verify(encode(tampered), context)).ok).toBe(false);
    }
    // Still good afterwards: failed attempts do not spend the payload.
    expect(await verifier.verify(encode(decoded), context)).toEqual({ ok: true });
  });

  it('refuses an expired challenge', async () => {
    const payload = await solved();
    clock.advance(ALTCHA_CHALLENGE_TTL_MS + 1_000);
    expect(await verifier.verify(payload, context)).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses a payload signed with another secret (another installation)', async () => {
    const other = createAltchaVerifier({ appSecret: `${SECRET}-other`, difficulty: 1_000, clock });
    const payload = solveAltchaChallenge(await other.createChallenge());
    expect(await verifier.verify(payload, context)).toEqual({
      ok: false,
      reason: 'invalid-solution',
    });
  });

  it('refuses what is not a payload', async () => {
    for (const token of [
      'fallback-token',
      'bm90IGpzb24=',
      Buffer.from('[]').toString('base64'),
      'a'.repeat(5_000),
    ]) {
      expect(verifier.recognises(token)).toBe(false);
      expect(await verifier.verify(token, context)).toEqual({ ok: false, reason: 'malformed' });
    }
  });
});

/** A local stand-in for Google's siteverify endpoint: the token says what to answer. */
async function startFakeSiteverify() {
  const requests: URLSearchParams[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const form = new URLSearchParams(body);
      requests.push(form);
      const token = form.get('response') ?? '';
      const reply = (status: number, json: object) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(json));
      };
      if (token === 'slow') return; // never answers
      if (token === 'server-error') return reply(500, { error: 'boom' });
      if (token === 'not-json') return response.end('<html>');
      if (token.startsWith('good:'))
        return reply(200, { success: true, score: 0.9, action: token.slice(5) });
      if (token === 'low-score')
        return reply(200, { success: true, score: 0.1, action: 'contact' });
      reply(200, { success: false, 'error-codes': ['invalid-input-response'] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/recaptcha/api/siteverify`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('reCAPTCHA verifier (against a local siteverify server)', () => {
  let siteverify: Awaited<ReturnType<typeof startFakeSiteverify>>;
  let verifier: ReturnType<typeof createRecaptchaVerifier>;

  beforeAll(async () => {
    siteverify = await startFakeSiteverify();
    verifier = createRecaptchaVerifier({
      secretKey: 'recaptcha-secret',
      verifyUrl: siteverify.url,
      minScore: 0.5,
      timeoutMs: 300,
    });
  });
  afterAll(() => siteverify?.close());

  it('passes on success with a good score and the same action; sends secret, token and IP', async () => {
    expect(await verifier.verify('good:contact', context)).toEqual({ ok: true });
    expect(Object.fromEntries(siteverify.requests.at(-1)!)).toEqual({
      secret: 'recaptcha-secret',
      response: 'good:contact',
      remoteip: context.ip,
    });
  });

  it.each([
    ['a low score', 'low-score', 'low-score'],
    ['another action', 'good:login', 'wrong-action'],
    ['an unsuccessful answer', 'whatever', 'not-successful'],
    ['an answer later than the timeout', 'slow', 'siteverify-timeout'],
    ['a server error', 'server-error', 'siteverify-http-500'],
    ['an unreadable answer', 'not-json', 'siteverify-unreadable'],
  ])('refuses %s', async (_name, token, reason) => {
    expect(await verifier.verify(token, context)).toEqual({ ok: false, reason });
  });

  it('waits 5 seconds at most by default', () => {
    expect(RECAPTCHA_TIMEOUT_MS).toBe(5_000);
  });

  it('refuses when siteverify cannot be reached', async () => {
    const unreachable = createRecaptchaVerifier({
      secretKey: 's',
      verifyUrl: 'http://127.0.0.1:1/',
      minScore: 0.5,
    });
    expect(await unreachable.verify('good:contact', context)).toEqual({
      ok: false,
      reason: 'siteverify-unreachable',
    });
  });
});

describe(`human-check routes, ALTCHA mode (${MODE})`, () => {
  let ctx: TestApp;
  let csrf: { token: string; cookie: string };

  beforeAll(async () => {
    ctx = await createTestApp();
    csrf = await csrfSession(ctx.app);
  });
  afterAll(() => ctx?.close());

  const verify = (recaptchaResponse?: string) =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/recaptchaVer3Verify',
      headers: { cookie: csrf.cookie, 'x-csrf-token': csrf.token },
      payload: recaptchaResponse === undefined ? {} : { recaptchaResponse },
    });

  it('GET /api/humanCheck/config names the self-hosted check', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/humanCheck/config' });
    expect(response.json()).toEqual({ provider: 'altcha', siteKey: null });
  });

  it('GET /api/humanCheck/challenge answers a fresh, uncached challenge at the configured difficulty', async () => {
    const first = await ctx.app.inject({ method: 'GET', url: '/api/humanCheck/challenge' });
    const second = await ctx.app.inject({ method: 'GET', url: '/api/humanCheck/challenge' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(Object.keys(first.json()).sort()).toEqual([
      'algorithm',
      'challenge',
      'maxnumber',
      'salt',
      'signature',
    ]);
    expect(first.json().maxnumber).toBe(ctx.config.HUMAN_CHECK_DIFFICULTY);
    expect(second.json().challenge).not.toBe(first.json().challenge);
  });

  it('POST /api/recaptchaVer3Verify: a solved payload passes once', async () => {
    const token = await solveHumanCheck(ctx.app);
    const ok = await verify(token);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ success: true });
    const again = await verify(token);
    expect(again.statusCode).toBe(400);
    expect(errorBodySchema.parse(again.json())).toMatchObject({
      message: HUMAN_CHECK_MESSAGE,
      displayToUser: true,
      reason: 'HUMAN_CHECK_FAILED',
    });
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['garbage', 'xyz'],
    ['fallback', 'fallback-token'],
  ])('POST /api/recaptchaVer3Verify: %s token → 400 HUMAN_CHECK_FAILED', async (_name, token) => {
    const response = await verify(token);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      message: HUMAN_CHECK_MESSAGE,
      reason: 'HUMAN_CHECK_FAILED',
    });
  });

  it('POST /api/recaptchaVer3Verify needs the CSRF token', async () => {
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/api/recaptchaVer3Verify',
      payload: { recaptchaResponse: await solveHumanCheck(ctx.app) },
    });
    expect(response.statusCode).toBe(403);
  });
});

describe(`human-check routes, reCAPTCHA mode (${MODE})`, () => {
  let ctx: TestApp;
  let csrf: { token: string; cookie: string };
  let siteverify: Awaited<ReturnType<typeof startFakeSiteverify>>;

  beforeAll(async () => {
    siteverify = await startFakeSiteverify();
    ctx = await createTestApp({
      env: {
        RECAPTCHA_SITE_KEY: 'site-key-123',
        RECAPTCHA_SECRET_KEY: 'recaptcha-secret',
        RECAPTCHA_VERIFY_URL: siteverify.url,
        RECAPTCHA_MIN_SCORE: '0.7',
      },
    });
    csrf = await csrfSession(ctx.app);
  });
  afterAll(async () => {
    await ctx?.close();
    await siteverify?.close();
  });

  const post = (url: string, payload: object) =>
    ctx.app.inject({
      method: 'POST',
      url,
      headers: { cookie: csrf.cookie, 'x-csrf-token': csrf.token },
      payload,
      remoteAddress: '203.0.113.77',
    });
  const contactForm = {
    firstName: 'Grace',
    lastName: 'Hopper',
    email: 'grace@example.test',
    subject: 'A question',
    message: 'Is the Omron scale supported?',
  };

  it('GET /api/humanCheck/config names reCAPTCHA and its site key (never the secret)', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/humanCheck/config' });
    expect(response.json()).toEqual({ provider: 'recaptcha', siteKey: 'site-key-123' });
    expect(response.body).not.toContain('recaptcha-secret');
  });

  it('a reCAPTCHA token for the right action passes, with the client IP sent to siteverify', async () => {
    expect(
      (await post('/api/recaptchaVer3Verify', { recaptchaResponse: 'good:change_password' }))
        .statusCode,
    ).toBe(200);
    expect(siteverify.requests.at(-1)!.get('remoteip')).toBe('203.0.113.77');
    expect(
      (await post('/api/contactUs', { ...contactForm, recaptchaResponse: 'good:contact' }))
        .statusCode,
    ).toBe(200);
  });

  it('a token for another action, or a low score, is refused', async () => {
    for (const token of ['good:login', 'low-score']) {
      const response = await post('/api/contactUs', { ...contactForm, recaptchaResponse: token });
      expect(response.statusCode).toBe(400);
      expect(response.json().reason).toBe('HUMAN_CHECK_FAILED');
    }
  });

  it('the ALTCHA fallback is accepted too (verified here, not sent to Google); a literal fallback token is not', async () => {
    const before = siteverify.requests.length;
    const altcha = await solveHumanCheck(ctx.app);
    expect((await post('/api/recaptchaVer3Verify', { recaptchaResponse: altcha })).statusCode).toBe(
      200,
    );
    expect(siteverify.requests.length).toBe(before);
    expect((await post('/api/recaptchaVer3Verify', { recaptchaResponse: altcha })).statusCode).toBe(
      400,
    );

    const fallback = await post('/api/recaptchaVer3Verify', {
      recaptchaResponse: 'fallback-token',
    });
    expect(fallback.statusCode).toBe(400);
    expect(fallback.json().reason).toBe('HUMAN_CHECK_FAILED');
  });

  it('logs no token and no reCAPTCHA secret', () => {
    const logs = ctx.logLines().join('\n');
    expect(logs).toContain('human check failed');
    expect(logs).not.toContain('recaptcha-secret');
    expect(logs).not.toContain('good:');
    expect(logs).not.toContain('fallback-token');
  });
});
