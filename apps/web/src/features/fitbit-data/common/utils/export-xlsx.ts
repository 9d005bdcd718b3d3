import type ExcelJsModule from 'exceljs';
import { PRODUCT_NAME } from '@trialpulse/shared';
import { neutralise } from '@trialpulse/shared/export/csv-safe';
// The library's own browser build as a file of the web build, not a module of the bundle:
// bundled, its CommonJS wrapper would add interop helpers to the runtime chunk every page
// (the login page too) loads.
import exceljsUrl from 'exceljs/dist/exceljs.min.js?url';

type ExcelJs = typeof ExcelJsModule;
let loading: Promise<ExcelJs> | null = null;

/** Loads exceljs once, on the first export (a script element; it defines `window.ExcelJS`). */
function loadExcelJs(): Promise<ExcelJs> {
  loading ??= new Promise<ExcelJs>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = exceljsUrl;
    script.async = true;
    script.onload = () => {
      const library = (window as unknown as { ExcelJS?: ExcelJs }).ExcelJS;
      if (library) resolve(library);
      else reject(new Error('exceljs did not load'));
    };
    script.onerror = () => {
      loading = null;
      reject(new Error('exceljs did not load'));
    };
    document.head.append(script);
  });
  return loading;
}

export type XlsxSheet = {
  name: string;
  headers: readonly string[];
  rows: ReadonlyArray<readonly unknown[]>;
};

/** The spec's export file name: product prefix, ends in -Data.xlsx (device-data §9). */
export const xlsxFileName = (name: string) =>
  `${PRODUCT_NAME}-${name.replace(/[^A-Za-z0-9_-]+/g, '_')}-Data.xlsx`;

/**
 * A cell's value: text a spreadsheet would read as a formula gets a leading apostrophe
 * (decision 0130), as in the server's exports; numbers and dates stay as they are.
 */
export function xlsxCell(value: unknown): unknown {
  if (value === undefined) return null;
  return typeof value === 'string' ? neutralise(value) : value;
}

/**
 * Builds an XLSX workbook (one sheet per entry) with exceljs, loaded on first use so no
 * page carries it until someone exports.
 */
export async function buildXlsx(sheets: readonly XlsxSheet[]): Promise<Blob> {
  const ExcelJS = await loadExcelJs();
  const workbook = new ExcelJS.Workbook();
  workbook.creator = PRODUCT_NAME;
  for (const sheet of sheets) {
    const worksheet = workbook.addWorksheet(sheet.name.replace(/[*?:\\/[\]]/g, ' ').slice(0, 31));
    worksheet.addRow([...sheet.headers]).font = { bold: true };
    for (const row of sheet.rows) worksheet.addRow(row.map(xlsxCell));
    worksheet.columns.forEach((column) => {
      column.width = 18;
    });
  }
  const buffer = await workbook.xlsx.writeBuffer();
  return new Blob([buffer], {
    type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  });
}

/** Builds the workbook and downloads it under the spec's file name. */
export async function downloadXlsx(name: string, sheets: readonly XlsxSheet[]): Promise<void> {
  const blob = await buildXlsx(sheets);
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = xlsxFileName(name);
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
