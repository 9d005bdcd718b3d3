import { z } from 'zod';
import { LIMITS } from '../limits';

/**
 * Server-side paging, sorting and global filtering of a list (one helper for every paged
 * table; the server side is apps/server/src/lib/paging.ts). Query parameters:
 * `page` (0-based), `pageSize`, `sort` (a column id of the list), `order` (asc | desc),
 * `filter` (global filter text, case-insensitive "contains" over the list's columns).
 * The answer: `{ data, total, totalIsExact, page, pageSize }`. `total` counts the
 * filtered rows exactly up to `exactCountLimit`; beyond it counting every row would make a
 * page of a large table slow, so `totalIsExact` is false and `total` is the database's
 * estimate (or `exactCountLimit + 1` when there is none): "more than 10,000".
 */
export const PAGING = {
  defaultPageSize: LIMITS.sysAdminTablePageSize,
  /** Enough for a dropdown of every team; a table asks for 10–50. */
  maxPageSize: 1000,
  maxPage: LIMITS.savedTableStateMaxPage - 1,
  maxFilterLength: LIMITS.savedTableStateMaxFilterLength - 1,
  exactCountLimit: 10_000,
} as const;

export const PAGING_MESSAGES = {
  badPage: 'The page must be a whole number from 0.',
  badPageSize: `The page size must be a whole number from 1 to ${PAGING.maxPageSize}.`,
  badSort: 'Unknown sort column.',
  filterTooLong: `The filter must be shorter than ${LIMITS.savedTableStateMaxFilterLength} characters.`,
} as const;

export const pageQuerySchema = z.object({
  page: z.coerce
    .number({ error: PAGING_MESSAGES.badPage })
    .int(PAGING_MESSAGES.badPage)
    .min(0, PAGING_MESSAGES.badPage)
    .max(PAGING.maxPage, PAGING_MESSAGES.badPage)
    .default(0),
  pageSize: z.coerce
    .number({ error: PAGING_MESSAGES.badPageSize })
    .int(PAGING_MESSAGES.badPageSize)
    .min(1, PAGING_MESSAGES.badPageSize)
    .max(PAGING.maxPageSize, PAGING_MESSAGES.badPageSize)
    .default(PAGING.defaultPageSize),
  sort: z.string().trim().max(64).optional(),
  order: z.enum(['asc', 'desc']).default('asc'),
  filter: z.string().max(PAGING.maxFilterLength, PAGING_MESSAGES.filterTooLong).optional(),
});
export type PageQuery = z.output<typeof pageQuerySchema>;
export type PageQueryInput = z.input<typeof pageQuerySchema>;

export function pagedSchema<TRow extends z.ZodType>(row: TRow) {
  return z.object({
    data: z.array(row),
    total: z.number().int(),
    totalIsExact: z.boolean(),
    page: z.number().int(),
    pageSize: z.number().int(),
  });
}
export type Paged<TRow> = {
  data: TRow[];
  total: number;
  totalIsExact: boolean;
  page: number;
  pageSize: number;
};

/** A page request as the web builds it; extra keys are list-specific filters (e.g. team_id). */
export type PageRequest = {
  page?: number;
  pageSize?: number;
  sort?: string;
  order?: 'asc' | 'desc';
  filter?: string;
  [extra: string]: string | number | undefined;
};

/** The query string of a page request (empty values left out). */
export function pageQueryString(query: PageRequest): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
