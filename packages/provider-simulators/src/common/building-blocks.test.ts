import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSimulatedClock } from './clock';
import { FaultController } from './faults';
import { decodePageToken, encodePageToken } from './page-token';
import { createRng } from './prng';
import { FixedWindowRateLimiter } from './rate-limit';
import {
  LOOPBACK_REDIRECTS,
  parseFormBody,
  pkceMatches,
  readClientCredentials,
  redirectUriAllowed,
} from './oauth';

describe('redirect URI rules', () => {
  it('allows any port and path on localhost and 127.0.0.1 by default, nothing else', () => {
    expect(redirectUriAllowed(LOOPBACK_REDIRECTS, 'http://localhost:5173/fitbit-callback')).toBe(
      true,
    );
    expect(redirectUriAllowed(LOOPBACK_REDIRECTS, 'http://127.0.0.1:3000/cb?x=1')).toBe(true);
    expect(redirectUriAllowed(LOOPBACK_REDIRECTS, 'https://localhost:5173/cb')).toBe(false);
    expect(redirectUriAllowed(LOOPBACK_REDIRECTS, 'http://localhost:1@evil.example/cb')).toBe(
      false,
    );
    expect(redirectUriAllowed(LOOPBACK_REDIRECTS, 'http://localhost.evil.example:80/cb')).toBe(
      false,
    );
    expect(redirectUriAllowed(LOOPBACK_REDIRECTS, 'http://localhost:5173/cb#frag')).toBe(false);
    expect(redirectUriAllowed(['https://app.example/cb'], 'https://app.example/cb')).toBe(true);
    expect(redirectUriAllowed(['https://app.example/cb'], 'https://app.example/cb2')).toBe(false);
  });
});

describe('PKCE and client credentials', () => {
  it('checks S256 and plain verifiers', () => {
    const verifier = 'x'.repeat(43);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    expect(pkceMatches(verifier, challenge, 'S256')).toBe(true);
    expect(pkceMatches('y'.repeat(43), challenge, 'S256')).toBe(false);
    expect(pkceMatches(verifier, verifier, 'plain')).toBe(true);
    expect(pkceMatches('short', 'short', 'plain')).toBe(false);
  });

  it('reads Basic credentials form-decoded, or client_id from the body', () => {
    const header = `Basic ${Buffer.from('my%20client:s%3Acret').toString('base64')}`;
    expect(readClientCredentials(header, {})).toEqual({
      method: 'basic',
      clientId: 'my client',
      clientSecret: 's:cret',
    });
    expect(
      readClientCredentials(undefined, parseFormBody('client_id=abc&client_secret=def')),
    ).toEqual({
      method: 'post',
      clientId: 'abc',
      clientSecret: 'def',
    });
    expect(
      readClientCredentials(`Basic ${Buffer.from('nocolon').toString('base64')}`, {}).method,
    ).toBe('malformed');
  });
});

describe('clock, rate limiter, page tokens, faults, PRNG', () => {
  it('a frozen clock moves only when told to; a running clock follows wall time from its start', () => {
    const frozen = createSimulatedClock({ start: '2026-01-01T00:00:00Z' });
    expect(frozen.frozen).toBe(true);
    expect(frozen.advance(90_000).toISOString()).toBe('2026-01-01T00:01:30.000Z');
    frozen.reset();
    expect(frozen.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    const running = createSimulatedClock({ start: '2030-01-01T00:00:00Z', frozen: false });
    expect(running.nowMs()).toBeGreaterThanOrEqual(Date.parse('2030-01-01T00:00:00Z'));
  });

  it('counts per key in windows aligned to the epoch', () => {
    const limiter = new FixedWindowRateLimiter(2, 3_600_000);
    const t = Date.parse('2026-01-01T10:59:00Z');
    expect(limiter.hit('a', t)).toMatchObject({
      count: 1,
      remaining: 1,
      resetInMs: 60_000,
      limited: false,
    });
    limiter.hit('a', t);
    expect(limiter.hit('a', t).limited).toBe(true);
    expect(limiter.hit('b', t).limited).toBe(false);
    expect(limiter.hit('a', t + 60_000)).toMatchObject({
      count: 1,
      limited: false,
      resetInMs: 3_600_000,
    });
  });

  it('takes a usage set by the control API for the current window only', () => {
    const limiter = new FixedWindowRateLimiter(10, 3_600_000);
    const t = Date.parse('2026-01-01T10:59:30Z');
    limiter.setCount('client', 10, t);
    expect(limiter.hit('client', t)).toMatchObject({
      limited: true,
      remaining: 0,
      resetSeconds: 30,
    });
    expect(limiter.hit('client', t + 30_000).limited).toBe(false);
  });

  it('page tokens are bound to their query', () => {
    const token = encodePageToken(1234, 'query-a');
    expect(decodePageToken(token, 'query-a')).toBe(1234);
    expect(decodePageToken(token, 'query-b')).toBeUndefined();
    expect(decodePageToken('garbage', 'query-a')).toBeUndefined();
  });

  it('faults apply to matching requests only, the configured number of times', () => {
    const faults = new FaultController(['server-error', 'invalid-grant']);
    faults.inject({ kind: 'server-error', times: 2, pathIncludes: '/sleep' });
    faults.inject({ kind: 'invalid-grant' });
    expect(faults.take('api', '/steps')).toBeUndefined();
    expect(faults.take('api', '/sleep')?.status).toBe(500);
    expect(faults.take('control', '/sleep')).toBeUndefined();
    expect(faults.take('api', '/sleep')?.kind).toBe('server-error');
    expect(faults.take('api', '/sleep')).toBeUndefined();
    expect(faults.take('token', '/token')?.kind).toBe('invalid-grant');
    expect(() => faults.inject({ kind: 'slow' })).toThrow(/does not support/);
  });

  it('the PRNG is deterministic per seed', () => {
    const a = createRng('seed', 1);
    const b = createRng('seed', 1);
    const c = createRng('seed', 2);
    const draw = (rng: ReturnType<typeof createRng>) => Array.from({ length: 5 }, () => rng.next());
    expect(draw(a)).toEqual(draw(b));
    expect(draw(createRng('seed', 1))).not.toEqual(draw(c));
  });
});
