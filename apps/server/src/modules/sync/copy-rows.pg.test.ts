import { buffer } from 'node:stream/consumers';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPool } from '../../test/test-database';
import { copyRows } from './copy-rows';

/**
 * copyRows reads COPY's protocol messages itself (PostgreSQL only: `*.pg.test.ts` run in the
 * PostgreSQL pass): the prefix before every row, rows split over socket chunks, a quoted
 * line end inside a row, messages between rows, and an error half-way.
 */
describe('COPY … TO STDOUT with a prefix before every row (copyRows, PostgreSQL)', () => {
  let pool: pg.Pool;
  beforeAll(() => {
    pool = openTestPool(process.env.TEST_DATABASE_URL!, 2);
  });
  afterAll(() => pool?.end());

  async function copy(text: string, prefix: string) {
    const client = await pool.connect();
    let clean = false;
    try {
      const stream = client.query(copyRows(text, Buffer.from(prefix)));
      const bytes = await buffer(stream);
      await stream.ready;
      clean = true;
      return { text: bytes.toString('utf8'), rows: stream.rows };
    } finally {
      client.release(clean ? undefined : new Error('COPY stopped before its end'));
    }
  }

  it('puts the prefix before every row, a quoted line end inside a row included', async () => {
    const result = await copy(
      `COPY (select g, case when g = 2 then E'two\\nlines, "quoted"' end from generate_series(1, 3) g) TO STDOUT WITH (FORMAT csv)`,
      'P-1,"a, b",',
    );
    expect(result).toEqual({
      rows: 3,
      text: 'P-1,"a, b",1,\nP-1,"a, b",2,"two\nlines, ""quoted"""\nP-1,"a, b",3,\n',
    });
  });

  it('streams many rows (headers and rows split over socket chunks and 1 MB buffers) and NOTICEs between them', async () => {
    const rows = 150_000;
    const result = await copy(
      `COPY (select g, repeat('x', g % 97) from generate_series(1, ${rows}) g) TO STDOUT WITH (FORMAT csv)`,
      '#',
    );
    expect(result.rows).toBe(rows);
    const lines = result.text.split('\n');
    expect(lines).toHaveLength(rows + 1);
    // An empty text is quoted (COPY's CSV tells it from a null that way).
    for (const g of [1, 2, 96, 97, 12_345, rows])
      expect(lines[g - 1]).toBe(`#${g},${'x'.repeat(g % 97) || '""'}`);
    expect(lines.every((line, index) => index === rows || line.startsWith('#'))).toBe(true);

    // A NOTICE raised while rows are sent arrives between CopyData messages.
    const client = await pool.connect();
    try {
      await client.query(`create or replace function pg_temp.noisy(g int) returns int language plpgsql as $$
        begin if g % 1000 = 0 then raise notice 'row %', g; end if; return g; end $$`);
      const stream = client.query(
        copyRows(
          `COPY (select pg_temp.noisy(g) from generate_series(1, 5000) g) TO STDOUT`,
          Buffer.from('>'),
        ),
      );
      const text = (await buffer(stream)).toString('utf8');
      await stream.ready;
      expect(stream.rows).toBe(5000);
      expect(text.split('\n').slice(0, 3)).toEqual(['>1', '>2', '>3']);
      expect(text.endsWith('>5000\n')).toBe(true);
      // The connection is usable again.
      expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    } finally {
      client.release();
    }
  });

  it('an error half-way fails the stream with the database’s message; the pool goes on', async () => {
    await expect(
      copy(`COPY (select 10 / (3 - g) from generate_series(1, 5) g) TO STDOUT`, ''),
    ).rejects.toThrow(/division by zero/);
    expect((await pool.query('select 2 as two')).rows).toEqual([{ two: 2 }]);
  });
});
