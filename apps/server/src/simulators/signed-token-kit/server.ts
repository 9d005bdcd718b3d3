/** Starting a simulator app on a port (common/types ListenOptions: port 0 = free port). */
import type { FastifyInstance } from 'fastify';
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
