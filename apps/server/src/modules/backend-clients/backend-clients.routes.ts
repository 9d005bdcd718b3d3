import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  BACKEND_CLIENT_MESSAGES,
  backendClientIdSchema,
  backendClientListSchema,
  backendClientMessageSchema,
  registerBackendClientInputSchema,
} from '@trialpulse/shared/backend-clients/backend-clients.schemas';
import { requestMeta } from '../../lib/request-meta';
import type { BackendClientsService } from './backend-clients.service';

/**
 * The team Admin's backend clients (issue 31, /TeamBackendClients): list, register, revoke.
 * Each is the caller's selected team's; another team's client id answers 404.
 */
export const backendClientsRoutes: FastifyPluginAsyncZod<{
  backendClients: Pick<BackendClientsService, 'list' | 'register' | 'revoke'>;
}> = async (app, { backendClients }) => {
  const admins = app.requireStaff({ action: 'backendClient.manage' });

  app.get(
    '/api/backendClients',
    {
      schema: {
        tags: ['backend-clients'],
        summary: "The team's SMART Backend Services clients, newest first",
        response: { 200: backendClientListSchema },
      },
      preHandler: admins,
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return backendClients.list(request.auth!);
    },
  );

  app.post(
    '/api/backendClients',
    {
      schema: {
        tags: ['backend-clients'],
        summary: 'Register a backend client (public key as a JWKS or PEM, allowed scopes)',
        description:
          'Answers the client with its opaque clientId (the iss and sub of its assertions). 400 with the publicKey field message when the key is not a usable RS384/ES384 public key.',
        body: registerBackendClientInputSchema,
        response: { 201: backendClientMessageSchema },
      },
      preHandler: admins,
    },
    async (request, reply) => {
      const client = await backendClients.register(
        request.auth!,
        request.body,
        requestMeta(request),
      );
      reply.code(201);
      return { message: BACKEND_CLIENT_MESSAGES.registered, client };
    },
  );

  app.post(
    '/api/backendClients/:id/revoke',
    {
      schema: {
        tags: ['backend-clients'],
        summary: 'Revoke a backend client: its tokens stop working at their next request',
        params: z.object({ id: backendClientIdSchema }),
        response: { 200: backendClientMessageSchema },
      },
      preHandler: admins,
    },
    async (request) => {
      const client = await backendClients.revoke(
        request.auth!,
        request.params.id,
        requestMeta(request),
      );
      return { message: BACKEND_CLIENT_MESSAGES.revoked, client };
    },
  );
};
