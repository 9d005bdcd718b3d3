/**
 * Spreadsheet formula injection (OWASP CSV injection, decision 0130): a text cell gets a
 * leading apostrophe, so no spreadsheet runs it, when
 * - it starts with a control character (tab, carriage return, line feed, …), or
 * - its first visible character is = + - @ or one of their compatibility look-alikes
 *   (full-width ＝ ＋ － ＠, small ﹦ ﹢ ﹣ ﹫, super- and subscript ⁺ ⁼ ₊ ₌, …), after any
 *   leading whitespace (space, no-break and ideographic spaces, …) or invisible format
 *   characters (zero-width space, byte-order mark, bidi marks): spreadsheets trim some of
 *   those and map full-width signs to ASCII before they parse a formula.
 * Numbers stay numbers (a negative trend rate is data, not a formula). The same rule in
 * two forms: for cells built in JavaScript and for cells formatted by PostgreSQL (exports
 * that stream `COPY … TO STDOUT`), so both ways of writing a file neutralise alike. Both
 * are built from the same code point lists below.
 */
export function neutralise(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

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

/**
 * Characters whose compatibility form (NFKC) is = + - or @: every code point for which
 * `String.fromCodePoint(c).normalize('NFKC')` starts with one of them (csv-safe.test.ts
 * checks the list against Node's Unicode tables). Hyphen first: literal in a bracket
 * expression of both JavaScript and PostgreSQL regular expressions.
 */
export const FORMULA_SIGNS: readonly number[] = [
  0x2d, 0x3d, 0x2b, 0x40, 0x207a, 0x207c, 0x208a, 0x208c, 0x2a75, 0x2a76, 0xfb29, 0xfe62, 0xfe63,
  0xfe66, 0xfe6b, 0xff0b, 0xff0d, 0xff1d, 0xff20,
];

/**
 * What may stand before a formula sign unseen (inclusive ranges): controls, the Unicode
 * white space (JavaScript's `\s`), and invisible format characters (soft hyphen, Arabic
 * letter mark, Mongolian vowel separator, zero-width and bidi marks, word joiners, the BOM,
 * interlinear annotation marks). NUL is left out: PostgreSQL text cannot hold it.
 */
export const SKIPPABLE: readonly (readonly [number, number])[] = [
  [0x01, 0x20],
  [0x7f, 0xa0],
  [0xad, 0xad],
  [0x61c, 0x61c],
  [0x1680, 0x1680],
  [0x180e, 0x180e],
  [0x2000, 0x200f],
  [0x2028, 0x202f],
  [0x205f, 0x206f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
  [0xfff9, 0xfffb],
];

const hex = (code: number) => `\\u${code.toString(16).padStart(4, '0')}`;
const signClass = `[-${FORMULA_SIGNS.filter((code) => code !== 0x2d)
  .map(hex)
  .join('')}]`;
const skippedClass = `[${SKIPPABLE.map(([from, to]) => (from === to ? hex(from) : `${hex(from)}-${hex(to)}`)).join('')}]`;
/** A pattern both engines read alike (`\uXXXX` escapes, ranges, a leading hyphen). */
const SKIPPED_THEN_SIGN = `^${skippedClass}*${signClass}`;
const FORMULA_START = new RegExp(`^[\\u0000-\\u001f]|${SKIPPED_THEN_SIGN}`, 'u');
/** First code points that need the pattern: the skippable ones (from the space on) and the signs. */
const LEADING: readonly (readonly [number, number])[] = [
  ...SKIPPABLE.map(([from, to]) => [Math.max(from, 0x20), to] as const),
  ...FORMULA_SIGNS.map((code) => [code, code] as const),
];
