import { describe, expect, it } from 'vitest';
import { LIMITS } from '@trialpulse/shared';
import { parseColumnVisibility, parseSavedTableState } from './saved-table-state';

const valid = {
  pageIndex: 2,
  pageSize: 20,
  sorting: [{ id: 'trialName', desc: true }],
  globalFilter: 'cardio',
};

describe('saved table state (access spec §5)', () => {
  it('accepts a state that passes every rule', () => {
    expect(parseSavedTableState(valid)).toEqual(valid);
    expect(parseSavedTableState({ ...valid, pageIndex: 0, sorting: [], globalFilter: '' })).toEqual(
      { ...valid, pageIndex: 0, sorting: [], globalFilter: '' },
    );
  });

  it('accepts the edges: page 9999 and a 999-character filter', () => {
    expect(parseSavedTableState({ ...valid, pageIndex: 9999 })?.pageIndex).toBe(9999);
    const filter = 'x'.repeat(LIMITS.savedTableStateMaxFilterLength - 1);
    expect(parseSavedTableState({ ...valid, globalFilter: filter })?.globalFilter).toBe(filter);
  });

  it.each([
    ['a page of 10000', { ...valid, pageIndex: 10_000 }],
    ['a negative page', { ...valid, pageIndex: -1 }],
    ['a fractional page', { ...valid, pageIndex: 1.5 }],
    ['a page as text', { ...valid, pageIndex: '2' }],
    ['a 1000-character filter', { ...valid, globalFilter: 'x'.repeat(1000) }],
    ['a filter that is not text', { ...valid, globalFilter: 42 }],
    ['sort that is not an array', { ...valid, sorting: { id: 'trialName', desc: true } }],
    ['a sort entry without desc', { ...valid, sorting: [{ id: 'trialName' }] }],
    ['a sort entry with a text desc', { ...valid, sorting: [{ id: 'trialName', desc: 'yes' }] }],
    ['a sort entry without id', { ...valid, sorting: [{ desc: false }] }],
    ['a missing filter', { pageIndex: 0, pageSize: 10, sorting: [] }],
    ['null', null],
    ['text', 'page=2'],
  ])('rejects %s', (_label, value) => {
    expect(parseSavedTableState(value)).toBeNull();
  });

  it('falls back to the default page size for a size the table does not offer', () => {
    expect(parseSavedTableState({ ...valid, pageSize: 15 })?.pageSize).toBe(
      LIMITS.tableDefaultPageSize,
    );
    expect(parseSavedTableState({ ...valid, pageSize: undefined })?.pageSize).toBe(10);
  });

  it('reads the column visibility only as a map of booleans', () => {
    expect(parseColumnVisibility({ trialNotes: false })).toEqual({ trialNotes: false });
    expect(parseColumnVisibility({ trialNotes: 'no' })).toBeNull();
    expect(parseColumnVisibility([false])).toBeNull();
  });
});
