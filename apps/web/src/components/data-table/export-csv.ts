import { PRODUCT_NAME } from '@trialpulse/shared';
import { neutralise } from '@trialpulse/shared/export/csv-safe';

/**
 * One CSV field: text that a spreadsheet would read as a formula gets a leading apostrophe
 * (decision 0130; numbers stay numbers), then quoted when it holds a comma, quote or line
 * break (RFC 4180).
 */
function field(value: unknown): string {
  const text =
    value === null || value === undefined
      ? ''
      : typeof value === 'string'
        ? neutralise(value)
        : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The rows as CSV text with a header line. */
export function toCsv(headers: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  return [headers, ...rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}

/**
 * Downloads what a table shows as CSV; the file name follows the spec's pattern (product
 * name prefix, ends in -Data.csv).
 */
export function downloadCsv(
  name: string,
  headers: readonly string[],
  rows: ReadonlyArray<readonly unknown[]>,
): void {
  const blob = new Blob([toCsv(headers, rows)], { type: 'text/csv;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = `${PRODUCT_NAME}-${name.replace(/[^A-Za-z0-9_-]+/g, '_')}-Data.csv`;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  URL.revokeObjectURL(url);
}
