import { sql } from 'drizzle-orm';
import { integer, timestamp, type AnyPgColumn } from 'drizzle-orm/pg-core';

/**
 * Column helpers shared by the schema files. Every instant is a `timestamptz` (stored in UTC);
 * every numeric id of the spec is an integer identity, so ids are never chosen by clients.
 */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const identityId = () => integer('id').primaryKey().generatedAlwaysAsIdentity();

export const createdAt = () => timestamptz('created_at').notNull().defaultNow();

export const updatedAt = () =>
  timestamptz('updated_at')
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date());

/** Check-constraint body `column IN ('a', 'b')` from a constant list (literals, not parameters). */
export const oneOf = (column: AnyPgColumn, values: readonly string[]) =>
  sql`${column} IN (${sql.raw(values.map((value) => `'${value.replaceAll("'", "''")}'`).join(', '))})`;
