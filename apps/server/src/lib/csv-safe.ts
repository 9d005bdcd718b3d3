/**
 * Spreadsheet formula injection (OWASP CSV injection): a text cell starting with = + - @
 * (or a tab or carriage return) gets a leading apostrophe, so no spreadsheet runs it.
 * Numbers stay numbers (a negative trend rate is data, not a formula). The same rule in
 * two forms: for cells built in JavaScript and for cells formatted by PostgreSQL (exports
 * that stream `COPY … TO STDOUT`), so both ways of writing a file neutralise alike.
 */
export function neutralise(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * The rule as an SQL expression over a text expression (null stays null). `expression` is
 * SQL text the caller built (a column or a quoted literal), never user input. The first
 * character's code point (= + - @ tab CR), not `left(…, 1)`: no text made per row.
 */
export function neutraliseSql(expression: string): string {
  return `(case when ascii(${expression}) in (61, 43, 45, 64, 9, 13) then '''' || ${expression} else ${expression} end)`;
}
