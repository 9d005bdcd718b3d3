import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { rowIdSchema } from '@trialpulse/shared';
import type { Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import { latestMails, mailById } from './mail.service';
import type { MailboxEntry } from './mail.repository';

const mailboxEntrySchema = z.object({
  id: z.number().int(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  html: z.string().nullable(),
  template: z.string().nullable(),
  status: z.string(),
  createdAt: z.string(),
});

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * Demo mode only (registered by the mail plugin when `config.isDemo`): the latest outbox
 * mails, so newcomers can read emailed sign-in codes and links without an SMTP server.
 * Deliberately without sign-in — see docs/decisions/0006-demo-mailbox.md — but answered
 * only to loopback clients, as if the route did not exist for anyone else.
 */
export const devMailboxRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  app.addHook('onRequest', async (request, reply) => {
    if (!LOOPBACK.has(request.ip)) {
      throw AppError.routeNotFound(request);
    }
    reply.header('cache-control', 'no-store');
  });

  app.get(
    '/api/dev/mailbox',
    {
      schema: {
        tags: ['dev'],
        summary: 'Demo mode: the latest 50 outbox mails',
        response: { 200: z.array(mailboxEntrySchema) },
      },
    },
    async () => (await latestMails(db, 50)).map(presentMail),
  );

  app.get(
    '/api/dev/mailbox/:id',
    {
      schema: {
        tags: ['dev'],
        summary: 'Demo mode: one outbox mail',
        params: z.object({ id: rowIdSchema('Mail not found.') }),
        response: { 200: mailboxEntrySchema },
      },
    },
    async (request) => {
      const mail = await mailById(db, request.params.id);
      if (!mail) throw AppError.notFound('Mail not found.');
      return presentMail(mail);
    },
  );
};

function presentMail(mail: MailboxEntry): z.infer<typeof mailboxEntrySchema> {
  return { ...mail, createdAt: mail.createdAt.toISOString() };
}
