/**
 * The constraint named by a unique violation (SQLSTATE 23505) anywhere in the error's cause
 * chain — node-postgres, PGlite and Drizzle wrap it differently — or null when the error is
 * not one. An unnamed constraint gives ''.
 */
export function uniqueViolationConstraint(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth += 1) {
    const candidate = current as { code?: unknown; constraint?: unknown; cause?: unknown };
    if (candidate.code === '23505')
      return typeof candidate.constraint === 'string' ? candidate.constraint : '';
    current = candidate.cause;
  }
  return null;
}

/** Whether the error is a unique violation (see uniqueViolationConstraint). */
export function isUniqueViolation(error: unknown): boolean {
  return uniqueViolationConstraint(error) !== null;
}

/** SQLSTATE classes and codes meaning "the database cannot be reached or went away". */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Cannot use a pool after calling end',
  'Client was closed and is not queryable',
  'terminating connection due to administrator command',
];

/**
 * Whether the error (anywhere in its cause chain) means the database is unreachable —
 * refused or dropped connections, connect timeouts, a server shutting down or restarting,
 * a backend terminated by an administrator — as opposed to a fault of the query itself.
 * Requests failing this way answer 503 (plugins/error-handler) and work again once the
 * database is back: the pool opens new connections on demand.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 6; depth += 1) {
    const candidate = current as {
      code?: unknown;
      message?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    if (typeof candidate.code === 'string') {
      if (UNAVAILABLE_SQLSTATES.has(candidate.code) || candidate.code.startsWith('08')) return true;
      if (UNAVAILABLE_NETWORK_CODES.has(candidate.code)) return true;
    }
    if (
      typeof candidate.message === 'string' &&
      UNAVAILABLE_MESSAGES.some((text) => (candidate.message as string).includes(text))
    )
      return true;
    // Node's AggregateError (e.g. connecting to ::1 and 127.0.0.1 both refused).
    if (
      Array.isArray(candidate.errors) &&
      candidate.errors.some((inner) => isDatabaseUnavailable(inner))
    )
      return true;
    current = candidate.cause;
  }
  return false;
}
