import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { LIMITS } from '@trialpulse/shared';
import { renderWithProviders } from '@/testing/render-app';
import type { ViewColumn, ViewRow } from '../utils/fitbit-views';
import { FitbitDataTable } from './fitbit-data-table';

const COLUMNS: ViewColumn[] = [
  { key: 'dateTime', header: 'Date' },
  { key: 'steps', header: 'Steps (steps)' },
];
// 25 days: three pages of 10, one page of 30 or more.
const ROWS: ViewRow[] = Array.from({ length: 25 }, (_, index) => ({
  dateTime: `2026-11-${String(index + 1).padStart(2, '0')}`,
  steps: 1000 + index,
}));

function show() {
  renderWithProviders(
    <FitbitDataTable
      tableId="steps-table"
      storageId="steps"
      fileName="steps"
      columns={COLUMNS}
      rows={ROWS}
    />,
  );
}

const rows = () => screen.getAllByTestId('steps-table-row');
// By tag: the open menu hides the table from the accessibility tree.
const headers = () =>
  [...screen.getByTestId('steps-table').querySelectorAll('thead th')].map(
    (cell) => cell.textContent ?? '',
  );

describe('Fitbit data table (device-data §2, §9)', () => {
  it('Columns Selection: hiding a column removes it from the table', async () => {
    show();
    expect(headers().some((text) => text.includes('Steps (steps)'))).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Columns Selection' }));
    const menu = await screen.findByRole('menu');
    fireEvent.click(within(menu).getByLabelText('Steps (steps)'));
    await waitFor(() =>
      expect(headers().some((text) => text.includes('Steps (steps)'))).toBe(false),
    );
    expect(headers().some((text) => text.includes('Date'))).toBe(true);
    expect(screen.queryByText('1000')).toBeNull();
    expect(screen.getByText('2026-11-01')).toBeTruthy();
  });

  it('pages of 10 by default, with the page sizes 10, 20, 30, 40 and 50', async () => {
    show();
    expect(rows()).toHaveLength(LIMITS.tableDefaultPageSize);
    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Rows per page' }));
    const listbox = await screen.findByRole('listbox');
    const options = within(listbox).getAllByRole('option');
    expect(options.map((option) => option.textContent)).toEqual(['10', '20', '30', '40', '50']);
    fireEvent.click(within(listbox).getByRole('option', { name: '50' }));
    await waitFor(() => expect(rows()).toHaveLength(25));
  });

  it('a column filter keeps only the rows that match, from the first page', async () => {
    show();
    fireEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
    await waitFor(() => expect(screen.getByText('2026-11-11')).toBeTruthy());
    fireEvent.click(screen.getByRole('button', { name: 'Show/Hide filters' }));
    const filter = await screen.findByPlaceholderText('Filter by Steps (steps)');
    fireEvent.change(filter, { target: { value: '1002' } });
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(within(rows()[0]!).getByText('2026-11-03')).toBeTruthy();
  });
});
