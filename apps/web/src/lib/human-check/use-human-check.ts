import { useCallback, useMemo } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { LIMITS } from '@trialpulse/shared';
import { getAltchaChallenge } from './get-altcha-challenge';
import {
  getHumanCheckConfig,
  humanCheckConfigQueryKey,
  type HumanCheckConfig,
} from './get-human-check-config';
import { executeRecaptcha } from './recaptcha';
import { solveAltcha } from './solve-altcha';

/** No token could be had; forms show their own error text. */
export class HumanCheckError extends Error {
  constructor(cause?: unknown) {
    super('Failed to get a human-check token.', { cause });
    this.name = 'HumanCheckError';
  }
}

/**
 * A fresh token for the `recaptchaResponse` field: reCAPTCHA v3 when the server is set up
 * for it and Google's script answers within 8 s, otherwise a solved ALTCHA challenge (the
 * server accepts those in both modes). Throws `HumanCheckError`.
 */
export async function getHumanCheckToken(
  action: string,
  config: HumanCheckConfig,
): Promise<string> {
  if (config.provider === 'recaptcha' && config.siteKey) {
    try {
      return await executeRecaptcha(config.siteKey, action, LIMITS.humanCheckLoadTimeoutMs);
    } catch {
      // Blocked, offline or slow: the proof-of-work check below still proves a browser.
    }
  }
  try {
    return await solveAltcha(await getAltchaChallenge());
  } catch (error) {
    throw new HumanCheckError(error);
  }
}

/** `getToken(action)` for a form's submit; the provider config is asked for once per app. */
export function useHumanCheck(): { getToken: (action: string) => Promise<string> } {
  const queryClient = useQueryClient();
  const getToken = useCallback(
    async (action: string) => {
      const config = await queryClient.fetchQuery({
        queryKey: humanCheckConfigQueryKey,
        queryFn: getHumanCheckConfig,
        staleTime: Infinity,
      });
      return getHumanCheckToken(action, config);
    },
    [queryClient],
  );
  return useMemo(() => ({ getToken }), [getToken]);
}
