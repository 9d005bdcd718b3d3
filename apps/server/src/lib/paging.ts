import { createHash } from 'node:crypto';
import { asc, desc, is, or, Placeholder, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { PgSelect } from 'drizzle-orm/pg-core';
import { PAGING, type BoundedPaged, type ListQuery, type Paged } from '@trialpulse/shared';
import type { DbOrTx } from '../db/client';
import { executePreparedByText } from '../db/prepared-by-text';

/**
 * Server-side paging, sorting and global filter for list calls (decision 0040): one query
 * answers the page and the number of rows the filter keeps, so a list call costs one round
 * trip whatever the page. Unfiltered, the total is an uncorrelated scalar subquery
 * (`SELECT count(*)` over the same FROM and WHERE), which PostgreSQL runs once per query and
 * can answer from an index, so the page reads only its rows in the ORDER BY's index order
 * (decision 0043); filtered, it is `count(*) over()` (one pass of the filter).
 *
 * ```ts
 * const page = await selectPage(query, trialList, (filter, total) =>
 *   db.select({ ...columns, total }).from(trials)
 *     .where(and(eq(trials.teamId, teamId), filter)).$dynamic());
 * return listAnswer(query, page, presentTrial);
 * ```
 */

/** How one list sorts and searches: which column ids sort by what, which columns the filter reads. */
export type ListDefinition<TSort extends string> = {
  /** Column id (as `sortBy` names it) → the SQL it sorts by. */
  sortable: Record<TSort, SQLWrapper>;
  /**
   * The columns the global filter searches (cast to text, so numbers and dates work too), or
   * `searchVia` for a column matched by a condition of its own (another table's column
   * reached through an index of this one).
   */
  searchable: readonly (SQLWrapper | SearchVia)[];
  /**
   * The list's own order, and after a chosen sort the tie-break that keeps pages stable:
   * end it with a unique column (the id).
   */
  defaultOrder: readonly SQL[];
};

/** Identity with checking: keeps the sortable ids as a literal type for `listQuerySchema`. */
export function defineList<TSort extends string>(definition: ListDefinition<TSort>) {
  return definition;
}

/**
 * A searchable column matched by its own condition: `matches(lowerPattern)` must keep the
 * rows whose column contains the text exactly as `lower(column) LIKE lowerPattern` would
 * (decision 0203: the trials list's owner email, matched as owner ids so the trials'
 * indexes serve the filter).
 */
export type SearchVia = { readonly matches: (lowerPattern: SQL) => SQL };

export function searchVia(matches: (lowerPattern: SQL) => SQL): SearchVia {
  return { matches };
}

/**
 * A stored search text (fields lowered, joined by U+001F; decisions 0265, 0266) matched as its
 * fields would be one by one: a filter holding U+001F could match across two fields, so it
 * finds no row by them (only a row whose own text holds U+001F is missed by it).
 */
export function storedSearchText(column: SQLWrapper): SearchVia {
  return searchVia(
    (pattern) => sql`(${column} LIKE ${pattern} AND strpos(${pattern}, chr(31)) = 0)`,
  );
}

/** Sorts text case-insensitively, as the web tables did before sorting moved to the server. */
export const textSort = (column: SQLWrapper): SQL => sql`lower(${column})`;

/**
 * The global filter as a WHERE condition: any of the columns contains the text,
 * case-insensitively; LIKE wildcards in the text match themselves. `undefined` for no text.
 */
export function containsCondition(
  text: string,
  columns: readonly (SQLWrapper | SearchVia)[],
): SQL | undefined {
  const needle = text.trim();
  if (needle === '' || columns.length === 0) return undefined;
  const pattern = containsPattern(needle);
  return or(...columns.map((column) => containsSql(column, pattern)));
}

/**
 * `lower(column) LIKE (SELECT lower(pattern))`, not `ILIKE`: ILIKE lowers the pattern again
 * for every row, so its cost grows with the filter's length (a 998-character filter over
 * 100,000 readings: 6–7 s against 0.2–0.3 s here; decision 0128). Same matches, same escapes.
 * The pattern is lowered in a scalar subquery, which PostgreSQL runs once per execution (an
 * InitPlan): a bare `lower($n)` of a prepared statement's generic plan is a function of a
 * parameter, not a constant, and ran for every row tested (a team's 1,000 trials filtered:
 * 0.56 → 0.42 ms per call; decision 0271). The same expression as the lists' trigram
 * indexes (`lower(column) gin_trgm_ops`, decision 0203), which still serve it: an InitPlan's
 * value is known when the index scan starts.
 */
function containsSql(column: SQLWrapper | SearchVia, pattern: unknown): SQL {
  const lowered = sql`(SELECT lower(${pattern}))`;
  if ('matches' in column) return column.matches(lowered);
  return sql`lower((${column})::text) LIKE ${lowered}`;
}

/** The LIKE pattern for "contains `needle`", its own wildcards escaped. */
function containsPattern(needle: string): string {
  return `%${needle.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** The ORDER BY of a list query: the chosen column first, then the list's own order. */
export function orderOf<TSort extends string>(
  query: ListQuery<TSort>,
  definition: ListDefinition<TSort>,
): SQL[] {
  if (!query.sort) return [...definition.defaultOrder];
  const column = definition.sortable[query.sort.by];
  return [query.sort.desc ? desc(column) : asc(column), ...definition.defaultOrder];
}

type RowOf<TSelect extends PgSelect> = Awaited<TSelect>[number];

/** What `selectPage` hands the list's query to select as `total`. */
export type TotalColumn = SQL<number>;

/**
 * Runs a list query with the page, sort and filter of `query` and answers the rows with the
 * total. `build(filter, total)` makes the list's query as `$dynamic()`, selecting `total`
 * as `total` and putting `filter` into its WHERE (`and(scope, filter)`); it must not order
 * or limit. Without a page (`query.page === null`) every row comes back, as the spec's
 * calls answer.
 *
 * A page past the end has no row to carry the total; only then a second, one-row query
 * reads it, so a table that asks for a page beyond the last still learns how many rows exist.
 */
export async function selectPage<TSort extends string, TSelect extends PgSelect>(
  query: ListQuery<TSort>,
  definition: ListDefinition<TSort>,
  build: (filter: SQL | undefined, total: TotalColumn) => TSelect,
  options: {
    /**
     * The unfiltered list's rows for counting only: its scope's tables and conditions,
     * selecting one column, without the joins that only add columns (inner joins on NOT NULL
     * foreign keys keep one row per row). Default: the list's own query.
     */
    countFrom?: () => PgSelect;
    /**
     * The unfiltered list's total as one value kept up to date by the database (a counter
     * row, decision 0202), read instead of counting the scope on every page. It must equal
     * what `countFrom` would count whenever the list's query returns a row.
     */
    maintainedTotal?: () => SQL;
    /**
     * For deep unfiltered pages (decision 0204): the list's key column and its scope
     * selecting that key only, from the tables its sort orders need and no other, so that
     * an index holding the sort and the key answers it alone (an index-only scan). The page
     * then reads its keys past the OFFSET in that index and only its own rows from the
     * table, instead of fetching every skipped row. Used with `prepared` only.
     */
    pageKeys?: PageKeys;
    /**
     * Build each shape of the list once (decision 0110): `build` then runs only when the
     * shape is new and must put every value in as `sql.placeholder(name)`, bound from
     * `values` at each call (see `PreparedListShape`).
     */
    prepared?: PreparedListShape;
  } = {},
): Promise<Paged<RowOf<TSelect>>> {
  if (options.prepared)
    return selectPreparedPage(query, definition, build, options, options.prepared);
  const filter = containsCondition(query.filter, definition.searchable);
  if (!query.page) {
    const rows = (await executePreparedByText(
      build(filter, noTotal).orderBy(...orderOf(query, definition)),
    )) as RowOf<TSelect>[];
    return { rows, total: rows.length };
  }
  const counted = totalColumn(filter, build, options);
  const { index, size } = query.page;
  const rows = (await executePreparedByText(
    build(filter, counted)
      .orderBy(...orderOf(query, definition))
      .limit(size)
      .offset(index * size),
  )) as RowOf<TSelect>[];
  if (rows.length > 0) return { rows, total: totalOf(rows[0]) };
  if (index === 0) return { rows, total: 0 };
  const [first] = (await build(filter, counted).limit(1)) as RowOf<TSelect>[];
  return { rows, total: first === undefined ? 0 : totalOf(first) };
}

/** See `selectPage`'s `pageKeys` option. */
export type PageKeys = { key: SQLWrapper; select: () => PgSelect };

/**
 * From this many skipped rows on, an unfiltered page is read by its keys first (`pageKeys`):
 * below it, fetching the skipped rows costs less than the second lookup.
 */
export const DEEP_PAGE_ROWS = 100;

/**
 * A list query's shape and its values, for `selectPage`'s `prepared` option. `shape` names
 * everything that changes the SQL text other than the page, sort and filter (which
 * `selectPage` adds itself): the list, the scope's kind, the columns a team hides. `values`
 * fill the placeholders the list's `build` and its scope put in.
 */
export type PreparedListShape = {
  statements: ListStatements;
  shape: string;
  values: Record<string, string | number | boolean>;
};

/**
 * A condition made of placeholders with the values to bind and the name of its shape, as
 * the access module hands a list its scope (the caller's visible trials).
 */
export type PreparedCondition = {
  condition: SQL;
  shape: string;
  values: Record<string, string | number | boolean>;
};

type PreparedList = { execute(values: Record<string, unknown>): Promise<unknown> };

/** How many list shapes a repository keeps built; far more than its lists can have. */
const MAX_LIST_SHAPES = 500;

/**
 * The built list queries of one repository, by shape. Bounded: if some caller's shapes were
 * ever unbounded, the oldest are dropped (and rebuilt when asked again) rather than growing.
 */
export class ListStatements {
  private readonly byKey = new Map<string, PreparedList>();

  get size() {
    return this.byKey.size;
  }

  /** The prepared query of `key`, built by `build` the first time. */
  statement(key: string, build: () => PgSelect): PreparedList {
    let prepared = this.byKey.get(key);
    if (!prepared) {
      prepared = prepareWithPlaceholdersOnly(build());
      if (this.byKey.size >= MAX_LIST_SHAPES) {
        this.byKey.delete(this.byKey.keys().next().value!);
      }
      this.byKey.set(key, prepared);
    }
    return prepared;
  }
}

/**
 * Prepares a built query whose every parameter is a placeholder, named by a hash of its SQL
 * text (so each pool connection parses and plans it once, as `executePreparedByText`).
 * A value built into the SQL would be replayed for every later caller of the shape, another
 * team's id for instance, so it is refused here, when the shape is first built.
 */
function prepareWithPlaceholdersOnly(query: PgSelect): PreparedList {
  const { sql: text, params } = query.toSQL();
  const literal = params.findIndex((param) => !is(param, Placeholder));
  if (literal !== -1) {
    throw new Error(
      `a prepared list query has a value built in (parameter $${literal + 1}); use sql.placeholder for every value: ${text}`,
    );
  }
  return query.prepare(`l_${createHash('sha1').update(text).digest('base64url')}`);
}

const FILTER_PATTERN = 'listFilterPattern';
const LIMIT = 'listLimit';
const OFFSET = 'listOffset';

/** `selectPage` with the list's shape built once and its values bound per call. */
async function selectPreparedPage<TSort extends string, TSelect extends PgSelect>(
  query: ListQuery<TSort>,
  definition: ListDefinition<TSort>,
  build: (filter: SQL | undefined, total: TotalColumn) => TSelect,
  options: { countFrom?: () => PgSelect; maintainedTotal?: () => SQL; pageKeys?: PageKeys },
  prepared: PreparedListShape,
): Promise<Paged<RowOf<TSelect>>> {
  const text = query.filter.trim();
  const filter =
    text === '' || definition.searchable.length === 0
      ? undefined
      : or(
          ...definition.searchable.map((column) =>
            containsSql(column, sql.placeholder(FILTER_PATTERN)),
          ),
        );
  const values: Record<string, unknown> = { ...prepared.values };
  if (filter) values[FILTER_PATTERN] = containsPattern(text);
  const key = [
    prepared.shape,
    query.sort ? `${query.sort.by}:${query.sort.desc ? 'desc' : 'asc'}` : '',
    filter ? 'filtered' : '',
    query.page ? 'page' : 'all',
  ].join('|');
  const ordered = (total: TotalColumn) =>
    build(filter, total).orderBy(...orderOf(query, definition));

  if (!query.page) {
    const rows = (await prepared.statements
      .statement(key, () => ordered(noTotal))
      .execute(values)) as RowOf<TSelect>[];
    return { rows, total: rows.length };
  }
  const counted = totalColumn(filter, build, options);
  const { index, size } = query.page;
  const pageKeys = filter === undefined && index * size >= DEEP_PAGE_ROWS && options.pageKeys;
  const rows = (await (
    pageKeys
      ? prepared.statements.statement(`${key}|by keys`, () => {
          const keys = pageKeys
            .select()
            .orderBy(...orderOf(query, definition))
            .limit(sql.placeholder(LIMIT))
            .offset(sql.placeholder(OFFSET));
          return build(sql`${pageKeys.key} IN (${keys})`, counted).orderBy(
            ...orderOf(query, definition),
          );
        })
      : prepared.statements.statement(key, () =>
          ordered(counted).limit(sql.placeholder(LIMIT)).offset(sql.placeholder(OFFSET)),
        )
  ).execute({ ...values, [LIMIT]: size, [OFFSET]: index * size })) as RowOf<TSelect>[];
  if (rows.length > 0) return { rows, total: totalOf(rows[0]) };
  if (index === 0) return { rows, total: 0 };
  // Past the last page: one row of the list carries the total.
  const [first] = (await prepared.statements
    .statement(`${key}|total`, () => build(filter, counted).limit(sql.placeholder(LIMIT)))
    .execute({ ...values, [LIMIT]: 1 })) as RowOf<TSelect>[];
  return { rows, total: first === undefined ? 0 : totalOf(first) };
}

/**
 * The page's `total` column. Unfiltered: the list's maintained total when it has one (a
 * counter row read by key, decision 0202), else the same FROM and WHERE counted once (an
 * InitPlan, from an index); the page is read in index order. Filtered: every row must pass
 * the filter anyway, so one pass with a window count is cheaper than the filter evaluated
 * twice (count and page).
 */
function totalColumn(
  filter: SQL | undefined,
  build: (filter: SQL | undefined, total: TotalColumn) => PgSelect,
  options: { countFrom?: () => PgSelect; maintainedTotal?: () => SQL },
): TotalColumn {
  if (filter !== undefined) return windowCount;
  if (options.maintainedTotal)
    return sql<number>`coalesce((${options.maintainedTotal()}), 0)`.mapWith(Number);
  return sql<number>`(SELECT count(*) FROM (${options.countFrom?.() ?? build(filter, noTotal)}) AS counted)`.mapWith(
    Number,
  );
}

/** The number of rows the WHERE keeps, on each row (read before LIMIT/OFFSET). */
const windowCount = sql<number>`count(*) over()`.mapWith(Number);

/** `total` where the answer does not need it (the whole list, the count's own subquery). */
const noTotal = sql<number>`0`.mapWith(Number);

function totalOf(row: unknown): number {
  const total = (row as { total?: unknown }).total;
  if (typeof total !== 'number') {
    throw new Error('selectPage: the list query must select `total` as `build` receives it');
  }
  return total;
}

/**
 * What a list route answers: the spec's whole-list array without paging parameters, the
 * page with the total with them. `present` turns a row into the answer's shape.
 */
export function listAnswer<TRow, TOut>(
  query: ListQuery<string>,
  page: Paged<TRow>,
  present: (row: TRow) => TOut,
): TOut[] | Paged<TOut> {
  const rows = page.rows.map(present);
  return query.page ? { rows, total: page.total } : rows;
}

/**
 * A page of a list whose total may be too large to count on every call (the Database Info
 * tables, decision 0031): like `selectPage`, but the total is counted exactly only up to
 * PAGING.exactCountLimit rows, reading at most that many, so a page costs about the same at
 * 100 and at 100,000 rows. Beyond the limit `totalIsExact` is false and `total` is the
 * planner's row estimate of `countTable` (unfiltered lists only), at least the limit + 1.
 *
 * `build(filter)` makes the list's query as `$dynamic()` without `total`; `countTable` is
 * the list's own table, given only when the list has no scope of its own and every join
 * keeps exactly one row per row of it (inner joins on NOT NULL foreign keys): the
 * unfiltered list is then counted on that table alone.
 */
export async function selectBoundedPage<TSort extends string, TSelect extends PgSelect>(
  db: DbOrTx,
  query: ListQuery<TSort>,
  definition: ListDefinition<TSort>,
  build: (filter: SQL | undefined) => TSelect,
  options: { countTable?: string } = {},
): Promise<BoundedPaged<RowOf<TSelect>>> {
  const filter = containsCondition(query.filter, definition.searchable);
  const ordered = build(filter).orderBy(...orderOf(query, definition));
  if (!query.page) {
    const rows = (await ordered) as RowOf<TSelect>[];
    return { rows, total: rows.length, totalIsExact: true };
  }
  const { index, size } = query.page;
  const rows = (await ordered.limit(size).offset(index * size)) as RowOf<TSelect>[];

  const limit = PAGING.exactCountLimit;
  const table = filter === undefined ? options.countTable : undefined;
  const source = table
    ? sql`SELECT 1 FROM ${sql.identifier(table)} LIMIT ${limit + 1}`
    : build(filter).limit(limit + 1);
  const counted = await db.execute(sql`SELECT count(*)::int AS n FROM (${source}) AS capped`);
  const exact = Number((counted.rows[0] as { n: number | string } | undefined)?.n ?? 0);
  if (exact <= limit) return { rows, total: exact, totalIsExact: true };
  let estimate = 0;
  if (table) {
    const stats = await db.execute(
      sql`SELECT reltuples::float8 AS estimate FROM pg_class WHERE oid = to_regclass(${table})`,
    );
    estimate = Math.round(
      Number((stats.rows[0] as { estimate: number } | undefined)?.estimate ?? 0),
    );
  }
  return { rows, total: Math.max(estimate, limit + 1), totalIsExact: false };
}

/**
 * Route options of a list call whose answer the service builds with its presenter (typed
 * to the response schema): sent with `JSON.stringify` as it is, without the schema
 * serializer's validation and second copy of every row. The schema still documents the
 * answer (OpenAPI); the presenter's type is what keeps the two in step.
 */
export const presentedAnswer = {
  serializerCompiler: () => (data: unknown) => JSON.stringify(data),
};
