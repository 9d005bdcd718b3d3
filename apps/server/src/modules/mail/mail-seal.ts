import { decryptSecret, encryptSecret } from '../../lib/crypto';

/**
 * Outbox texts at rest (decision 0131): with SMTP configured, a queued mail's subject and
 * bodies are stored sealed with the app's TOKEN_ENCRYPTION_KEY (AES-256-GCM, lib/crypto.ts),
 * so a database dump taken while a mail waits (SMTP down) holds no working link or code.
 * Only the deliver step opens them. The prefix tells sealed text from rows written before
 * sealing, which are delivered as they are.
 */
export const SEALED_PREFIX = 'sealed:';

/** The text as stored: sealed with `key`. */
export function sealMailText(text: string, key: string): string {
  return SEALED_PREFIX + encryptSecret(text, key);
}

/** True when `stored` was written by `sealMailText`. */
export function isSealed(stored: string): boolean {
  return stored.startsWith(SEALED_PREFIX);
}

/**
 * The text a stored value holds: sealed text opened with `key`, older plain text as it is.
 * Throws when the text is sealed and there is no key, or the key does not open it (another
 * key, or the value was altered).
 */
export function openMailText(stored: string, key: string | undefined): string {
  if (!isSealed(stored)) return stored;
  if (!key) throw new Error('sealed outbox mail but no TOKEN_ENCRYPTION_KEY to open it');
  return decryptSecret(stored.slice(SEALED_PREFIX.length), key);
}
