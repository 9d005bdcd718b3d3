import { z } from 'zod';

/** The largest value of a PostgreSQL `integer` column: every row id of the schema is one. */
export const MAX_ROW_ID = 2_147_483_647;

/**
 * A row id in a path or a body: a positive integer within the id column's range, given as
 * a number or as its digits. Everything else — 2^31, −1, 1.5, 1e309, `true`, `[1]` — fails
 * validation with `message` (400) instead of reaching the database (where it would be a
 * 500). Every route's id parameter uses this schema.
 */
export function rowIdSchema(message = 'Not found.') {
  return z
    .union([z.number(), z.string().trim().regex(/^\d{1,10}$/)], { error: message })
    .transform(Number)
    .pipe(z.number().int(message).positive(message).max(MAX_ROW_ID, message));
}
