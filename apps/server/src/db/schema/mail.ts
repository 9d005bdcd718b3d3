import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, identityId, oneOf, timestamptz, updatedAt } from './columns';

export const MAIL_STATUSES = ['pending', 'sending', 'sent', 'failed'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/**
 * Mail outbox: a message is inserted in the same transaction as the change that causes
 * it and delivered by a job (SMTP in production; kept for the dev mailbox in demo mode).
 * Bodies may hold one-time links and codes: with SMTP, subject and bodies are stored sealed
 * with TOKEN_ENCRYPTION_KEY while the mail waits (decision 0131), replaced once the mail has
 * been handed to SMTP (or given up), and sent rows are purged after a short time. Without SMTP (demo and
 * test mode) the bodies stay, for the dev mailbox (docs/decisions/0021-no-secrets-at-rest-in-the-mail-outbox.md).
 */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: identityId(),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    textBody: text('text_body').notNull(),
    htmlBody: text('html_body'),
    /** Template name, for tests and the dev mailbox (e.g. 'password-reset'). */
    template: text('template'),
    status: text('status', { enum: MAIL_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    sendAfter: timestamptz('send_after').notNull().defaultNow(),
    sentAt: timestamptz('sent_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('mail_outbox_status_send_after_idx').on(t.status, t.sendAfter),
    check('mail_outbox_status_known', oneOf(t.status, MAIL_STATUSES)),
    check('mail_outbox_attempts_non_negative', sql`${t.attempts} >= 0`),
  ],
);

/** Messages from the public contact form (access spec §3: Contact message). */
export const contactMessages = pgTable('contact_messages', {
  id: identityId(),
  firstName: text('first_name').notNull(),
  lastName: text('last_name').notNull(),
  email: text('email').notNull(),
  subject: text('subject').notNull(),
  message: text('message').notNull(),
  createdAt: createdAt(),
});
