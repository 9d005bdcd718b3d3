import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import {
  ERROR_REASONS,
  EXPORT_MESSAGES,
  LIMITS,
  TRIAL_MESSAGES,
  addYears,
  localToday,
  type ExportJob,
} from '@trialpulse/shared';
import { baseHandlers, errorBody, makeUser, mockApi, type RecordedCall } from '@/testing/mock-api';
import { TEST_NOW, freezeDateAt } from '@/testing/clock';
import { writes } from '@/testing/form';
import { renderApp } from '@/testing/render-app';

// The form checks dates against the browser's today: the tests run on a fixed one (TEST_NOW).
const today = localToday(TEST_NOW);
const daysAgo = (days: number) => {
  const date = new Date(`${today}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - days);
  return date.toISOString().slice(0, 10);
};

function job(id: number, status: ExportJob['status'], extra: Partial<ExportJob> = {}): ExportJob {
  return {
    id,
    status,
    job_params: {
      fileName: `export ${id}`,
      startDate: daysAgo(30),
      endDate: daysAgo(1),
      participantIds: [1],
      metrics: ['steps'],
      exportMode: 'separate-tabs',
      format: 'csv',
      extras: [],
    },
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
    'GET /api/dataExport/trials': {
      body: [{ trialId: 7, trialName: 'Sleep', trialNumber: 'SLP-1' }],
    },
    'GET /api/dataExport/devices': {
      body: [
        {
          id: 5,
          friendlyName: 'Fitbit Smartwatches & Trackers',
          brand: 'Fitbit',
          deviceType: 'TRACKER',
        },
      ],
    },
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
    'POST /api/dataExport/batchDataExport': {
      body: { success: true, message: EXPORT_MESSAGES.created, jobId: 4 },
    },
    'DELETE /api/dataExport/jobs/2': {
      body: { success: true, message: EXPORT_MESSAGES.cancelled },
    },
    ...overrides,
  });
  renderApp('/DataExport');
  await screen.findByTestId('export-form', {}, { timeout: 60_000 });
  return api;
}

/** The open select's list (its role is an attribute: no accessibility-tree walk of the page). */
const openListbox = () => document.querySelector<HTMLElement>('[role="listbox"]');

async function choose(testId: string, option: RegExp) {
  const input = screen.getByTestId(testId);
  fireEvent.mouseDown(within(input.parentElement!).getByRole('combobox'));
  const listbox = await waitFor(() => {
    const open = openListbox();
    if (!open) throw new Error('no list open');
    return open;
  });
  fireEvent.click(within(listbox).getByRole('option', { name: option }));
  await waitFor(() => expect(openListbox()).toBeNull());
}

const setValue = (testId: string, value: string) =>
  fireEvent.change(screen.getByTestId(testId), { target: { value } });
/** Submits and answers the first message shown (the form shows every problem at once). */
const submitAndRead = async () => (await submitAndReadAll())[0];
const submitAndReadAll = async () => {
  fireEvent.click(screen.getByTestId('export-submit'));
  await screen.findByTestId('export-error');
  return screen.getAllByTestId('export-error-message').map((item) => item.textContent);
};

/** A valid request: trial, device, participant SLP-001, the last three days, steps, file name "x". */
async function fillValidForm() {
  await choose('export-trial', /Sleep/);
  await choose('export-device', /Fitbit Smartwatches/);
  fireEvent.click(await screen.findByTestId('export-participant-SLP-001'));
  setValue('export-start-date', daysAgo(3));
  setValue('export-end-date', daysAgo(1));
  fireEvent.click(await screen.findByTestId('export-metric-steps'));
  setValue('export-file-name', 'x');
}

const exportPosts = (calls: RecordedCall[]) =>
  writes(calls).filter((call) => call.url === '/api/dataExport/batchDataExport');
const jobsReads = (calls: RecordedCall[]) =>
  calls.filter((call) => call.method === 'GET' && call.url.startsWith('/api/dataExport/jobs?'));
const networkFailure = () => {
  throw new TypeError('Failed to fetch');
};

describe('/DataExport', () => {
  beforeEach(() => freezeDateAt(TEST_NOW));
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows a metric the team does not store disabled, with why', async () => {
    await open({
      'GET /api/dataExport/metrics/5': {
        body: [
          {
            metric_key: 'steps',
            metric_name: 'Steps',
            category: 'activity',
            units: 'steps',
            stored: true,
          },
          {
            metric_key: 'calories',
            metric_name: 'Calories',
            category: 'activity',
            units: 'kcal',
            stored: false,
          },
        ],
      },
    });
    await choose('export-trial', /Sleep/);
    await choose('export-device', /Fitbit Smartwatches/);
    const calories = (await screen.findByTestId('export-metric-calories')) as HTMLInputElement;
    expect(calories.disabled).toBe(true);
    expect((screen.getByTestId('export-metric-steps') as HTMLInputElement).disabled).toBe(false);
    expect(screen.getByTestId('export-metric-reason-calories').textContent).toBe(
      EXPORT_MESSAGES.metricNotStored,
    );
  });

  it('the 7 / 14 / 30 / 90 days shortcuts set both dates, ending today, and send nothing', async () => {
    const { calls } = await open();
    const start = () => (screen.getByTestId('export-start-date') as HTMLInputElement).value;
    const end = () => (screen.getByTestId('export-end-date') as HTMLInputElement).value;
    for (const days of [7, 14, 30, 90]) {
      fireEvent.click(screen.getByRole('button', { name: `Last ${days} days` }));
      expect([start(), end()]).toEqual([daysAgo(days - 1), today]);
      expect(screen.getByTestId(`export-date-shortcuts-${days}`).getAttribute('aria-pressed')).toBe(
        'true',
      );
    }
    // A typed range equal to a shortcut's marks it too; the form's own checks still apply.
    setValue('export-start-date', daysAgo(13));
    expect(screen.getByTestId('export-date-shortcuts-14').getAttribute('aria-pressed')).toBe(
      'true',
    );
    expect(screen.getByTestId('export-date-shortcuts-90').getAttribute('aria-pressed')).toBe(
      'false',
    );
    expect(await submitAndReadAll()).not.toContain(EXPORT_MESSAGES.datesRequired);
    expect(exportPosts(calls)).toEqual([]);
  });

  it('shows every problem of the form at once, in the shared messages', async () => {
    const { calls } = await open();
    expect(await submitAndReadAll()).toEqual([
      EXPORT_MESSAGES.trialRequired,
      EXPORT_MESSAGES.deviceRequired,
      EXPORT_MESSAGES.participantRequired,
      EXPORT_MESSAGES.datesRequired,
      EXPORT_MESSAGES.metricRequired,
      EXPORT_MESSAGES.fileNameRequired,
    ]);
    expect(writes(calls).filter((call) => call.url.includes('batchDataExport'))).toEqual([]);
  });

  it('shows every §5 message in turn and sends nothing until the request is valid', async () => {
    // My Exports polls every 10 s (§9): on a slow run polls would read the list again and
    // hide whether creating the job refreshed it (two reads expected), so the poll is put out of this test's reach.
    const pollMs = LIMITS.exportJobsPollMs;
    (LIMITS as { exportJobsPollMs: number }).exportJobsPollMs = 24 * 60 * 60 * 1000;
    onTestFinished(() => {
      (LIMITS as { exportJobsPollMs: number }).exportJobsPollMs = pollMs;
    });
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
    setValue(
      'export-end-date',
      (() => {
        const date = new Date(`${today}T00:00:00Z`);
        date.setUTCDate(date.getUTCDate() + 1);
        return date.toISOString().slice(0, 10);
      })(),
    );
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
    await waitFor(() =>
      expect(writes(calls).filter((call) => call.url.includes('batchDataExport'))).toHaveLength(1),
    );
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
    await screen.findByText(EXPORT_MESSAGES.created);
    // The new job shows in My Exports without waiting for the next poll.
    await waitFor(() => expect(jobsReads(calls)).toHaveLength(2));
  });

  it('sends single-tab mode, XLSX and the optional formats the form offers', async () => {
    const { calls } = await open();
    await fillValidForm();
    // By their labels: a role query walks the accessibility tree of the whole page each time.
    const labelled = (name: string, type: 'radio' | 'checkbox') => {
      const input = screen.getByLabelText<HTMLInputElement>(name);
      expect(input.type).toBe(type);
      return input;
    };
    fireEvent.click(labelled('Single tab (one long table)', 'radio'));
    fireEvent.click(labelled('XLSX', 'radio'));
    fireEvent.click(labelled('FHIR R4 Observations (NDJSON, LOINC)', 'checkbox'));
    fireEvent.click(labelled('Open mHealth JSON', 'checkbox'));
    fireEvent.click(labelled('Adherence per participant and day', 'checkbox'));
    fireEvent.click(screen.getByTestId('export-submit'));
    await waitFor(() => expect(exportPosts(calls)).toHaveLength(1));
    expect(exportPosts(calls)[0]!.body).toEqual({
      trialId: 7,
      deviceId: 5,
      participantIds: [1],
      startDate: daysAgo(3),
      endDate: daysAgo(1),
      metrics: ['steps'],
      fileName: 'x',
      exportMode: 'single-tab',
      format: 'xlsx',
      extras: ['fhir', 'openmhealth', 'adherence'],
    });
  });

  it('sends Parquet with the same rules: the export mode does not apply to it (decision 0250)', async () => {
    const { calls } = await open();
    const parquet = screen.getByLabelText<HTMLInputElement>('Parquet');
    expect(parquet.type).toBe('radio');
    fireEvent.click(parquet);
    expect(screen.getByTestId('export-parquet-note').textContent).toContain('One file per metric');
    expect(screen.getByLabelText<HTMLInputElement>('Single tab (one long table)').disabled).toBe(
      true,
    );
    // An empty form: the §5 messages as for CSV, nothing sent.
    fireEvent.click(screen.getByTestId('export-submit'));
    expect(
      (await screen.findAllByTestId('export-error-message')).map((item) => item.textContent),
    ).toContain(EXPORT_MESSAGES.participantRequired);
    expect(exportPosts(calls)).toHaveLength(0);
    await fillValidForm();
    fireEvent.click(screen.getByTestId('export-submit'));
    await waitFor(() => expect(exportPosts(calls)).toHaveLength(1));
    expect(exportPosts(calls)[0]!.body).toMatchObject({ format: 'parquet', metrics: ['steps'] });
  });

  it.each([
    [
      'a 5xx',
      { status: 503, body: errorBody(EXPORT_MESSAGES.createFailed, true, 'X') },
      'Server error (503). Please try again or contact support.',
    ],
    [
      "the server's 404 for a route it lacks",
      {
        status: 404,
        body: errorBody(
          'Route POST /api/dataExport/batchDataExport not found.',
          true,
          ERROR_REASONS.routeNotFound,
        ),
      },
      EXPORT_MESSAGES.endpointNotFound,
    ],
    [
      'a 404 for a trial that is gone',
      { status: 404, body: errorBody(TRIAL_MESSAGES.notFound, true, ERROR_REASONS.notFound) },
      TRIAL_MESSAGES.notFound,
    ],
    [
      'a bare 404 (a proxy)',
      () => new Response(null, { status: 404 }),
      EXPORT_MESSAGES.endpointNotFound,
    ],
    [
      'a 403',
      {
        status: 403,
        body: errorBody('You do not have access to this resource.', true, 'FORBIDDEN'),
      },
      EXPORT_MESSAGES.authError,
    ],
    ['no answer (network failure)', networkFailure, EXPORT_MESSAGES.unreachable],
    [
      'a refusal not meant for users',
      { status: 409, body: errorBody('internal detail', false, 'CONFLICT') },
      EXPORT_MESSAGES.createFailed,
    ],
  ])(
    'shows the §8 text under the form when creating the job fails: %s',
    async (_case, reply, expected) => {
      const { calls } = await open({ 'POST /api/dataExport/batchDataExport': reply });
      await fillValidForm();
      expect(await submitAndRead()).toBe(expected);
      expect(exportPosts(calls)).toHaveLength(1);
      expect(screen.queryByText(EXPORT_MESSAGES.created)).toBeNull();
    },
  );

  it.each([
    ['trials', 'GET /api/dataExport/trials'],
    ['devices', 'GET /api/dataExport/devices'],
    ['participants', 'GET /api/dataExport/trials/7/participants/5'],
    ['metrics', 'GET /api/dataExport/metrics/5'],
  ] as const)(
    'shows "Failed to load %s" above the form when its list cannot be loaded',
    async (what, call) => {
      await open({
        [call]: { status: 500, body: errorBody('An error occurred.', false, 'INTERNAL_ERROR') },
      });
      if (what === 'participants' || what === 'metrics') {
        expect(screen.queryByTestId('export-load-error')).toBeNull();
        await choose('export-trial', /Sleep/);
        await choose('export-device', /Fitbit Smartwatches/);
      }
      expect((await screen.findByTestId('export-load-error')).textContent).toBe(
        EXPORT_MESSAGES.loadFailed(what),
      );
      expect(EXPORT_MESSAGES.loadFailed(what)).toBe(`Failed to load ${what}. Please try again.`);
    },
  );

  it('My Exports shows the §8 text when the jobs list cannot be loaded', async () => {
    await open({ 'GET /api/dataExport/jobs': networkFailure });
    const panel = screen.getByTestId('my-exports');
    await within(panel).findByText(EXPORT_MESSAGES.unreachable);
    expect(within(panel).queryByTestId('export-job-3')).toBeNull();
  });

  it('says "Authentication error" when deleting a job is refused with 403', async () => {
    await open({
      'DELETE /api/dataExport/jobs/3': {
        status: 403,
        body: errorBody('You do not have access to this resource.', true, 'FORBIDDEN'),
      },
    });
    fireEvent.click(
      within(await screen.findByTestId('export-job-3')).getByTestId('export-job-delete'),
    );
    await screen.findByText(EXPORT_MESSAGES.authError);
    expect(screen.getByTestId('export-job-3').getAttribute('data-status')).toBe('completed');
  });

  it.each([
    [
      'the job is gone',
      { status: 404, body: errorBody(EXPORT_MESSAGES.jobNotFound, true, ERROR_REASONS.notFound) },
      EXPORT_MESSAGES.jobNotFound,
    ],
    [
      'the server has no such route',
      {
        status: 404,
        body: errorBody(
          'Route DELETE /api/dataExport/jobs/3 not found.',
          true,
          ERROR_REASONS.routeNotFound,
        ),
      },
      EXPORT_MESSAGES.endpointNotFound,
    ],
  ])('says the §8 text when deleting a job answers 404: %s', async (_case, reply, expected) => {
    await open({ 'DELETE /api/dataExport/jobs/3': reply });
    fireEvent.click(
      within(await screen.findByTestId('export-job-3')).getByTestId('export-job-delete'),
    );
    await screen.findByText(expected);
  });

  it('My Exports: status, progress, size in KB, the error of a failed job, Download / Delete / Cancel', async () => {
    const { calls } = await open();
    const completed = await screen.findByTestId('export-job-3');
    expect(within(completed).getByTestId('export-job-size').textContent).toBe('1.5 KB');
    const download = within(completed).getByTestId('export-job-download');
    expect(download.getAttribute('href')).toBe('/api/dataExport/jobs/3/download');
    expect(download.getAttribute('target')).toBe('_blank');
    expect(within(completed).getByTestId('export-job-delete').textContent).toBe('Delete');
    expect(within(completed).queryByTestId('export-job-cancel')).toBeNull();

    const processing = screen.getByTestId('export-job-2');
    expect(processing.textContent).toContain('42%');
    expect(within(processing).queryByTestId('export-job-download')).toBeNull();
    const failed = screen.getByTestId('export-job-1');
    expect(within(failed).getByTestId('export-job-error').textContent).toBe(
      'The export failed. Please try again.',
    );
    expect(within(failed).queryByTestId('export-job-download')).toBeNull();

    fireEvent.click(within(processing).getByTestId('export-job-cancel'));
    await waitFor(() =>
      expect(
        writes(calls).some(
          (call) => call.method === 'DELETE' && call.url === '/api/dataExport/jobs/2',
        ),
      ).toBe(true),
    );
    expect(calls.find((call) => call.url.startsWith('/api/dataExport/jobs?'))?.url).toBe(
      '/api/dataExport/jobs?limit=10',
    );
  });

  it('My Exports: file size in B, KB and MB with one decimal', async () => {
    const sized = [
      job(14, 'completed', { file_size: 512 }),
      job(13, 'completed', { file_size: 1536 }),
      job(12, 'completed', { file_size: 1024 * 1024 }),
      job(11, 'completed', { file_size: 2.5 * 1024 * 1024 }),
    ];
    await open({
      'GET /api/dataExport/jobs': { body: { success: true, data: sized, total: sized.length } },
    });
    await screen.findByTestId('export-job-14');
    const size = (id: number) =>
      within(screen.getByTestId(`export-job-${id}`)).getByTestId('export-job-size').textContent;
    expect([size(14), size(13), size(12), size(11)]).toEqual([
      '512 B',
      '1.5 KB',
      '1.0 MB',
      '2.5 MB',
    ]);
  });

  it('My Exports: Delete on a completed job sends DELETE /api/dataExport/jobs/{id} and the job leaves the list', async () => {
    let current = JOBS;
    const { calls } = await open({
      'GET /api/dataExport/jobs': () => ({
        body: { success: true, data: current, total: current.length },
      }),
      'DELETE /api/dataExport/jobs/3': () => {
        current = current.filter((item) => item.id !== 3);
        return { body: { success: true, message: EXPORT_MESSAGES.deleted } };
      },
    });
    fireEvent.click(
      within(await screen.findByTestId('export-job-3')).getByTestId('export-job-delete'),
    );
    await waitFor(() => expect(screen.queryByTestId('export-job-3')).toBeNull());
    expect(writes(calls).map((call) => `${call.method} ${call.url}`)).toEqual([
      'DELETE /api/dataExport/jobs/3',
    ]);
    await screen.findByText(EXPORT_MESSAGES.deleted);
    expect(
      within(screen.getByTestId('my-exports')).getByRole('heading', { level: 2 }).textContent,
    ).toBe('My Exports (2)');
    expect(screen.getByTestId('export-job-2').getAttribute('data-status')).toBe('processing');
  });
});

describe('/DataExport My Exports polling', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it(`refetches the jobs every ${LIMITS.exportJobsPollMs} ms while the panel is open, and not while it is closed`, async () => {
    expect(LIMITS.exportJobsPollMs).toBe(10_000);
    // Only intervals (the poll is TanStack Query's refetchInterval) and the date are fake;
    // the rest runs in real time. The date starts at TEST_NOW and moves with the intervals.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    vi.setSystemTime(TEST_NOW);
    const { calls, fetchMock } = await open();
    await screen.findByTestId('export-job-3');
    // Lets the answer of every read so far arrive (a poll while a read is still in flight
    // joins it): each mocked fetch has answered, then 100 ms (setTimeout is not faked) for
    // the client to take the answer, however slow a busy machine makes the answers.
    const settle = async () => {
      await Promise.allSettled(fetchMock.mock.results.map((result) => result.value));
      await new Promise((resolve) => setTimeout(resolve, 100));
    };
    const reads = () => jobsReads(calls).length;
    await settle();
    const first = reads();
    expect(first).toBe(1);

    vi.advanceTimersByTime(9_999);
    await settle();
    expect(reads()).toBe(1);
    vi.advanceTimersByTime(1);
    await vi.waitFor(() => expect(reads()).toBe(2));
    await settle();
    vi.advanceTimersByTime(10_000);
    await vi.waitFor(() => expect(reads()).toBe(3));
    await settle();
    expect(jobsReads(calls).every((call) => call.url === '/api/dataExport/jobs?limit=10')).toBe(
      true,
    );

    const summary = screen.getByRole('button', { name: /My Exports/ });
    fireEvent.click(summary);
    await waitFor(() => expect(summary.getAttribute('aria-expanded')).toBe('false'));
    vi.advanceTimersByTime(60_000);
    await settle();
    expect(reads()).toBe(3);

    // Opened again: read at once, then polled again.
    fireEvent.click(summary);
    await vi.waitFor(() => expect(reads()).toBe(4));
    await settle();
    vi.advanceTimersByTime(10_000);
    await vi.waitFor(() => expect(reads()).toBe(5));
  });
});
