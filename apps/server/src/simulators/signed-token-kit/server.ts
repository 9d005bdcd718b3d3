/** Starting a simulator app on a port (common/types ListenOptions: port 0 = free port). */
import type { FastifyInstance } from 'fastify';
import type { FaultKind } from '../common/faults';
import type { ListenOptions } from '../common/types';

/** Listens and returns the base URL (no trailing slash). */
export async function listen(app: FastifyInstance, options: ListenOptions = {}): Promise<string> {
  // 127.0.0.1 by default: simulators are local tools and never listen publicly unasked.
  const host = options.host ?? '127.0.0.1';
  await app.listen({ port: options.port ?? 0, host });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('Simulator is not listening on TCP');
  const shownHost =
    host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shownHost}:${address.port}`;
}

/** Fault kinds the signed-token providers (Omron, Dexcom) can produce (no ACCOUNT_NOT_LINKED: a Google Health state). */
export const SIGNED_TOKEN_FAULT_KINDS: FaultKind[] = [
  'expired-token',
  'revoked-token',
  'invalid-grant',
  'rate-limit',
  'server-error',
  'slow',
  'drop-connection',
  'truncated-json',
];

/**
 * Starts a built simulator and answers it running: port 0 (default) picks a free port,
 * host defaults to 127.0.0.1; `endpoints` names its URLs on the chosen base URL.
 */
export async function startBuilt<Control, Endpoints>(
  name: string,
  built: { app: FastifyInstance; control: Control; setBaseUrl: (baseUrl: string) => void },
  options: ListenOptions,
  endpoints: (baseUrl: string) => Endpoints,
) {
  const { app, control, setBaseUrl } = built;
  const baseUrl = await listen(app, options);
  setBaseUrl(baseUrl);
  return { name, baseUrl, app, control, close: () => app.close(), endpoints: endpoints(baseUrl) };
}
