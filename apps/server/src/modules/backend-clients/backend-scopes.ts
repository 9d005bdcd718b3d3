import {
  BACKEND_RESOURCE_TYPES,
  type BackendResourceType,
} from '@trialpulse/shared/backend-clients/backend-clients.schemas';

/**
 * SMART system scopes as this server reads them: `system/<Type or *>.<permissions>`, where
 * the v1 `read` means the v2 `rs` (read and search). A backend token carries only read
 * scopes of the Bulk Data resource types (decision 0241).
 */
type ParsedScope = { type: BackendResourceType | '*'; permissions: 'rs' | 'r' | 's' };

const SCOPE = /^system\/(\*|[A-Z][A-Za-z]+)\.(read|c?r?u?d?s?)$/;

function parseScope(scope: string): ParsedScope | null {
  const match = SCOPE.exec(scope);
  if (!match) return null;
  const [, type, permissions] = match as unknown as [string, string, string];
  if (type !== '*' && !(BACKEND_RESOURCE_TYPES as readonly string[]).includes(type)) return null;
  const normalised = permissions === 'read' ? 'rs' : permissions;
  // Only reading: a scope asking to create, update or delete is none of ours.
  if (normalised !== 'rs' && normalised !== 'r' && normalised !== 's') return null;
  return { type: type as ParsedScope['type'], permissions: normalised };
}

/** Whether `allowed` includes everything `wanted` asks (type and permissions). */
function covers(allowed: ParsedScope, wanted: ParsedScope): boolean {
  const typeOk = allowed.type === '*' || allowed.type === wanted.type;
  const permissionsOk = [...wanted.permissions].every((p) => allowed.permissions.includes(p));
  return typeOk && permissionsOk;
}

/**
 * The scopes to grant for a token request: each asked scope an allowed scope covers, as
 * asked; an asked wildcard (`system/*.read`) the client is not allowed whole becomes the
 * allowed scopes it covers (the client gets what it may have). Unknown scopes are ignored
 * (RFC 6749 §3.3 lets the server grant less than asked). An empty answer is invalid_scope.
 */
export function grantScopes(requested: readonly string[], allowed: readonly string[]): string[] {
  const allowedParsed = allowed
    .map((scope) => ({ scope, parsed: parseScope(scope) }))
    .filter((entry): entry is { scope: string; parsed: ParsedScope } => entry.parsed !== null);
  const granted = new Set<string>();
  for (const scope of requested) {
    const wanted = parseScope(scope);
    if (!wanted) continue;
    if (allowedParsed.some((entry) => covers(entry.parsed, wanted))) {
      granted.add(scope);
    } else if (wanted.type === '*') {
      for (const entry of allowedParsed) if (covers(wanted, entry.parsed)) granted.add(entry.scope);
    }
  }
  return [...granted];
}

/**
 * Whether a token's scopes let it read (`r`) and search (`s`) resources of `type` — what a
 * Bulk Data export of that type needs. `system/*.rs`, `system/<type>.rs` and their v1
 * `.read` spelling do.
 */
export function scopesAllow(scopes: readonly string[], type: BackendResourceType): boolean {
  const wanted: ParsedScope = { type, permissions: 'rs' };
  return scopes.some((scope) => {
    const parsed = parseScope(scope);
    return parsed !== null && covers(parsed, wanted);
  });
}

/** Splits an OAuth `scope` parameter (space-delimited, RFC 6749 §3.3). */
export function splitScopes(scope: string | undefined): string[] {
  return [...new Set((scope ?? '').split(/\s+/).filter(Boolean))];
}
