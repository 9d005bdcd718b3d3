import type { Database } from '../../db/client';
import { recordAudit } from '../../lib/audit';
import type { MailService } from '../mail/mail.service';
import { insertContactMessage, type NewContactMessage } from './contact.repository';
import type { Meta } from '../../lib/request-meta';

export const CONTACT_MAIL_TEMPLATE = 'contact-message';

export type ContactService = {
  /**
   * Stores the message, queues a mail to the support address and writes the audit row, all
   * in one transaction; then starts delivery (after commit; delivery errors are logged and
   * retried by the mail job, never thrown). Returns the message id. Throws when the
   * transaction fails (nothing is stored then).
   */
  sendMessage(message: NewContactMessage, meta: Meta): Promise<number>;
};

export function createContactService(deps: {
  database: Database;
  mail: MailService;
  supportEmail: string;
}): ContactService {
  const { database, mail, supportEmail } = deps;
  return {
    async sendMessage(message, meta) {
      const id = await database.db.transaction(async (tx) => {
        const messageId = await insertContactMessage(tx, message);
        await mail.enqueue(tx, {
          to: supportEmail,
          subject: `Contact form: ${message.subject}`,
          text: supportMailText(messageId, message),
          template: CONTACT_MAIL_TEMPLATE,
        });
        // Who wrote and what is in the contact_messages row; the audit row only says it happened.
        await recordAudit(tx, {
          action: 'contact.message',
          entityType: 'contact_message',
          entityId: messageId,
          requestId: meta.requestId,
        });
        return messageId;
      });
      void mail.deliverPending();
      return id;
    },
  };
}

function supportMailText(id: number, message: NewContactMessage): string {
  return [
    `A message was sent through the TrialPulse contact form (message #${id}).`,
    '',
    `From: ${message.firstName} ${message.lastName}`,
    `Reply to: ${message.email}`,
    `Subject: ${message.subject}`,
    '',
    message.message,
    '',
  ].join('\n');
}
