import { useEffect, useState } from 'react';
import type { CallbackResponse, ConsentLinkBrand } from '@trialpulse/shared';
import { completeFitbitCallback } from '../api/complete-fitbit-callback';
import { completeOmronCallback } from '../api/complete-omron-callback';
import { postOnce } from '../utils/post-once';

export type CallbackParams = { authCode?: string; state: string; error?: string };

export type CallbackResult =
  | { status: 'pending' }
  | { status: 'success'; data: CallbackResponse }
  | { status: 'error'; error: unknown };

const COMPLETE = {
  Fitbit: completeFitbitCallback,
  Omron: completeOmronCallback,
} satisfies Record<ConsentLinkBrand, (input: CallbackParams) => Promise<CallbackResponse>>;

/**
 * Posts the provider's answer (code or error, with the state) to the brand's callback
 * call once per page load, however often the page mounts, and reports the outcome.
 */
export function useCallbackResult(
  brand: ConsentLinkBrand,
  { authCode, state, error }: CallbackParams,
): CallbackResult {
  const [result, setResult] = useState<CallbackResult>({ status: 'pending' });

  useEffect(() => {
    let active = true;
    const key = JSON.stringify([brand, state, authCode ?? null, error ?? null]);
    const input: CallbackParams = {
      state,
      ...(authCode ? { authCode } : {}),
      ...(error ? { error } : {}),
    };
    postOnce(key, () => COMPLETE[brand](input)).then(
      (data) => {
        if (active) setResult({ status: 'success', data });
      },
      (failure: unknown) => {
        if (active) setResult({ status: 'error', error: failure });
      },
    );
    return () => {
      active = false;
    };
  }, [brand, state, authCode, error]);

  return result;
}
