import { describe, expect, it } from 'vitest';
import { xlsxCell } from './export-xlsx';

/** The probe's cells (decision 0130): a leading line feed, a leading space, a full-width sign. */
const PROBES = ['\n=1+1', ' =1+1', '＝1+1', '=HYPERLINK("http://evil.example")', '@SUM(A1)'];

describe('XLSX downloads neutralise formula-looking text', () => {
  it('XLSX: text cells get the apostrophe, numbers and empty cells do not change', () => {
    expect(PROBES.map(xlsxCell)).toEqual(PROBES.map((probe) => `'${probe}`));
    expect([xlsxCell(-3), xlsxCell(undefined), xlsxCell(null), xlsxCell('ok')]).toEqual([
      -3,
      null,
      null,
      'ok',
    ]);
  });
});
