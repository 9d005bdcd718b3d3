import { createHash } from 'node:crypto';

/**
 * Opaque, stateless page tokens: the cursor plus a fingerprint of the query, so a token is
 * rejected when the caller changes the filter between pages (as real APIs do).
 */

export function encodePageToken(cursor: string | number, query: string): string {
  return Buffer.from(JSON.stringify({ c: cursor, q: fingerprint(query) })).toString('base64url');
}

/** The cursor of a token made for this query, or undefined when it is invalid. */
export function decodePageToken(token: string, query: string): string | number | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { c, q } = parsed as { c?: unknown; q?: unknown };
    if (q !== fingerprint(query)) return undefined;
    return typeof c === 'string' || typeof c === 'number' ? c : undefined;
  } catch {
    return undefined;
  }
}

function fingerprint(query: string): string {
  return createHash('sha256').update(query).digest('base64url').slice(0, 12);
}
