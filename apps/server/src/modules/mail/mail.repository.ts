import { and, desc, eq, inArray, lt, lte, notLike, or, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import { mailOutbox } from '../../db/schema';
import { SEALED_PREFIX } from './mail-seal';

/** The columns delivery needs from a claimed row. */
export type ClaimedMail = {
  id: number;
  toAddress: string;
  subject: string;
  textBody: string;
  htmlBody: string | null;
  template: string | null;
  /** Including the attempt this claim starts. */
  attempts: number;
  createdAt: Date;
};

export type MailboxEntry = {
  id: number;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  template: string | null;
  status: string;
  createdAt: Date;
};

export async function insertMail(
  tx: DbOrTx,
  mail: {
    to: string;
    subject: string;
    text: string;
    html?: string;
    template: string;
    sendAfter: Date;
  },
): Promise<number> {
  const [row] = await tx
    .insert(mailOutbox)
    .values({
      toAddress: mail.to,
      subject: mail.subject,
      textBody: mail.text,
      htmlBody: mail.html ?? null,
      template: mail.template,
      status: 'pending',
      sendAfter: mail.sendAfter,
    })
    .returning({ id: mailOutbox.id });
  if (!row) throw new Error('mail outbox insert returned no row');
  return row.id;
}

/**
 * Claims up to `limit` due rows in one statement: pending rows whose time has come, and
 * rows left in 'sending' by a worker that died (not touched since `staleBefore`). The
 * inner SELECT … FOR UPDATE SKIP LOCKED lets concurrent workers each take different rows;
 * the outer status condition re-checks each row after its lock, so a row another worker
 * has just claimed is never claimed twice.
 */
export async function claimDue(
  db: Db,
  options: { now: Date; staleBefore: Date; limit: number },
): Promise<ClaimedMail[]> {
  const due = or(
    and(eq(mailOutbox.status, 'pending'), lte(mailOutbox.sendAfter, options.now)),
    and(eq(mailOutbox.status, 'sending'), lt(mailOutbox.updatedAt, options.staleBefore)),
  );
  const candidates = db
    .select({ id: mailOutbox.id })
    .from(mailOutbox)
    .where(due)
    .orderBy(mailOutbox.id)
    .limit(options.limit)
    .for('update', { skipLocked: true });
  return db
    .update(mailOutbox)
    .set({ status: 'sending', attempts: sql`${mailOutbox.attempts} + 1`, updatedAt: options.now })
    .where(and(inArray(mailOutbox.id, candidates), due))
    .returning({
      id: mailOutbox.id,
      toAddress: mailOutbox.toAddress,
      subject: mailOutbox.subject,
      textBody: mailOutbox.textBody,
      htmlBody: mailOutbox.htmlBody,
      template: mailOutbox.template,
      attempts: mailOutbox.attempts,
      createdAt: mailOutbox.createdAt,
    });
}

/**
 * Seals the subject and bodies of waiting rows still stored readable (queued before sealing
 * was on: decision 0131), up to `limit` per call. Each row is updated only while it is still
 * unsealed, so a concurrent call or a claim in between changes nothing twice. Answers how
 * many rows it sealed.
 */
export async function sealWaiting(
  db: Db,
  seal: (text: string) => string,
  limit = 200,
): Promise<number> {
  const unsealed = and(
    eq(mailOutbox.status, 'pending'),
    notLike(mailOutbox.textBody, `${SEALED_PREFIX}%`),
  );
  const rows = await db
    .select({
      id: mailOutbox.id,
      subject: mailOutbox.subject,
      textBody: mailOutbox.textBody,
      htmlBody: mailOutbox.htmlBody,
    })
    .from(mailOutbox)
    .where(unsealed)
    .orderBy(mailOutbox.id)
    .limit(limit);
  let sealed = 0;
  for (const row of rows) {
    const updated = await db
      .update(mailOutbox)
      .set({
        subject: seal(row.subject),
        textBody: seal(row.textBody),
        htmlBody: row.htmlBody === null ? null : seal(row.htmlBody),
      })
      .where(and(eq(mailOutbox.id, row.id), unsealed))
      .returning({ id: mailOutbox.id });
    sealed += updated.length;
  }
  return sealed;
}

/**
 * What a mail's body becomes once the mail has left through SMTP (or was given up): bodies
 * hold one-time links and codes, which must not stay usable in the database.
 */
export const REDACTED_BODY = '[removed after delivery: the message held a one-time link or code]';

/** Marks a claimed row sent; `redact` replaces its bodies (the mail went out over SMTP). */
export async function markSent(
  db: Db,
  id: number,
  now: Date,
  options: { redact: boolean },
): Promise<void> {
  await db
    .update(mailOutbox)
    .set({
      status: 'sent',
      sentAt: now,
      lastError: null,
      updatedAt: now,
      ...(options.redact ? { textBody: REDACTED_BODY, htmlBody: null } : {}),
    })
    .where(and(eq(mailOutbox.id, id), eq(mailOutbox.status, 'sending')));
}

/** Back to 'pending' until `retryAt`, or 'failed' (kept, no more retries) when giving up. */
export async function markAttemptFailed(
  db: Db,
  row: Pick<ClaimedMail, 'id'>,
  outcome: { now: Date; error: string; giveUp: boolean; retryAt: Date },
): Promise<'retry' | 'gave-up'> {
  await db
    .update(mailOutbox)
    .set({
      // A mail given up is never sent: its link or code must not stay readable either.
      ...(outcome.giveUp ? { textBody: REDACTED_BODY, htmlBody: null } : {}),
      status: outcome.giveUp ? 'failed' : 'pending',
      lastError: outcome.error.slice(0, 500),
      sendAfter: outcome.giveUp ? outcome.now : outcome.retryAt,
      updatedAt: outcome.now,
    })
    .where(and(eq(mailOutbox.id, row.id), eq(mailOutbox.status, 'sending')));
  return outcome.giveUp ? 'gave-up' : 'retry';
}

/** Deletes sent rows older than `sentBefore` (their bodies may hold links and codes). */
export async function purgeSent(db: Db, sentBefore: Date): Promise<number> {
  const rows = await db
    .delete(mailOutbox)
    .where(and(eq(mailOutbox.status, 'sent'), lt(mailOutbox.sentAt, sentBefore)))
    .returning({ id: mailOutbox.id });
  return rows.length;
}

const mailboxColumns = {
  id: mailOutbox.id,
  to: mailOutbox.toAddress,
  subject: mailOutbox.subject,
  text: mailOutbox.textBody,
  html: mailOutbox.htmlBody,
  template: mailOutbox.template,
  status: mailOutbox.status,
  createdAt: mailOutbox.createdAt,
};

/** The newest outbox rows first (dev mailbox). */
export async function listLatest(db: Db, limit: number): Promise<MailboxEntry[]> {
  return db.select(mailboxColumns).from(mailOutbox).orderBy(desc(mailOutbox.id)).limit(limit);
}

export async function findById(db: Db, id: number): Promise<MailboxEntry | undefined> {
  const [row] = await db.select(mailboxColumns).from(mailOutbox).where(eq(mailOutbox.id, id));
  return row;
}
