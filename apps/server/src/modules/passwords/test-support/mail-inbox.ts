import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export type ReceivedMail = {
  /** Envelope recipients, lower-cased. */
  to: string[];
  /** The raw message as received over SMTP. */
  raw: string;
  /** The raw message with quoted-printable soft line breaks and `=3D` decoded. */
  decoded: string;
};

export type MailInbox = {
  /** The app's SMTP_URL for this inbox. */
  url: string;
  mails: ReceivedMail[];
  mailsTo(address: string): ReceivedMail[];
  /** Resolves with the `count`-th mail to `address` (1 = the first), or fails after `timeoutMs`. */
  waitFor(address: string, count?: number, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
};

/**
 * Tests: a real SMTP server (smtp-server) in this process on a free port, no TLS, no
 * authentication, that keeps every message it receives. Start it before the app and give
 * the app `env: { SMTP_URL: inbox.url }` so mails really travel over SMTP.
 */
export async function startMailInbox(): Promise<MailInbox> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const to = session.envelope.rcptTo.map((recipient) => recipient.address.toLowerCase());
        mails.push({ to, raw, decoded: decodeQuotedPrintable(raw) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;

  const mailsTo = (address: string) =>
    mails.filter((mail) => mail.to.includes(address.toLowerCase()));
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    mailsTo,
    async waitFor(address, count = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = mailsTo(address);
        if (found.length >= count) return found[count - 1]!;
        if (Date.now() > deadline)
          throw new Error(`no mail #${count} to ${address} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The token of the first `${page}?token=…` link in a mail. */
export function linkToken(mail: ReceivedMail, page: string): string {
  const match = new RegExp(`/${page}\\?token=([A-Za-z0-9_%.~-]+)`).exec(mail.decoded);
  if (!match) throw new Error(`no ${page} link in the mail`);
  return decodeURIComponent(match[1]!);
}

/** Enough quoted-printable for links: soft line breaks (`=\r\n`) and `=3D`. */
function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=3D/gi, '=');
}
