/**
 * Spreadsheet formula injection (OWASP CSV injection, decision 0130): a text cell gets a
 * leading apostrophe, so no spreadsheet runs it, when
 * - it starts with a control character (tab, carriage return, line feed, …), or
 * - its first visible character is = + - @ or one of their compatibility look-alikes
 *   (full-width ＝ ＋ － ＠, small ﹦ ﹢ ﹣ ﹫, super- and subscript ⁺ ⁼ ₊ ₌, …), after any
 *   leading whitespace (space, no-break and ideographic spaces, …) or invisible format
 *   characters (zero-width space, byte-order mark, bidi marks): spreadsheets trim some of
 *   those and map full-width signs to ASCII before they parse a formula.
 * Numbers stay numbers (a negative trend rate is data, not a formula). Every file the
 * product writes uses this rule: the server's exports (and, as SQL, its database-formatted
 * CSV: apps/server/src/lib/csv-safe.ts) and the web app's table downloads.
 */
export function neutralise(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/**
 * Characters whose compatibility form (NFKC) is = + - or @: every code point for which
 * `String.fromCodePoint(c).normalize('NFKC')` starts with one of them (the server's
 * csv-safe.test.ts checks the list against Node's Unicode tables).
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
/** Hyphen first: literal in a bracket expression of both JavaScript and PostgreSQL patterns. */
const signClass = `[-${FORMULA_SIGNS.filter((code) => code !== 0x2d)
  .map(hex)
  .join('')}]`;
const skippedClass = `[${SKIPPABLE.map(([from, to]) => (from === to ? hex(from) : `${hex(from)}-${hex(to)}`)).join('')}]`;
/**
 * Skippable characters, then a sign, at the start: a pattern JavaScript and PostgreSQL
 * regular expressions read alike (`\uXXXX` escapes, ranges, a leading hyphen).
 */
export const SKIPPED_THEN_SIGN = `^${skippedClass}*${signClass}`;
const FORMULA_START = new RegExp(`^[\\u0000-\\u001f]|${SKIPPED_THEN_SIGN}`, 'u');
