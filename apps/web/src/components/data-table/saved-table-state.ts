import { z } from 'zod';
import { LIMITS } from '@trialpulse/shared';

/**
 * The page, sort and filter a table keeps in session storage between visits (access spec
 * §2 "Table page, filter and sort … are kept in session storage"). A saved state is
 * restored only when it passes the spec's rules (§5 "Saved table state"): sort is an array
 * of `{ id, desc }`, the page is 0 to under 10000, the filter text is under 1000 characters.
 * A page size outside the offered sizes falls back to the default instead of failing.
 */
export const savedTableStateSchema = z.object({
  pageIndex: z
    .number()
    .int()
    .min(0)
    .max(LIMITS.savedTableStateMaxPage - 1),
  pageSize: z.literal(LIMITS.tablePageSizes).catch(LIMITS.tableDefaultPageSize),
  sorting: z.array(z.object({ id: z.string().min(1), desc: z.boolean() })),
  globalFilter: z.string().max(LIMITS.savedTableStateMaxFilterLength - 1),
});
export type SavedTableState = z.infer<typeof savedTableStateSchema>;

/** The saved state when it passes the rules, otherwise `null` (the table starts fresh). */
export function parseSavedTableState(value: unknown): SavedTableState | null {
  const parsed = savedTableStateSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** Column id → shown; what the column-hiding menu stores locally. */
export const columnVisibilitySchema = z.record(z.string(), z.boolean());
export type ColumnVisibility = z.infer<typeof columnVisibilitySchema>;

export function parseColumnVisibility(value: unknown): ColumnVisibility | null {
  const parsed = columnVisibilitySchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
