import type { Assume } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema';

export type Schema = typeof schema;
/**
 * What `db.execute()` answers on both drivers (node-postgres QueryResult, PGlite Results):
 * the rows. Row counts differ by driver (rowCount / affectedRows), so use `.returning()`.
 */
export type QueryRows<TRow> = { rows: TRow[] };
export interface DbQueryResultHKT extends PgQueryResultHKT {
  type: QueryRows<Assume<this['row'], Record<string, unknown>>>;
}
/** The Drizzle database, whichever driver is underneath. */
export type Db = PgDatabase<DbQueryResultHKT, Schema>;
/**
 * A transaction or the database itself: repository functions that may run inside the
 * caller's transaction take one (`tx` or `q`).
 */
export type DbOrTx = Pick<Db, 'insert' | 'select' | 'update' | 'delete' | 'execute'>;
