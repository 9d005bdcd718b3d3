import nodemailer from 'nodemailer';

/** What delivery needs from the configuration. */
export type MailSettings = {
  /** Without it (demo, test) mails stay in the outbox, marked sent, for the dev mailbox. */
  smtpUrl?: string;
  from: string;
  /**
   * TOKEN_ENCRYPTION_KEY. With it and SMTP, queued mails' subjects and bodies are stored
   * sealed and opened only to be sent (decision 0131); the deliver step needs it to open them.
   */
  sealKey?: string;
};

/** One mail on its way out; `id` and `createdAt` give it a stable Message-ID across retries. */
export type TransportMail = {
  id: number;
  createdAt: Date;
  to: string;
  subject: string;
  text: string;
  html?: string;
};

export type MailTransport = { send(mail: TransportMail): Promise<void> };

/**
 * nodemailer over SMTP from `SMTP_URL` (options such as `?requireTLS=true` go in the URL);
 * null without a URL. Not pooled: each send opens its own connection, so nothing is left
 * open at shutdown. Timeouts are short enough that a send ends well before a claimed row
 * counts as stale (MAIL_STALE_SENDING_MS).
 */
export function createMailTransport(settings: MailSettings): MailTransport | null {
  if (!settings.smtpUrl) return null;
  const transporter = nodemailer.createTransport({
    url: settings.smtpUrl,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
    logger: false,
    debug: false,
  });
  const domain = messageIdDomain(settings.from);
  return {
    async send(mail) {
      await transporter.sendMail({
        from: settings.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        ...(mail.html === undefined ? {} : { html: mail.html }),
        // The same id on every retry lets receiving systems drop a duplicate.
        messageId: `<outbox-${mail.id}.${mail.createdAt.getTime()}@${domain}>`,
        disableFileAccess: true,
        disableUrlAccess: true,
      });
    },
  };
}

/** A code and a stored description of a failed send (the description is never logged). */
export function describeSendError(error: unknown): { code: string; detail: string } {
  const { code, responseCode, message } = (error ?? {}) as {
    code?: unknown;
    responseCode?: unknown;
    message?: unknown;
  };
  const codeText = typeof code === 'string' ? code : 'ESEND';
  const response = typeof responseCode === 'number' ? ` ${responseCode}` : '';
  const text = typeof message === 'string' ? message : String(error);
  return { code: `${codeText}${response}`, detail: `${codeText}${response}: ${text}` };
}

function messageIdDomain(from: string): string {
  const match = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from);
  return match?.[1] ?? 'trialpulse.local';
}
