import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client';
import { createTestDatabase } from '../test/test-database';
import { FORMULA_SIGNS, neutralise, neutraliseSql } from './csv-safe';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';

/** Cells a spreadsheet may run (or show differently from the text) unless neutralised. */
const DANGEROUS = [
  '=1+1',
  '+1+1',
  '-1+1',
  '@SUM(A1:A2)',
  '\t=1+1',
  '\r=1+1',
  '\n=1+1',
  ' =1+1',
  '   =1+1',
  ' \t =1+1',
  '\u00a0=1+1',
  '\u3000=1+1',
  '\u200b=1+1',
  '\ufeff=1+1',
  '\u202e=1+1',
  '＝1+1',
  '＋1+1',
  '－1+1',
  '＠SUM(A1:A2)',
  ' ＝1+1',
  '\u3000＝1+1',
  '﹦1+1',
  '﹢1',
  '﹣1',
  '﹫SUM(A1)',
  '⁼1',
  '\t',
  '\r',
  '\n',
  '\nplain text after a line feed',
  '\u0001x',
];

/** Text that must come out as it went in. */
const HARMLESS = [
  '',
  'tracker',
  'Fitbit, "Charge" 6',
  'a=1+1',
  ' leading space',
  '   ',
  '\u3000全角',
  'x\n=1+1',
  '1+1',
  '{"value":-3}',
  '—dash',
  '−5', // U+2212 MINUS SIGN: no compatibility mapping to "-"
];

describe('neutralise (OWASP CSV injection)', () => {
  it.each(DANGEROUS.map((value) => [JSON.stringify(value), value]))(
    'prefixes %s with an apostrophe',
    (_label, value) => {
      expect(neutralise(value)).toBe(`'${value}`);
    },
  );

  it.each(HARMLESS.map((value) => [JSON.stringify(value), value]))(
    'leaves %s alone',
    (_label, value) => {
      expect(neutralise(value)).toBe(value);
    },
  );

  it('knows every character whose compatibility form is = + - or @', () => {
    const expected: number[] = [];
    for (let code = 0; code <= 0x10ffff; code += 1) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const first = String.fromCodePoint(code).normalize('NFKC')[0];
      if (first !== undefined && '=+-@'.includes(first)) expected.push(code);
    }
    expect([...FORMULA_SIGNS].sort((a, b) => a - b)).toEqual(expected);
    for (const code of expected) {
      const sign = String.fromCodePoint(code);
      expect(neutralise(`${sign}1`), sign).toBe(`'${sign}1`);
      expect(neutralise(` \u200b${sign}1`), sign).toBe(`' \u200b${sign}1`);
    }
  });
});

describe(`neutraliseSql: the same rule in the database (${MODE})`, () => {
  let database: Database;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('answers exactly like neutralise for every case, and keeps null', async () => {
    const values = [...DANGEROUS, ...HARMLESS].filter((value) => !value.includes('\u0000'));
    const { rows } = await database.executor.executeSql(
      `select ${neutraliseSql('v')} as out from unnest($1::text[]) with ordinality as t(v, n) order by n`,
      [values],
    );
    expect((rows as { out: string }[]).map((row) => row.out)).toEqual(values.map(neutralise));
    const nulls = await database.executor.executeSql(
      `select ${neutraliseSql('null::text')} as out`,
    );
    expect(nulls.rows).toEqual([{ out: null }]);
  });
});
