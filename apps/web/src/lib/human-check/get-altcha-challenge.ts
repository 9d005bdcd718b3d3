import { api } from '@/lib/api-client';

/**
 * `GET /api/humanCheck/challenge`: a fresh ALTCHA challenge. Never cached: a solved payload
 * is single-use, so every submit solves a new one.
 */
export function getAltchaChallenge(signal?: AbortSignal): Promise<unknown> {
  return api.get<unknown>('/humanCheck/challenge', { signal });
}
