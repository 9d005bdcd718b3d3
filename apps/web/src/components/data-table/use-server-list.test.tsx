import { useMemo } from 'react';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import {
  MaterialReactTable,
  useMaterialReactTable,
  type MRT_ColumnDef,
} from 'material-react-table';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mockApi, type RecordedCall } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render-app';
import { DebouncedSearchField } from './debounced-search-field';
import { dataTableDefaults } from './table-options';
import { useKeepPageInRange, usePersistedTableState } from './use-persisted-table-state';
import { useServerList } from './use-server-list';

type Row = { id: number; name: string };
const rowSchema = z.object({ id: z.number(), name: z.string() });
const ALL: Row[] = Array.from({ length: 25 }, (_, i) => ({ id: i + 1, name: `Name ${i + 1}` }));

/** A server that pages, sorts by name and filters ALL like the real list calls. */
function pagingServer() {
  return mockApi({
    'GET /api/things': (call: RecordedCall) => {
      const params = new URL(call.url, 'http://x').searchParams;
      const filter = params.get('filter')?.toLowerCase() ?? '';
      let rows = ALL.filter((row) => row.name.toLowerCase().includes(filter));
      if (params.get('sortBy') === 'name') {
        rows = [...rows].sort((a, b) => a.name.localeCompare(b.name));
        if (params.get('sortDir') === 'desc') rows.reverse();
      }
      const size = Number(params.get('pageSize'));
      const index = Number(params.get('pageIndex'));
      return { body: { rows: rows.slice(index * size, (index + 1) * size), total: rows.length } };
    },
  });
}

function ThingsTable() {
  const persisted = usePersistedTableState('things', ['id', 'name']);
  const list = useServerList({ queryKey: ['things'], path: '/things', rowSchema, persisted });
  const columns = useMemo<MRT_ColumnDef<Row>[]>(
    () => [
      { accessorKey: 'id', header: 'Id' },
      { accessorKey: 'name', header: 'Name' },
    ],
    [],
  );
  const table = useMaterialReactTable({
    ...dataTableDefaults<Row>(),
    ...persisted.tableOptions,
    ...list.tableOptions,
    columns,
    state: { ...persisted.state, ...list.state },
    renderTopToolbarCustomActions: () => (
      <DebouncedSearchField
        value={persisted.globalFilter}
        onChange={persisted.setGlobalFilter}
        testId="things-search"
      />
    ),
  });
  useKeepPageInRange(table, list.query.isSuccess);
  return <MaterialReactTable table={table} />;
}

const listCalls = (calls: RecordedCall[]) =>
  calls.filter((call) => call.url.startsWith('/api/things')).map((call) => call.url);

describe('useServerList', () => {
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
  });

  it('fetches only the visible page and counts the pages from the total', async () => {
    const { calls } = pagingServer();
    renderWithProviders(<ThingsTable />);
    expect(await screen.findByText('Name 10')).toBeTruthy();
    expect(screen.queryByText('Name 11')).toBeNull();
    expect(screen.getByText('1-10 of 25')).toBeTruthy();
    expect(listCalls(calls)).toEqual(['/api/things?pageIndex=0&pageSize=10']);

    fireEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
    expect(await screen.findByText('Name 11')).toBeTruthy();
    expect(screen.queryByText('Name 10')).toBeNull();
    expect(listCalls(calls).at(-1)).toBe('/api/things?pageIndex=1&pageSize=10');
  });

  it('sends the sort and the global filter, and a new filter starts on the first page', async () => {
    const { calls } = pagingServer();
    renderWithProviders(<ThingsTable />);
    await screen.findByText('Name 10');
    fireEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
    await screen.findByText('Name 11');

    fireEvent.click(screen.getByText('Name', { selector: '.Mui-TableHeadCell-Content-Wrapper' }));
    await waitFor(() =>
      expect(listCalls(calls).at(-1)).toBe(
        '/api/things?pageIndex=0&pageSize=10&sortBy=name&sortDir=asc',
      ),
    );

    fireEvent.change(screen.getByTestId('things-search'), { target: { value: 'name 2' } });
    await waitFor(() =>
      expect(listCalls(calls).at(-1)).toBe(
        '/api/things?pageIndex=0&pageSize=10&sortBy=name&sortDir=asc&filter=name+2',
      ),
    );
    // "Name 2" and "Name 20" … "Name 25": seven rows, one page.
    expect(await screen.findByText('1-7 of 7')).toBeTruthy();
  });
});
