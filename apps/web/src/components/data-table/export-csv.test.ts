import { describe, expect, it } from 'vitest';
import { toCsv } from './export-csv';

/** The probe's cells (decision 0130): a leading line feed, a leading space, a full-width sign. */
const PROBES = ['\n=1+1', ' =1+1', '＝1+1', '=HYPERLINK("http://evil.example")', '@SUM(A1)'];

describe('table downloads neutralise formula-looking text', () => {
  it('CSV: each probe starts with an apostrophe, quoted where needed; numbers stay numbers', () => {
    const csv = toCsv(['name', 'value'], [...PROBES.map((probe) => [probe, -3]), ['plain', 5]]);
    expect(csv).toBe(
      [
        'name,value',
        `"'\n=1+1",-3`,
        `' =1+1,-3`,
        `'＝1+1,-3`,
        `"'=HYPERLINK(""http://evil.example"")",-3`,
        `'@SUM(A1),-3`,
        'plain,5',
        '',
      ].join('\r\n'),
    );
  });
});
