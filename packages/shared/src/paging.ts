import { z } from 'zod';
import { LIMITS } from './limits';

/**
 * Server-side paging, sorting and global filter for list calls (decision 0040).
 *
 * A list call takes these optional query parameters:
 * - `pageIndex` — 0-based page (0 to 9999, as a saved table state allows),
 * - `pageSize`  — rows per page, 10 to 50,
 * - `sortBy`    — a column id the list names (others are refused 400),
 * - `sortDir`   — `asc` (default) or `desc`,
 * - `filter`    — the table's global filter: rows where any searched column contains the
 *                 trimmed text, case-insensitively (at most 100 characters, decision 0128;
 *                 a saved table state may hold up to 999, the spec's limit, and is cut).
 *
 * With `pageIndex` or `pageSize` the answer is `{ rows, total }` (the page and the number
 * of rows the filter keeps). Without either, the call answers the whole list as the spec
 * shows (an array), sorted and filtered when `sortBy` / `filter` are given.
 */
export const PAGING = {
  params: ['pageIndex', 'pageSize', 'sortBy', 'sortDir', 'filter'] as const,
  minPageSize: Math.min(...LIMITS.tablePageSizes),
  maxPageSize: Math.max(...LIMITS.tablePageSizes, LIMITS.sysAdminTablePageSize),
  defaultPageSize: LIMITS.tableDefaultPageSize,
  maxPageIndex: LIMITS.savedTableStateMaxPage - 1,
  /** Our own limit (decision 0128): a search, not a document; each row is matched against it. */
  maxFilterLength: 100,
  /**
   * Bounded lists (the Database Info tables, decision 0031) count the filtered rows exactly
   * up to this many; beyond it the total is an estimate and `totalIsExact` is false.
   */
  exactCountLimit: 10_000,
} as const;

export const PAGING_MESSAGES = {
  pageIndex: `pageIndex must be a whole number from 0 to ${PAGING.maxPageIndex}.`,
  pageSize: `pageSize must be a whole number from ${PAGING.minPageSize} to ${PAGING.maxPageSize}.`,
  sortBy: 'sortBy is not a sortable column of this list.',
  sortDir: 'sortDir must be asc or desc.',
  filter: `filter can not be more than ${PAGING.maxFilterLength} characters.`,
} as const;

export type SortDirection = 'asc' | 'desc';

/** A list query after parsing: what the server's paging helper applies. */
export type ListQuery<TSort extends string = string> = {
  /** null: the whole list (the spec's answer). */
  page: { index: number; size: number } | null;
  /** null: the list's own default order. */
  sort: { by: TSort; desc: boolean } | null;
  /** Trimmed; '' means no filter. */
  filter: string;
};

/** The raw query-string parameters of a list call (what the web sends). */
export type ListQueryParams = {
  pageIndex?: number;
  pageSize?: number;
  sortBy?: string;
  sortDir?: SortDirection;
  filter?: string;
};

const wholeNumber = (message: string, max: number, min = 0) =>
  z.coerce.number({ error: message }).int(message).min(min, message).max(max, message);

/**
 * The query-string schema of a list whose sortable columns are `sortColumns`; it parses
 * the strings of a query string and normalises them to a `ListQuery`. Use it as a route's
 * `querystring` schema (extend it with `.and()` / merge for the list's own parameters).
 */
export function listQuerySchema<const TSort extends string>(
  sortColumns: readonly [TSort, ...TSort[]],
) {
  return z
    .object({
      pageIndex: wholeNumber(PAGING_MESSAGES.pageIndex, PAGING.maxPageIndex).optional(),
      pageSize: wholeNumber(
        PAGING_MESSAGES.pageSize,
        PAGING.maxPageSize,
        PAGING.minPageSize,
      ).optional(),
      sortBy: z.enum(sortColumns, { error: PAGING_MESSAGES.sortBy }).optional(),
      sortDir: z.enum(['asc', 'desc'], { error: PAGING_MESSAGES.sortDir }).optional(),
      filter: z.string().max(PAGING.maxFilterLength, PAGING_MESSAGES.filter).optional(),
    })
    .transform((params): ListQuery<TSort> => ({
      page:
        params.pageIndex === undefined && params.pageSize === undefined
          ? null
          : { index: params.pageIndex ?? 0, size: params.pageSize ?? PAGING.defaultPageSize },
      sort: params.sortBy ? { by: params.sortBy, desc: params.sortDir === 'desc' } : null,
      filter: params.filter?.trim() ?? '',
    }));
}

/** The answer of a paged list call. */
export function pagedSchema<TRow extends z.ZodType>(row: TRow) {
  return z.object({ rows: z.array(row), total: z.number().int().min(0) });
}
export type Paged<TRow> = { rows: TRow[]; total: number };

/**
 * A route's 200 schema: the spec's whole-list array without paging parameters, the page
 * and total with them.
 */
export function listAnswerSchema<TRow extends z.ZodType>(row: TRow) {
  return z.union([z.array(row), pagedSchema(row)]);
}

/** A table's page, sort and filter as the query parameters of a paged list call. */
export function toListQueryParams(state: {
  pageIndex: number;
  pageSize: number;
  sorting?: readonly { id: string; desc: boolean }[];
  globalFilter?: string;
}): ListQueryParams {
  const params: ListQueryParams = { pageIndex: state.pageIndex, pageSize: state.pageSize };
  const sort = state.sorting?.[0];
  if (sort) {
    params.sortBy = sort.id;
    params.sortDir = sort.desc ? 'desc' : 'asc';
  }
  // A saved state may hold a longer filter (the spec allows 999 characters): searched cut.
  const filter = state.globalFilter?.trim().slice(0, PAGING.maxFilterLength).trim();
  if (filter) params.filter = filter;
  return params;
}

/**
 * The answer of a bounded list page (decision 0031): as `pagedSchema`, plus whether `total`
 * is exact. Beyond PAGING.exactCountLimit rows the server does not count every row (that
 * would make a page of a large table as slow as reading the table): `total` is then the
 * database's estimate, at least the limit + 1.
 */
export function boundedPagedSchema<TRow extends z.ZodType>(row: TRow) {
  return z.object({
    rows: z.array(row),
    total: z.number().int().min(0),
    totalIsExact: z.boolean(),
  });
}
export type BoundedPaged<TRow> = Paged<TRow> & { totalIsExact: boolean };
