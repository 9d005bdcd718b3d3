/**
 * Wires the shared fault queue (common/faults) into a simulator: transport faults (slow,
 * dropped connection, truncated JSON) are carried out by common code, faults with a body
 * are answered by the provider's responder in its own error shape.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  applyTransportFault,
  installTruncationHook,
  isTransportFault,
  type FaultController,
  type InjectedFault,
  type RouteKind,
} from '../common/faults';

export type FaultResponder = (fault: InjectedFault, reply: FastifyReply) => FastifyReply;

/**
 * Takes and applies the first matching fault. Returns true when the request has been
 * answered (or its connection dropped) and the handler must stop.
 */
export async function applyFault(
  faults: FaultController,
  route: RouteKind,
  request: FastifyRequest,
  reply: FastifyReply,
  respond: FaultResponder,
  accountId?: string,
): Promise<boolean> {
  const path = request.url.split('?')[0] ?? '';
  const fault = faults.take(route, path, accountId);
  if (!fault) return false;
  if (isTransportFault(fault)) return applyTransportFault(fault, request, reply);
  respond(fault, reply);
  return true;
}

/**
 * Faults for the OAuth routes run before routing. Data routes (`api`) are left to the
 * handler, which applies them after authentication so faults can target one account.
 */
export function installFaultHooks(
  app: FastifyInstance,
  faults: FaultController,
  classify: (path: string) => RouteKind,
  respond: FaultResponder,
) {
  installTruncationHook(app);
  app.addHook('onRequest', async (request, reply) => {
    const route = classify(request.url.split('?')[0] ?? '');
    if (route === 'api' || route === 'control' || route === 'other') return;
    if (await applyFault(faults, route, request, reply, respond)) return reply;
  });
}
