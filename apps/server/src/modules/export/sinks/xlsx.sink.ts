import { once } from 'node:events';
import path from 'node:path';
import type { Writable } from 'node:stream';
import type ExcelJS from 'exceljs';
import { READINGS_CSV_COLUMNS } from '../../sync/readings-csv';
import { exportBaseName } from '../export-plan';
import type { ExportSink, SinkContext } from './export-sink';
import { dataRow, describeFile, type Cell } from './sink-files';

/** Excel's last row; a longer single tab continues on a sheet named "… (2)". */
const XLSX_MAX_ROWS = 1_048_576;

/**
 * The data as one XLSX (exceljs streaming writer, loaded only for XLSX) from the pages of
 * readings: separate tabs, one sheet per participant and metric (a header-only sheet for a
 * metric without readings); single tab, one long table (decision 0046).
 */
export async function xlsxSink({ plan, workDir }: SinkContext): Promise<ExportSink> {
  const { default: excel } = await import('exceljs');
  const separate = plan.request.exportMode === 'separate-tabs';
  const name = `${exportBaseName(plan)}-Data.xlsx`;
  const filePath = path.join(workDir, 'data.xlsx');
  const metricsByKey = new Map(plan.metrics.map((metric) => [metric.metricKey, metric]));
  let workbook: ExcelJS.stream.xlsx.WorkbookWriter;
  const nameSheet = sheetNamer();
  let sheet: { key: string; worksheet: ExcelJS.Worksheet; rows: number; title: string } | undefined;
  let totalRows = 0;
  /** The participant's metrics with readings so far (the others get header-only sheets). */
  let seen = new Set<string>();
  const openSheet = (key: string, title: string) => {
    if (sheet?.key === key && sheet.rows < XLSX_MAX_ROWS) return sheet;
    sheet?.worksheet.commit();
    const worksheet = workbook.addWorksheet(nameSheet(title));
    worksheet.addRow([...READINGS_CSV_COLUMNS]).commit();
    sheet = { key, worksheet, rows: 1, title };
    return sheet;
  };
  const write = async (code: string, metricKey: string, rows: Cell[][]) => {
    const title = separate ? `${code}-${metricKey}` : 'Data';
    let target = openSheet(separate ? `${code}|${metricKey}` : 'all', title);
    for (const row of rows) {
      if (target.rows >= XLSX_MAX_ROWS) target = openSheet(target.key, target.title);
      target.worksheet.addRow(row).commit();
      target.rows += 1;
    }
    totalRows += rows.length;
    await sheetDrained(target.worksheet);
  };

  return {
    reads: 'pages',
    async open() {
      workbook = new excel.stream.xlsx.WorkbookWriter({
        filename: filePath,
        useStyles: false,
        useSharedStrings: false,
      });
    },
    async writePage({ participant, readings, end }) {
      const code = participant.participantCode;
      if (end) {
        if (separate)
          for (const metricKey of plan.request.metrics)
            if (!seen.has(metricKey)) openSheet(`${code}|${metricKey}`, `${code}-${metricKey}`);
        seen = new Set();
        return;
      }
      // A page is ordered by metric: split it where the metric changes.
      let start = 0;
      while (start < readings.length) {
        const metricKey = readings[start]!.metricKey;
        let stop = start;
        while (stop < readings.length && readings[stop]!.metricKey === metricKey) stop += 1;
        seen.add(metricKey);
        const metric = metricsByKey.get(metricKey);
        await write(
          code,
          metricKey,
          readings.slice(start, stop).map((reading) => dataRow(reading, code, metric)),
        );
        start = stop;
      }
    },
    async close() {
      if (!sheet) openSheet('all', 'Data');
      sheet?.worksheet.commit();
      await workbook.commit();
      return {
        files: [{ ...(await describeFile(name, filePath, totalRows)), compressed: true }],
        dataRows: totalRows,
      };
    },
  };
}

/** Sheet names: at most 31 characters, none of []:*?/\, unique in the workbook. */
function sheetNamer() {
  const used = new Set<string>();
  return (wanted: string) => {
    const base = wanted.replace(/[[\]:*?/\\']/g, '_').slice(0, 31) || 'Sheet';
    let name = base;
    for (let n = 2; used.has(name.toLowerCase()); n += 1)
      name = `${base.slice(0, 31 - String(n).length - 3)} (${n})`;
    used.add(name.toLowerCase());
    return name;
  };
}

/** Bytes of a sheet's XML that may wait for the workbook's deflate before the next page is made. */
const XLSX_PENDING_BYTES = 4 << 20;

/**
 * exceljs's streaming sheet (a StreamBuf) writes into the workbook's zip entry without
 * looking at back-pressure: rows made faster than they are deflated piled up in memory (a
 * 400k-row sheet: ~230 MB held). Waits until the entry's stream has drained when more than
 * a few MB wait. The entry of the sheet being written is the one the zip is reading: the
 * sheets before it were committed (ended), and exceljs adds its other files only at the end.
 */
export async function sheetDrained(worksheet: ExcelJS.Worksheet): Promise<void> {
  type Pipe = Writable & { _writableState?: { length: number; needDrain: boolean } };
  const pipes = (worksheet as unknown as { stream?: { pipes?: Pipe[] } }).stream?.pipes ?? [];
  for (const pipe of pipes) {
    const state = pipe._writableState;
    if (state && state.needDrain && state.length > XLSX_PENDING_BYTES) await once(pipe, 'drain');
  }
  await new Promise((resolve) => setImmediate(resolve));
}
