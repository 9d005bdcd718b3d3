import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import {
  COMPLETENESS_DEFAULTS,
  DAY_STATES,
  type CompletenessGrid as Grid,
  type CompletenessRow,
  type Trial,
} from '@trialpulse/shared';
import { renderWithProviders } from '@/testing/render-app';
import { CompletenessGrid, nextPosition } from './completeness-grid';
import { DAY_STATE_LABELS, DAY_STYLES } from './day-colors';
import { stripText } from './completeness-strip';

const DAYS = ['2026-03-01', '2026-03-02', '2026-03-03'];
const TRIAL: Trial = {
  trialId: 4,
  trialNumber: 'SLEEP',
  trialName: 'Sleep',
  trialNotes: '',
  trialOwnerEmail: 'ada@example.org',
  teamId: 1,
  creationDate: '2026-01-01T00:00:00.000Z',
};

function row(id: number, states: CompletenessRow['states']): CompletenessRow {
  return {
    participantId: id,
    participantCode: `SLEEP-00${id}`,
    states,
    wearMinutes: [720, 300, 0],
    steps: [8000, 2000, null],
    sleepMinutes: [420, null, null],
    bpReadings: [0, 0, 0],
    weightReadings: [0, 0, 0],
    cgmReadings: [0, 0, 0],
    cgmUsagePercent: [null, null, null],
    expectedDays: 3,
    validDays: states.filter((s) => s === 'valid').length,
    validPercent: 33,
    connections: [],
    warnings: [],
    belowThreshold: true,
  };
}

const ROWS = [row(1, ['valid', 'partial', 'missing']), row(2, ['none', 'valid', 'in_progress'])];
const GRID: Grid = {
  trialId: 4,
  days: DAYS,
  thresholds: COMPLETENESS_DEFAULTS,
  canEditThresholds: false,
  rows: ROWS,
};

function renderGrid() {
  renderWithProviders(
    <CompletenessGrid grid={GRID} rows={ROWS} trial={TRIAL} participants={new Map()} />,
  );
  return screen.getByTestId('completeness-grid');
}

const dayCell = (code: string, day: string) =>
  screen.getByTestId(`completeness-day-${code}-${day}`);

describe('completeness grid', () => {
  it('names each day cell with its participant, day, state and measures, and shows a symbol besides the colour', () => {
    renderGrid();
    const partial = dayCell('SLEEP-001', '2026-03-02');
    expect(partial.getAttribute('aria-label')).toBe(
      'SLEEP-001, 2026-03-02: Below threshold · wear 5.0 h · 2000 steps · no sleep recorded',
    );
    expect(within(partial).getByTestId('completeness-cell-SLEEP-001-2026-03-02').textContent).toBe(
      DAY_STYLES.partial.symbol,
    );
    expect(screen.getByRole('cell', { name: /SLEEP-001, 2026-03-03: No data/ })).toBe(
      dayCell('SLEEP-001', '2026-03-03'),
    );
  });

  it('is one tab stop; the arrow keys, Home and End move the focus between day cells', () => {
    const table = renderGrid();
    const focusable = table.querySelectorAll('[tabindex="0"]');
    expect(focusable).toHaveLength(1);
    // The first participant's newest day.
    expect(focusable[0]).toBe(dayCell('SLEEP-001', '2026-03-03'));

    (focusable[0] as HTMLElement).focus();
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowLeft' });
    expect(document.activeElement).toBe(dayCell('SLEEP-001', '2026-03-02'));
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(dayCell('SLEEP-002', '2026-03-02'));
    fireEvent.keyDown(document.activeElement!, { key: 'Home' });
    expect(document.activeElement).toBe(dayCell('SLEEP-002', '2026-03-01'));
    fireEvent.keyDown(document.activeElement!, { key: 'End' });
    expect(document.activeElement).toBe(dayCell('SLEEP-002', '2026-03-03'));
    // Only the focused cell stays in the tab order.
    expect(table.querySelectorAll('[tabindex="0"]')).toHaveLength(1);
    expect(dayCell('SLEEP-002', '2026-03-03').getAttribute('tabindex')).toBe('0');
    // The focused cell's information is shown as text, not only in a tooltip.
    expect(screen.getByTestId('completeness-focused-day').textContent).toContain(
      'SLEEP-002, 2026-03-03: Today, not yet valid',
    );
  });

  it("Enter or Space on a focused day cell opens the day's detail, as a click does; Escape closes it", async () => {
    renderGrid();
    /** The open detail (a dialog named by its heading), or null. */
    const openDetail = () => screen.queryByTestId('completeness-day-detail');
    const detailName = () => {
      const detail = openDetail()!;
      expect(detail.getAttribute('role')).toBe('dialog');
      return document.getElementById(detail.getAttribute('aria-labelledby')!)!.textContent;
    };
    const cell = dayCell('SLEEP-001', '2026-03-02');
    cell.focus();
    fireEvent.keyDown(cell, { key: 'Enter' });
    await waitFor(() => expect(openDetail()).not.toBeNull());
    expect(detailName()).toBe('SLEEP-001, 2026-03-02: Below threshold');
    expect(
      within(openDetail()!)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['wear 5.0 h', '2000 steps', 'no sleep recorded']);
    fireEvent.keyDown(openDetail()!, { key: 'Escape' });
    await waitFor(() => expect(openDetail()).toBeNull());

    fireEvent.keyDown(dayCell('SLEEP-002', '2026-03-02'), { key: ' ' });
    await waitFor(() => expect(openDetail()).not.toBeNull());
    expect(detailName()).toBe(`SLEEP-002, 2026-03-02: ${DAY_STATE_LABELS.valid}`);
    fireEvent.keyDown(openDetail()!, { key: 'Escape' });
    await waitFor(() => expect(openDetail()).toBeNull());

    // A key that is not Enter or Space opens nothing.
    fireEvent.keyDown(dayCell('SLEEP-002', '2026-03-02'), { key: 'a' });
    expect(openDetail()).toBeNull();
    fireEvent.click(dayCell('SLEEP-002', '2026-03-01'));
    await waitFor(() => expect(openDetail()).not.toBeNull());
    expect(detailName()).toBe(`SLEEP-002, 2026-03-01: ${DAY_STATE_LABELS.none}`);
  });

  it('stops at the edges', () => {
    expect(nextPosition('ArrowUp', { row: 0, day: 0 }, 2, 3)).toEqual({ row: 0, day: 0 });
    expect(nextPosition('ArrowRight', { row: 1, day: 2 }, 2, 3)).toEqual({ row: 1, day: 2 });
    expect(nextPosition('PageDown', { row: 0, day: 1 }, 2, 3)).toEqual({ row: 1, day: 1 });
    expect(nextPosition('End', { row: 0, day: 0 }, 2, 3, true)).toEqual({ row: 1, day: 2 });
    expect(nextPosition('a', { row: 0, day: 0 }, 2, 3)).toBeNull();
  });

  it('gives every state its own symbol and fill, and no two reds', () => {
    const symbols = DAY_STATES.map((state) => DAY_STYLES[state].symbol);
    const fills = DAY_STATES.map((state) => DAY_STYLES[state].fill);
    expect(new Set(symbols).size).toBe(DAY_STATES.length);
    expect(new Set(fills).size).toBe(DAY_STATES.length);
    const reddish = fills.filter((fill) => {
      const [r, g, b] = [1, 3, 5].map((i) => parseInt(fill.slice(i, i + 2), 16));
      return r! > 150 && g! < 110 && b! < 110;
    });
    expect(reddish).toEqual([]);
  });

  it('symbols are readable on their fills (contrast at least 4.5:1)', () => {
    const luminance = (hex: string) => {
      const [r, g, b] = [1, 3, 5]
        .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
        .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    for (const state of DAY_STATES) {
      const [a, b] = [luminance(DAY_STYLES[state].fill), luminance(DAY_STYLES[state].ink)];
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      expect(ratio, state).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('the strip says its days in words', () => {
    expect(stripText(['valid', 'valid', 'partial', 'missing'], [])).toBe(
      `Last 4 days: 2 ${DAY_STATE_LABELS.valid.toLowerCase()}, 1 below threshold, 1 no data`,
    );
    expect(stripText(['missing'], ['Needs re-consent'])).toBe(
      'Last 1 days: 1 no data. Needs attention: Needs re-consent',
    );
  });
});
