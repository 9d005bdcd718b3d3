import { z } from 'zod';

/** The largest value of a PostgreSQL `integer` column: every row id of the schema is one. */
export const MAX_ROW_ID = 2_147_483_647;

/** What an id beyond MAX_ROW_ID becomes: no row has it (identities start at 1). */
export const NO_SUCH_ROW_ID = 0;

/**
 * A row id in a path or a body: a positive integer, given as a number or as its digits.
 * Malformed ids — −1, 1.5, 1e309 (Infinity once parsed), `true`, `[1]` — fail validation
 * with `message` (400). A well-formed id beyond the id column's range (2^31 and up) cannot
 * name a row, so it becomes NO_SUCH_ROW_ID and the route answers as for any unknown id
 * (404, or its own "not a member" answer) — and the database never sees an out-of-range
 * value (which was a 500). Every route's id parameters use this schema.
 */
export function rowIdSchema(message = 'Not found.') {
  return z
    .union([z.number(), z.string().trim().regex(/^\d+$/, message)], { error: message })
    .transform(Number)
    .pipe(z.number({ error: message }).int(message).positive(message))
    .transform((id) => (id > MAX_ROW_ID ? NO_SUCH_ROW_ID : id));
}
