import net from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as the test SMTP server received it. */
export type ReceivedMail = {
  /** Envelope sender and recipients. */
  from: string;
  to: string[];
  /** Header values by lower-case name (last one wins; folded lines joined). */
  headers: Record<string, string>;
  /** The body, quoted-printable decoded when the message says so. */
  body: string;
  raw: string;
};

export type TestSmtpServer = {
  port: number;
  /** For the app's SMTP_URL. */
  url: string;
  received: ReceivedMail[];
  /** Resolves once at least `count` messages have arrived (throws after `timeoutMs`, by default 60 s: a budget against hanging, decision 0274). */
  waitForMails(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
};

/**
 * Tests: a real SMTP server (smtp-server) on 127.0.0.1, plain text (no STARTTLS, no AUTH),
 * collecting every message it accepts. Give `port` to start it where an earlier one was
 * (e.g. to bring "the mail server" back up).
 */
export async function startTestSmtpServer(
  options: { port?: number } = {},
): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    disableReverseLookup: true,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mailFrom = session.envelope.mailFrom;
        received.push({
          from: mailFrom ? mailFrom.address : '',
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          ...parseMessage(raw),
          raw,
        });
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      resolve((server.server.address() as net.AddressInfo).port);
    });
  });

  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    async waitForMails(count, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`expected ${count} mails, got ${received.length}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port that nothing listens on right now (a mail server that is down). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function parseMessage(raw: string): { headers: Record<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = split === -1 ? raw : raw.slice(0, split);
  const rawBody = split === -1 ? '' : raw.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const quotedPrintable = /quoted-printable/i.test(headers['content-transfer-encoding'] ?? '');
  const body = quotedPrintable
    ? Buffer.from(
        rawBody
          .replace(/=\r\n/g, '')
          .replace(/=([0-9A-F]{2})/g, (_match, hex: string) =>
            String.fromCharCode(parseInt(hex, 16)),
          ),
        'latin1',
      ).toString('utf8')
    : rawBody;
  return { headers, body };
}
