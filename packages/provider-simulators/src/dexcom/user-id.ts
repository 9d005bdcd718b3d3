import { createHash } from 'node:crypto';

/** Dexcom's `userId`: 64 hex characters that differ per account and per client app. */
export function dexcomUserId(accountId: string, clientId: string): string {
  return createHash('sha256').update(`dexcom-user|${accountId}|${clientId}`).digest('hex');
}
