import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import type { ExportJob } from '@trialpulse/shared';
import { baseHandlers, makeUser, mockApi } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render-app';
import { MyExportsPanel } from './my-exports-panel';

const job = (id: number): ExportJob => ({
  id,
  status: 'completed',
  job_params: {
    fileName: `export ${id}`,
    startDate: '2026-10-01',
    endDate: '2026-10-31',
    participantIds: [1],
    metrics: ['steps'],
    exportMode: 'separate-tabs',
    format: 'csv',
    extras: [],
  },
  created_at: '2026-11-20T10:00:00.000Z',
  file_size: 100,
  error_message: null,
  progress: 100,
  expires_at: null,
});

/** The server's answer: the latest `limit` of `total` jobs, newest first. */
function jobsApi(total: number) {
  return mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'User' }) }),
    'GET /api/dataExport/jobs': (call) => {
      const limit = Number(new URL(call.url, 'http://x').searchParams.get('limit'));
      const ids = Array.from({ length: Math.min(limit, total) }, (_, index) => total - index);
      return { body: { success: true, data: ids.map(job), total } };
    },
  });
}

const listed = () =>
  screen.getAllByTestId(/^export-job-\d+$/).map((row) => row.getAttribute('data-testid'));

describe('My Exports paging (issue 30, decision 0194)', () => {
  it('"My Exports (12)" lists 10 and pages on to the other 2, asking the latest 20', async () => {
    const { calls } = jobsApi(12);
    renderWithProviders(<MyExportsPanel />);
    expect(await screen.findByText('My Exports (12)')).toBeTruthy();
    await screen.findByTestId('export-job-12');
    expect(listed()).toHaveLength(10);
    expect(screen.getByText('1–10 of 12')).toBeTruthy();
    expect(calls.map((call) => call.url)).toContain('/api/dataExport/jobs?limit=10');

    fireEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
    await waitFor(() => expect(listed()).toEqual(['export-job-2', 'export-job-1']));
    expect(screen.getByText('11–12 of 12')).toBeTruthy();
    expect(calls.map((call) => call.url)).toContain('/api/dataExport/jobs?limit=20');
  });

  it('no pager for 10 or fewer; past 50 it says only the latest 50 are listed', async () => {
    jobsApi(7);
    const { unmount } = renderWithProviders(<MyExportsPanel />);
    await screen.findByTestId('export-job-7');
    expect(screen.queryByTestId('my-exports-pagination')).toBeNull();
    unmount();

    jobsApi(64);
    renderWithProviders(<MyExportsPanel />);
    await screen.findByTestId('export-job-64');
    expect(screen.getByText('1–10 of 50')).toBeTruthy();
    expect(screen.getByTestId('my-exports-latest').textContent).toBe(
      'The latest 50 of 64 exports are listed.',
    );
  });
});
