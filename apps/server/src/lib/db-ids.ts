/** Largest value of a PostgreSQL integer column: larger ids cannot exist (and must not reach SQL). */
export const MAX_DB_ID = 2_147_483_647;

/** Whether `id` can be a row id (a positive PostgreSQL integer); check before querying with it. */
export const isDbId = (id: number) => Number.isSafeInteger(id) && id > 0 && id <= MAX_DB_ID;
