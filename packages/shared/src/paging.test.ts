import { describe, expect, it } from 'vitest';
import { PAGING, listAnswerSchema, listQuerySchema, toListQueryParams } from './paging';
import { z } from 'zod';

const schema = listQuerySchema(['name', 'email']);

describe('listQuerySchema', () => {
  it('means the whole list when no page parameter is given', () => {
    expect(schema.parse({})).toEqual({ page: null, sort: null, filter: '' });
    expect(schema.parse({ sortBy: 'email', sortDir: 'desc', filter: ' Ann ' })).toEqual({
      page: null,
      sort: { by: 'email', desc: true },
      filter: 'Ann',
    });
  });

  it('reads query-string text and fills in the other page parameter', () => {
    expect(schema.parse({ pageIndex: '3' }).page).toEqual({
      index: 3,
      size: PAGING.defaultPageSize,
    });
    expect(schema.parse({ pageSize: '50' }).page).toEqual({ index: 0, size: 50 });
    expect(schema.parse({ pageIndex: '2', pageSize: '20', sortBy: 'name' })).toEqual({
      page: { index: 2, size: 20 },
      sort: { by: 'name', desc: false },
      filter: '',
    });
  });

  it('ignores a direction without a column', () => {
    expect(schema.parse({ sortDir: 'desc' }).sort).toBeNull();
  });

  it.each([
    { pageSize: '9' },
    { pageSize: '51' },
    { pageSize: '10.5' },
    { pageIndex: '-1' },
    { pageIndex: String(PAGING.maxPageIndex + 1) },
    { pageIndex: 'x' },
    { sortBy: 'password' },
    { sortBy: 'name', sortDir: 'sideways' },
    { filter: 'x'.repeat(PAGING.maxFilterLength + 1) },
  ])('refuses %o', (params) => {
    expect(schema.safeParse(params).success).toBe(false);
  });

  it('allows the page sizes every table offers', () => {
    for (const size of [10, 20, 30, 40, 50]) {
      expect(schema.parse({ pageSize: String(size) }).page?.size).toBe(size);
    }
  });
});

describe('toListQueryParams', () => {
  it("turns a table's state into the query parameters, leaving out what is not set", () => {
    expect(
      toListQueryParams({ pageIndex: 0, pageSize: 10, sorting: [], globalFilter: '  ' }),
    ).toEqual({
      pageIndex: 0,
      pageSize: 10,
    });
    expect(
      toListQueryParams({
        pageIndex: 4,
        pageSize: 30,
        sorting: [{ id: 'email', desc: true }],
        globalFilter: ' ann ',
      }),
    ).toEqual({ pageIndex: 4, pageSize: 30, sortBy: 'email', sortDir: 'desc', filter: 'ann' });
  });

  it('round-trips through the schema', () => {
    const params = toListQueryParams({
      pageIndex: 1,
      pageSize: 40,
      sorting: [{ id: 'name', desc: false }],
      globalFilter: 'x',
    });
    const asQueryString = Object.fromEntries(
      Object.entries(params).map(([key, value]) => [key, String(value)]),
    );
    expect(schema.parse(asQueryString)).toEqual({
      page: { index: 1, size: 40 },
      sort: { by: 'name', desc: false },
      filter: 'x',
    });
  });
});

describe('listAnswerSchema', () => {
  const answer = listAnswerSchema(z.object({ id: z.number() }));
  it('takes the whole-list array and the page with its total', () => {
    expect(answer.parse([{ id: 1 }])).toEqual([{ id: 1 }]);
    expect(answer.parse({ rows: [{ id: 1 }], total: 7 })).toEqual({ rows: [{ id: 1 }], total: 7 });
    expect(answer.safeParse({ rows: [{ id: 1 }] }).success).toBe(false);
  });
});
