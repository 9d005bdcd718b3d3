import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/react';
import { ChartFigure } from './chart-figure';
import { timeAxisChart } from './time-axis-chart';

const option = timeAxisChart({
  unit: 'steps',
  axis: 'zero',
  series: [
    {
      name: 'Steps',
      points: Array.from({ length: 60 }, (_, i) => [Date.UTC(2026, 2, 1 + i), 1000 + i] as const),
    },
  ],
});

describe('ChartFigure', () => {
  it('shows the same series as a table, 50 rows a page, and says how to zoom from the keyboard', () => {
    render(<ChartFigure option={option} height={200} testId="steps" ariaLabel="Steps per day" />);
    expect(
      screen.getByRole('group', { name: /^Steps per day\. Plus and minus zoom/ }),
    ).toBeTruthy();
    expect(screen.queryByTestId('steps-table')).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Show as table' }));
    const table = screen.getByRole('table', { name: 'Steps per day as a table' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(51);
    expect(
      within(rows[0]!)
        .getAllByRole('columnheader')
        .map((c) => c.textContent),
    ).toEqual(['Time', 'Steps (steps)']);
    expect(within(rows[1]!).getAllByRole('cell')[1]!.textContent).toBe('1000');
    expect(screen.getByText('1–50 of 60')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Hide table' }));
    expect(screen.queryByTestId('steps-table')).toBeNull();
  });
});
