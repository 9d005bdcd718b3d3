/**
 * The constraint named by a unique violation (SQLSTATE 23505) anywhere in the error's cause
 * chain — node-postgres, PGlite and Drizzle wrap it differently — or null when the error is
 * not one. An unnamed constraint gives ''.
 */
export function uniqueViolationConstraint(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth += 1) {
    const candidate = current as { code?: unknown; constraint?: unknown; cause?: unknown };
    if (candidate.code === '23505') return typeof candidate.constraint === 'string' ? candidate.constraint : '';
    current = candidate.cause;
  }
  return null;
}

/** Whether the error is a unique violation (see uniqueViolationConstraint). */
export function isUniqueViolation(error: unknown): boolean {
  return uniqueViolationConstraint(error) !== null;
}
