import {
  FORMULA_SIGNS,
  SKIPPABLE,
  SKIPPED_THEN_SIGN,
  neutralise,
} from '@trialpulse/shared/export/csv-safe';

/**
 * Spreadsheet formula injection (OWASP CSV injection, decision 0130): the rule lives in
 * `packages/shared/src/export/csv-safe.ts` (the web app's downloads use it too). Here it is
 * again as SQL, for cells formatted by PostgreSQL (exports that stream `COPY … TO STDOUT`),
 * built from the same code point lists, so both ways of writing a file neutralise alike.
 */
export { FORMULA_SIGNS, neutralise };

/**
 * The rule as an SQL expression over a text expression (null stays null). `expression` is
 * SQL text the caller built (a column or a quoted literal), never user input. The first
 * character's code point decides alone for most cells (no text made per row); only a cell
 * that starts with whitespace, an invisible character or a formula sign is matched against
 * the pattern.
 */
export function neutraliseSql(expression: string): string {
  const first = `ascii(${expression})`;
  const leading = LEADING.map(([from, to]) =>
    from === to ? `${first} = ${from}` : `${first} between ${from} and ${to}`,
  ).join(' or ');
  return `(case when ${first} between 1 and 31 or ((${leading}) and ${expression} ~ '${SKIPPED_THEN_SIGN}') then '''' || ${expression} else ${expression} end)`;
}

/** First code points that need the pattern: the skippable ones (from the space on) and the signs. */
const LEADING: readonly (readonly [number, number])[] = [
  ...SKIPPABLE.map(([from, to]) => [Math.max(from, 0x20), to] as const),
  ...FORMULA_SIGNS.map((code) => [code, code] as const),
];
