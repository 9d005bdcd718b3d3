import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { createSimulatedClock, type SimulatedClock } from './clock';
import { installTruncationHook, type RouteKind } from './faults';
import { parseFormBody } from './oauth';
import type { ListenOptions, RunningSimulator, SimulatorControl, SimulatorOptions } from './types';

/**
 * The Fastify plumbing every simulator shares: form bodies, the truncated-JSON hook, route
 * kinds for fault matching, and listening on a (free) port.
 */

/** A bare Fastify app with form-body parsing and the fault hooks installed. */
export function createSimulatorApp(options: Pick<SimulatorOptions, 'logger'>): FastifyInstance {
  const app = Fastify({
    logger: options.logger ?? false,
    // Providers use long query strings (filters) and colon verbs in paths.
    routerOptions: { maxParamLength: 500 },
    // Never let a slow fault keep a test's close() waiting.
    forceCloseConnections: true,
  });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, parseFormBody(String(body)));
    },
  );
  installTruncationHook(app);
  return app;
}

/** The clock a simulator uses: the shared one, or its own from startTime. */
export function resolveClock(options: SimulatorOptions): SimulatedClock {
  if (options.clock) return options.clock;
  return createSimulatedClock({
    ...(options.startTime !== undefined && { start: options.startTime }),
    ...(options.frozenClock !== undefined && { frozen: options.frozenClock }),
  });
}

/** Route config that tells the fault controller what kind of endpoint a route is. */
export function routeConfig(kind: RouteKind): Record<string, unknown> {
  return { simulatorRoute: kind };
}

export function routeKindOf(request: FastifyRequest): RouteKind {
  const config = request.routeOptions.config as { simulatorRoute?: RouteKind } | undefined;
  return config?.simulatorRoute ?? 'other';
}

/** `http://host:port` as the client addressed this simulator (for links in responses). */
export function requestBaseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/** Listens on the given (default: free) port and wraps the app as a RunningSimulator. */
export async function listenSimulator<Control extends SimulatorControl<unknown>>(
  name: string,
  app: FastifyInstance,
  control: Control,
  listen: ListenOptions = {},
): Promise<RunningSimulator<Control>> {
  const host = listen.host ?? '127.0.0.1';
  await app.listen({ port: listen.port ?? 0, host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  const shownHost =
    host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    name,
    baseUrl: `http://${shownHost}:${port}`,
    control,
    app,
    close: () => app.close(),
  };
}
