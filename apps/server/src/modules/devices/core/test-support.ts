import { inspect } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { AllSimulators } from '@trialpulse/provider-simulators';
import type { FaultSpec } from '@trialpulse/provider-simulators/common/faults';
import { DEFAULT_DEXCOM_CLIENT } from '@trialpulse/provider-simulators/dexcom';
import {
  DEFAULT_FITBIT_CLIENT,
  DEFAULT_FITBIT_PUBLIC_CLIENT,
} from '@trialpulse/provider-simulators/fitbit-legacy';
import { DEFAULT_GOOGLE_CLIENT } from '@trialpulse/provider-simulators/google-health';
import { DEFAULT_OMRON_CLIENT } from '@trialpulse/provider-simulators/omron';
import { DEXCOM_SCOPES, dexcomEndpoints } from '../../../providers/dexcom/dexcom.client';
import {
  FITBIT_LEGACY_SCOPES,
  fitbitLegacyEndpoints,
} from '../../../providers/fitbit-legacy/fitbit-legacy.client';
import {
  GOOGLE_HEALTH_SCOPES,
  googleHealthEndpoints,
} from '../../../providers/google-health/google-health.client';
import { OMRON_SCOPES, omronEndpoints } from '../../../providers/omron/omron.client';
import { providerPlugin } from '../../../providers';
import type { ProviderConfig, RetryPolicy, TokenSet } from './provider-client';
import { clientLabels } from './provider-settings';

/**
 * Test helpers for the provider clients: configurations pointing at the running simulators
 * (with quick backoff so bounded retries stay fast), fault injection through the simulators'
 * HTTP control API, request counting, and a check that no token leaks into an error.
 */

export const FAST_RETRY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 5,
  maxDelayMs: 20,
  maxWaitSeconds: 60,
};

const CALLBACK = 'http://localhost:5173';

/** One configuration per upstream, as the app's configuration will build them. */
export function simulatorConfigs(sims: AllSimulators) {
  const googleHealth: ProviderConfig = {
    ...googleHealthEndpoints(sims.googleHealth.baseUrl),
    brand: 'fitbit',
    upstream: 'google-health',
    ...clientLabels(providerPlugin('google-health')),
    clientId: DEFAULT_GOOGLE_CLIENT.clientId,
    clientSecret: DEFAULT_GOOGLE_CLIENT.clientSecret,
    clientAuth: 'body',
    redirectUri: `${CALLBACK}/fitbit-callback`,
    scopes: GOOGLE_HEALTH_SCOPES,
    retry: FAST_RETRY,
  };
  const fitbitLegacy: ProviderConfig = {
    ...fitbitLegacyEndpoints(sims.fitbitLegacy.baseUrl),
    brand: 'fitbit',
    upstream: 'fitbit-legacy',
    ...clientLabels(providerPlugin('fitbit-legacy')),
    clientId: DEFAULT_FITBIT_CLIENT.clientId,
    clientSecret: DEFAULT_FITBIT_CLIENT.clientSecret,
    clientAuth: 'basic',
    redirectUri: `${CALLBACK}/fitbit-callback`,
    scopes: FITBIT_LEGACY_SCOPES,
    retry: FAST_RETRY,
  };
  const { clientSecret: _publicHasNone, ...fitbitLegacyBase } = fitbitLegacy;
  const fitbitLegacyPublic: ProviderConfig = {
    ...fitbitLegacyBase,
    clientId: DEFAULT_FITBIT_PUBLIC_CLIENT.clientId,
    clientAuth: 'none',
  };
  const omron: ProviderConfig = {
    ...omronEndpoints(sims.omron.baseUrl),
    brand: 'omron',
    upstream: 'omron',
    ...clientLabels(providerPlugin('omron')),
    clientId: DEFAULT_OMRON_CLIENT.clientId,
    clientSecret: DEFAULT_OMRON_CLIENT.clientSecret ?? '',
    clientAuth: 'body',
    redirectUri: `${CALLBACK}/omron-callback`,
    scopes: OMRON_SCOPES,
    retry: FAST_RETRY,
  };
  const dexcom: ProviderConfig = {
    ...dexcomEndpoints(sims.dexcom.baseUrl),
    brand: 'dexcom',
    upstream: 'dexcom',
    ...clientLabels(providerPlugin('dexcom')),
    clientId: DEFAULT_DEXCOM_CLIENT.clientId,
    clientSecret: DEFAULT_DEXCOM_CLIENT.clientSecret ?? '',
    clientAuth: 'body',
    redirectUri: `${CALLBACK}/dexcom-callback`,
    scopes: DEXCOM_SCOPES,
    retry: FAST_RETRY,
  };
  return { googleHealth, fitbitLegacy, fitbitLegacyPublic, omron, dexcom };
}

/** Queues a fault through the simulator's `/__control` HTTP API. */
export async function injectFault(baseUrl: string, fault: FaultSpec): Promise<void> {
  await control(baseUrl, 'POST', '/faults', fault);
}

export async function clearFaults(baseUrl: string): Promise<void> {
  await control(baseUrl, 'DELETE', '/faults');
}

/** Calls the control API; throws on anything but 2xx. */
export async function control(
  baseUrl: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${baseUrl}/__control${path}`, {
    method,
    ...(body !== undefined && {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  });
  if (!response.ok) throw new Error(`control ${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
}

/** Counts the HTTP requests that reach a simulator with `pathIncludes` in their URL. */
export function countRequests(sim: { app: FastifyInstance }, pathIncludes: string) {
  let count = 0;
  const listener = (request: { url?: string }) => {
    if (request.url?.includes(pathIncludes)) count++;
  };
  sim.app.server.on('request', listener);
  return {
    get count() {
      return count;
    },
    stop: () => {
      sim.app.server.off('request', listener);
    },
  };
}

/** Every token a test file was issued, so no error can be shown to carry one. */
export class TokenLog {
  private readonly tokens = new Set<string>();

  add(tokens: TokenSet): TokenSet {
    this.tokens.add(tokens.accessToken);
    this.tokens.add(tokens.refreshToken);
    return tokens;
  }

  get size(): number {
    return this.tokens.size;
  }

  /** Fails when the error's message, stack or causes contain a known token. */
  expectNoTokenIn(error: unknown): void {
    const shown = `${(error as Error).message}\n${inspect(error, { depth: 10 })}`;
    for (const token of this.tokens) expect(shown.includes(token)).toBe(false);
  }
}

/** Awaits a rejection of the given class and checks that no token leaks into it. */
export async function expectFailure<E extends Error>(
  promise: Promise<unknown>,
  ErrorClass: abstract new (...args: never[]) => E,
  log: TokenLog,
): Promise<E> {
  const error = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(ErrorClass);
  log.expectNoTokenIn(error);
  return error as E;
}
