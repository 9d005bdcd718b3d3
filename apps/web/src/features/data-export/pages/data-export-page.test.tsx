import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { EXPORT_MESSAGES, addYears, localToday, type ExportJob } from '@trialpulse/shared';
import { baseHandlers, errorBody, makeUser, mockApi } from '@/testing/mock-api';
import { writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';

const today = localToday();
const daysAgo = (days: number) => {
  const date = new Date(`${today}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - days);
  return date.toISOString().slice(0, 10);
};

function job(id: number, status: ExportJob['status'], extra: Partial<ExportJob> = {}): ExportJob {
  return {
    id,
    status,
    job_params: { fileName: `export ${id}`, startDate: daysAgo(30), endDate: daysAgo(1), participantIds: [1], metrics: ['steps'], exportMode: 'separate-tabs', format: 'csv', extras: [] },
    created_at: '2026-11-20T10:00:00.000Z',
    file_size: null,
    error_message: null,
    progress: 0,
    expires_at: null,
    ...extra,
  };
}

const JOBS = [
  job(3, 'completed', { file_size: 1536, progress: 100 }),
  job(2, 'processing', { progress: 42 }),
  job(1, 'failed', { error_message: 'The export failed. Please try again.' }),
];

async function open(overrides: Record<string, unknown> = {}) {
  const api = mockApi({
    ...baseHandlers({ kind: 'signed-in', user: makeUser({ role: 'User' }) }),
    'GET /api/dataExport/trials': { body: [{ trialId: 7, trialName: 'Sleep', trialNumber: 'SLP-1' }] },
    'GET /api/dataExport/devices': { body: [{ id: 5, friendlyName: 'Fitbit Smartwatches & Trackers', brand: 'Fitbit', deviceType: 'TRACKER' }] },
    'GET /api/dataExport/trials/7/participants/5': {
      body: [
        { participantId: 1, participantCode: 'SLP-001' },
        { participantId: 2, participantCode: 'SLP-002' },
        { participantId: 3, participantCode: 'OTHER-003' },
      ],
    },
    'GET /api/dataExport/metrics/5': {
      body: [
        { metric_key: 'steps', metric_name: 'Steps', category: 'activity', units: 'steps' },
        { metric_key: 'heart_rate', metric_name: 'Heart Rate', category: 'heart', units: 'bpm' },
      ],
    },
    'GET /api/dataExport/jobs': { body: { success: true, data: JOBS, total: 3 } },
    'POST /api/dataExport/batchDataExport': { body: { success: true, message: EXPORT_MESSAGES.created, jobId: 4 } },
    'DELETE /api/dataExport/jobs/2': { body: { success: true, message: EXPORT_MESSAGES.cancelled } },
    ...overrides,
  });
  renderApp('/DataExport');
  await screen.findByTestId('export-form', {}, { timeout: 15_000 });
  return api;
}

async function choose(testId: string, option: RegExp) {
  const input = screen.getByTestId(testId);
  fireEvent.mouseDown(within(input.parentElement!).getByRole('combobox'));
  fireEvent.click(await screen.findByRole('option', { name: option }));
  await waitFor(() => expect(screen.queryByRole('listbox')).toBeNull());
}

const setValue = (testId: string, value: string) => fireEvent.change(screen.getByTestId(testId), { target: { value } });
const submitAndRead = async () => {
  fireEvent.click(screen.getByTestId('export-submit'));
  return (await screen.findByTestId('export-error')).textContent;
};

describe('/DataExport', () => {
  it('shows every §5 message in turn and sends nothing until the request is valid', async () => {
    const { calls } = await open();
    expect(await submitAndRead()).toBe(EXPORT_MESSAGES.trialRequired);
    await choose('export-trial', /Sleep/);
    expect(await submitAndRead()).toBe(EXPORT_MESSAGES.deviceRequired);
    await choose('export-device', /Fitbit Smartwatches/);
    await screen.findByTestId('export-participant-SLP-001');
    expect(await submitAndRead()).toBe(EXPORT_MESSAGES.participantRequired);

    // Search, then select all shown: only the two SLP participants.
    setValue('export-participant-search', 'slp');
    fireEvent.click(screen.getByTestId('export-select-all'));
    expect(screen.queryByTestId('export-participant-OTHER-003')).toBeNull();
    expect(await submitAndRead()).toBe(EXPORT_MESSAGES.datesRequired);

    setValue('export-start-date', daysAgo(1));
    setValue('export-end-date', daysAgo(5));
    expect(await submitAndRead()).toBe(EXPORT_MESSAGES.startAfterEnd);
    setValue('export-start-date', daysAgo(400));
    setValue('export-end-date', daysAgo(1));
    expect(await submitAndRead()).toBe(EXPORT_MESSAGES.rangeTooLong);
    setValue('export-start-date', daysAgo(367));
    setValue('export-end-date', daysAgo(366));
    expect(addYears(today, -1) > daysAgo(367)).toBe(true);
    expect(await submitAndRead()).toBe(EXPORT_MESSAGES.startTooEarly);
    setValue('export-start-date', daysAgo(2));
    setValue('export-end-date', (() => {
      const date = new Date(`${today}T00:00:00Z`);
      date.setUTCDate(date.getUTCDate() + 1);
      return date.toISOString().slice(0, 10);
    })());
    expect(await submitAndRead()).toBe(EXPORT_MESSAGES.endInFuture);
    setValue('export-start-date', daysAgo(30));
    setValue('export-end-date', daysAgo(1));
    expect(await submitAndRead()).toBe(EXPORT_MESSAGES.metricRequired);
    await screen.findByTestId('export-metric-steps');
    fireEvent.click(screen.getByTestId('export-metric-steps'));
    fireEvent.click(screen.getByTestId('export-metric-heart_rate'));
    expect(await submitAndRead()).toBe(EXPORT_MESSAGES.fileNameRequired);
    expect(writes(calls).filter((call) => call.url.includes('batchDataExport'))).toEqual([]);

    setValue('export-file-name', 'Sleep 30 days');
    fireEvent.click(screen.getByTestId('export-submit'));
    await waitFor(() => expect(writes(calls).filter((call) => call.url.includes('batchDataExport'))).toHaveLength(1));
    expect(writes(calls).find((call) => call.url.includes('batchDataExport'))!.body).toEqual({
      trialId: 7,
      deviceId: 5,
      participantIds: [1, 2],
      startDate: daysAgo(30),
      endDate: daysAgo(1),
      metrics: ['steps', 'heart_rate'],
      fileName: 'Sleep 30 days',
      exportMode: 'separate-tabs',
      format: 'csv',
      extras: [],
    });
    expect(await screen.findByText(EXPORT_MESSAGES.created)).toBeTruthy();
  });

  it('shows the §8 texts when the server refuses', async () => {
    await open({ 'POST /api/dataExport/batchDataExport': { status: 503, body: errorBody(EXPORT_MESSAGES.createFailed, true, 'X') } });
    await choose('export-trial', /Sleep/);
    await choose('export-device', /Fitbit Smartwatches/);
    fireEvent.click(await screen.findByTestId('export-participant-SLP-001'));
    setValue('export-start-date', daysAgo(3));
    setValue('export-end-date', daysAgo(1));
    fireEvent.click(await screen.findByTestId('export-metric-steps'));
    setValue('export-file-name', 'x');
    expect(await submitAndRead()).toBe('Server error (503). Please try again or contact support.');
  });

  it('My Exports: status, progress, size in KB, the error of a failed job, Download / Delete / Cancel', async () => {
    const { calls } = await open();
    const completed = await screen.findByTestId('export-job-3');
    expect(within(completed).getByTestId('export-job-size').textContent).toBe('1.5 KB');
    const download = within(completed).getByTestId('export-job-download');
    expect(download.getAttribute('href')).toBe('/api/dataExport/jobs/3/download');
    expect(download.getAttribute('target')).toBe('_blank');
    expect(within(completed).getByTestId('export-job-delete')).toBeTruthy();
    expect(within(completed).queryByTestId('export-job-cancel')).toBeNull();

    const processing = screen.getByTestId('export-job-2');
    expect(processing.textContent).toContain('42%');
    expect(within(processing).queryByTestId('export-job-download')).toBeNull();
    const failed = screen.getByTestId('export-job-1');
    expect(within(failed).getByTestId('export-job-error').textContent).toBe('The export failed. Please try again.');
    expect(within(failed).queryByTestId('export-job-download')).toBeNull();

    fireEvent.click(within(processing).getByTestId('export-job-cancel'));
    await waitFor(() => expect(writes(calls).some((call) => call.method === 'DELETE' && call.url === '/api/dataExport/jobs/2')).toBe(true));
    expect(calls.find((call) => call.url.startsWith('/api/dataExport/jobs?'))?.url).toBe('/api/dataExport/jobs?limit=10');
  });
});
