import { z } from 'zod';
import type { Config } from '../../config/env';
import type { Db, DbOrTx } from '../../db/client';
import { systemClock, type Clock } from '../../lib/clock';
import type { JobLogger } from '../../jobs/types';
import { openMailText, sealMailText } from './mail-seal';
import * as mailRepository from './mail.repository';
import {
  createMailTransport,
  describeSendError,
  type MailSettings,
  type MailTransport,
} from './mail.transport';

/** A mail as callers hand it over; it goes into the outbox of the caller's transaction. */
export type OutgoingMail = {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Template name, for tests, logs and the dev mailbox (e.g. 'contact-message'). */
  template: string;
};

export type MailService = {
  /**
   * Puts a mail into the outbox inside the caller's transaction (so the mail exists exactly
   * when the change that causes it does) and returns its outbox id. Throws on a malformed
   * recipient address (a programming error). Call `deliverPending()` after the commit.
   */
  enqueue(tx: DbOrTx, mail: OutgoingMail): Promise<number>;
  /**
   * Delivers the outbox rows that are due. Never throws: failures are logged and the rows
   * are retried later with backoff (the `mail.deliver` job runs every minute).
   */
  deliverPending(): Promise<{ sent: number; failed: number }>;
};

export type { MailSettings } from './mail.transport';

/** Attempts before a mail is given up (status 'failed', kept for inspection). */
export const MAIL_MAX_ATTEMPTS = 10;
/** A row left in 'sending' this long belongs to a worker that died; it is claimed again. */
export const MAIL_STALE_SENDING_MS = 10 * 60 * 1000;
/** Sent mails are deleted after this long (the `mail.deliver` job purges them). */
export const MAIL_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const BATCH_SIZE = 10;
const MAX_PER_RUN = 200;

export function mailSettingsFromConfig(
  config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM'> & Partial<Pick<Config, 'TOKEN_ENCRYPTION_KEY'>>,
): MailSettings {
  return { smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, sealKey: config.TOKEN_ENCRYPTION_KEY };
}

/**
 * The outbox: `enqueue` inserts in the caller's transaction; `deliverPending` claims due
 * rows atomically (UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED)), so two workers
 * never send the same mail, sends them over SMTP and records the outcome. Logs carry the
 * outbox id and template only, never addresses, bodies, links or codes.
 */
export function createMailService(deps: {
  db: Db;
  settings: MailSettings;
  logger: JobLogger;
  clock?: Clock;
  /** Defaults to nodemailer SMTP from `settings.smtpUrl` (none without it). */
  transport?: MailTransport | null;
}): MailService {
  const { db, settings, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const transport = deps.transport === undefined ? createMailTransport(settings) : deps.transport;
  // Mails that leave over SMTP are sealed at rest; without SMTP (demo, test) the outbox is
  // the dev mailbox and keeps readable text (decision 0021).
  const sealKey = settings.smtpUrl && settings.sealKey ? settings.sealKey : undefined;

  async function deliverOne(row: mailRepository.ClaimedMail): Promise<boolean> {
    const now = () => clock.now();
    if (!transport) {
      // Demo and test mode: the outbox is the mailbox (/DevMailbox); nothing leaves it.
      await mailRepository.markSent(db, row.id, now(), { redact: false });
      logger.info(
        { outboxId: row.id, template: row.template },
        'mail queued in the outbox (no SMTP transport configured)',
      );
      return true;
    }
    try {
      await transport.send({
        id: row.id,
        createdAt: row.createdAt,
        to: row.toAddress,
        subject: openMailText(row.subject, settings.sealKey),
        text: openMailText(row.textBody, settings.sealKey),
        html: row.htmlBody === null ? undefined : openMailText(row.htmlBody, settings.sealKey),
      });
    } catch (error) {
      const failure = describeSendError(error);
      const outcome = await mailRepository.markAttemptFailed(db, row, {
        now: now(),
        error: failure.detail,
        giveUp: row.attempts >= MAIL_MAX_ATTEMPTS,
        retryAt: new Date(now().getTime() + backoffMs(row.attempts)),
      });
      logger.warn(
        {
          outboxId: row.id,
          template: row.template,
          attempts: row.attempts,
          errorCode: failure.code,
          outcome,
        },
        'mail delivery failed',
      );
      return false;
    }
    try {
      // Handed to SMTP: the outbox keeps who/what/when but no longer the link or code.
      await mailRepository.markSent(db, row.id, now(), { redact: true });
    } catch (error) {
      // Sent but not recorded: the row is claimed again once stale (at-least-once delivery).
      logger.error(
        { outboxId: row.id, template: row.template, ...safeErrorFields(error) },
        'mail sent but not marked as sent; it may be sent again',
      );
      return true;
    }
    logger.info({ outboxId: row.id, template: row.template, attempts: row.attempts }, 'mail sent');
    return true;
  }

  return {
    async enqueue(tx, mail) {
      if (!z.email().safeParse(mail.to).success)
        throw new Error('mail recipient is not an email address');
      const sealed = sealKey
        ? {
            subject: sealMailText(mail.subject, sealKey),
            text: sealMailText(mail.text, sealKey),
            html: mail.html === undefined ? undefined : sealMailText(mail.html, sealKey),
          }
        : {};
      return mailRepository.insertMail(tx, { ...mail, ...sealed, sendAfter: clock.now() });
    },

    async deliverPending() {
      const counts = { sent: 0, failed: 0 };
      try {
        // Rows queued before sealing (an upgrade while SMTP was down) are sealed first.
        if (sealKey) await mailRepository.sealWaiting(db, (text) => sealMailText(text, sealKey));
        while (counts.sent + counts.failed < MAX_PER_RUN) {
          const now = clock.now();
          const rows = await mailRepository.claimDue(db, {
            now,
            staleBefore: new Date(now.getTime() - MAIL_STALE_SENDING_MS),
            limit: BATCH_SIZE,
          });
          if (rows.length === 0) break;
          for (const row of rows) {
            if (await deliverOne(row)) counts.sent += 1;
            else counts.failed += 1;
          }
        }
      } catch (error) {
        // Database trouble: rows stay due (or 'sending' until stale) and are retried later.
        logger.error({ ...safeErrorFields(error), ...counts }, 'mail delivery run failed');
      }
      return counts;
    },
  };
}

/**
 * Name and code only: messages and details of driver errors can carry row values
 * (PostgreSQL's DETAIL) and SMTP replies the recipient's address; neither may reach the logs.
 */
function safeErrorFields(error: unknown): { errorName?: string; errorCode?: string } {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  return {
    errorName: typeof name === 'string' ? name : undefined,
    errorCode: typeof code === 'string' ? code : undefined,
  };
}

/** 1, 2, 4, … minutes after the nth failed attempt, at most an hour. */
export function backoffMs(attempts: number): number {
  return Math.min(60, 2 ** Math.max(0, attempts - 1)) * 60 * 1000;
}

/** The newest outbox mails, for the demo-mode dev mailbox. */
export async function latestMails(db: Db, limit = 50): Promise<mailRepository.MailboxEntry[]> {
  return mailRepository.listLatest(db, limit);
}

export async function mailById(
  db: Db,
  id: number,
): Promise<mailRepository.MailboxEntry | undefined> {
  return mailRepository.findById(db, id);
}

/**
 * Deletes sent mails older than `olderThanMs` (default 7 days): their bodies may hold
 * one-time links and codes. Unsent and failed rows are kept.
 */
export async function purgeSentMails(
  db: Db,
  now: Date,
  olderThanMs = MAIL_RETENTION_MS,
): Promise<number> {
  return mailRepository.purgeSent(db, new Date(now.getTime() - olderThanMs));
}
