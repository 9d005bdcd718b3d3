import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/react';
import {
  EMPTY_FITBIT_QUERY,
  FITBIT_DATE_MESSAGES,
  FITBIT_QUERY_MESSAGES,
  fitbitResourcePaths,
  type FitbitQueryForm as Query,
} from '@trialpulse/shared/device-data/fitbit-query';
import { FitbitQueryForm } from './fitbit-query-form';

const TODAY = '2026-11-20';

function setup(initial: Query = EMPTY_FITBIT_QUERY) {
  const onSubmit = vi.fn();
  render(<FitbitQueryForm initial={initial} onSubmit={onSubmit} today={TODAY} />);
  const select = (label: RegExp, value: string) =>
    fireEvent.change(screen.getByLabelText(label), { target: { value } });
  const lastQuery = () => onSubmit.mock.calls.at(-1)?.[0] as Query | undefined;
  return { onSubmit, select, lastQuery };
}

const M = FITBIT_QUERY_MESSAGES;

describe('Fitbit query form: category defaults (device-data §4)', () => {
  const cases = [
    [
      'activities',
      'activityResourcePath',
      'distance',
      'activities/distance/date/2026-11-14/2026-11-20.json',
    ],
    ['body', 'bodyResourcePath', 'weight', 'body/log/weight/date/2026-11-14/2026-11-20.json'],
    [
      'heart',
      'heartOptions',
      'restingHeartRate',
      'activities/heart/date/2026-11-14/2026-11-20.json',
    ],
    ['sleep', 'sleepOptions', 'duration', 'sleep/date/2026-11-14/2026-11-20.json'],
    ['foods', 'foodsOptions', 'caloriesIn', 'foods/log/caloriesIn/date/2026-11-14/2026-11-20.json'],
    ['healthMetrics', 'healthMetricsOptions', 'spo2', 'spo2/date/2026-11-14/2026-11-20.json'],
  ] as const;

  it.each(cases)(
    'choosing %s submits its default %s=%s with period 7d at once',
    (category, field, option, path) => {
      const { onSubmit, select, lastQuery } = setup();
      select(/^Category/, category);
      expect(onSubmit).toHaveBeenCalledTimes(1);
      const query = lastQuery()!;
      expect(query.category).toBe(category);
      expect(query[field]).toBe(option);
      expect(query.period).toBe('7d');
      expect(query.maxActivityLogs).toBe('1');
      expect(query.maxSleepLogs).toBe('10');
      expect(fitbitResourcePaths(query, TODAY)).toEqual([path]);
    },
  );

  it('a new category resets the options of the one before', () => {
    const { select, lastQuery } = setup();
    select(/^Category/, 'activities');
    select(/^Resource/, 'steps');
    select(/^Period/, '30d');
    expect(lastQuery()).toMatchObject({ activityResourcePath: 'steps', period: '30d' });
    select(/^Category/, 'heart');
    expect(lastQuery()).toMatchObject({
      category: 'heart',
      activityResourcePath: '',
      heartOptions: 'restingHeartRate',
      period: '7d',
    });
  });

  it('any option change re-submits', () => {
    const { onSubmit, select, lastQuery } = setup();
    select(/^Category/, 'activities');
    select(/^Resource/, 'steps');
    select(/^Period/, '1m');
    expect(onSubmit).toHaveBeenCalledTimes(3);
    expect(fitbitResourcePaths(lastQuery()!, TODAY)).toEqual([
      'activities/steps/date/2026-10-21/2026-11-20.json',
    ]);
  });

  it('VO2 max offers only 1d, 7d and 30d; sleep up to 3m; health metrics up to 30d', () => {
    const { select } = setup();
    const periods = () =>
      [...(screen.getByLabelText(/^Period/) as HTMLSelectElement).options]
        .map((option) => option.value)
        .filter(Boolean);
    select(/^Category/, 'healthMetrics');
    expect(periods()).toEqual(['1d', '7d', '30d', 'customDates']);
    select(/^Health Metrics Option/, 'vo2max');
    expect(periods()).toEqual(['1d', '7d', '30d']);
    select(/^Category/, 'sleep');
    expect(periods()).toEqual(['1d', '7d', '30d', '1m', '3m', 'customDates']);
    select(/^Category/, 'activities');
    expect(periods()).toEqual(['1d', '7d', '30d', '1m', '3m', '6m', '1y', 'customDates']);
  });
});

describe('Fitbit query form: every §5 message, and nothing sent', () => {
  it(M.category, () => {
    const { onSubmit } = setup();
    fireEvent.click(screen.getByTestId('fitbit-query-submit'));
    expect(screen.getByText(M.category)).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it.each([
    ['activities', /^Resource/, M.resource],
    ['body', /^Resource/, M.resource],
    ['heart', /^Heart Option/, M.heartOption],
    ['sleep', /^Sleep Option/, M.sleepOption],
    ['foods', /^Foods Option/, M.foodsOption],
    ['healthMetrics', /^Health Metrics Option/, M.healthMetricsOption],
  ] as const)('%s without its option: %s', (category, label, message) => {
    const { onSubmit, select } = setup();
    select(/^Category/, category);
    onSubmit.mockClear();
    select(label, '');
    expect(screen.getByText(message)).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it(M.period, () => {
    const { onSubmit, select } = setup();
    select(/^Category/, 'activities');
    onSubmit.mockClear();
    select(/^Period/, '');
    expect(screen.getByText(M.period)).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it(`${M.startDate} / ${M.endDate}`, () => {
    const { onSubmit, select } = setup();
    select(/^Category/, 'activities');
    onSubmit.mockClear();
    select(/^Period/, 'customDates');
    expect(screen.getByText(M.startDate)).toBeTruthy();
    expect(screen.getByText(M.endDate)).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
    select(/^Start Date/, '2026-11-01');
    expect(screen.queryByText(M.startDate)).toBeNull();
    select(/^End Date/, '2026-11-10');
    expect(onSubmit).toHaveBeenCalledTimes(1);
  });

  it('date pickers: no date after today, start not after end', () => {
    const { onSubmit, select } = setup();
    select(/^Category/, 'activities');
    select(/^Period/, 'customDates');
    onSubmit.mockClear();
    expect((screen.getByLabelText(/^End Date/) as HTMLInputElement).max).toBe(TODAY);
    select(/^Start Date/, '2026-11-10');
    select(/^End Date/, '2026-11-21');
    expect(screen.getByText(FITBIT_DATE_MESSAGES.future)).toBeTruthy();
    select(/^End Date/, '2026-11-05');
    expect(screen.getByText(FITBIT_DATE_MESSAGES.startAfterEnd)).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it(`${M.beforeOrAfterDate} (activity logs)`, () => {
    const { onSubmit, select } = setup();
    select(/^Category/, 'activities');
    onSubmit.mockClear();
    select(/^Resource/, 'activityLogs');
    expect(screen.getByText(M.beforeOrAfterDate)).toBeTruthy();
    expect(screen.getByText(M.startDate)).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it(`${M.maxActivityLogs} (default 1)`, () => {
    const { onSubmit, select, lastQuery } = setup();
    select(/^Category/, 'activities');
    select(/^Resource/, 'activityLogs');
    select(/^Before or after/, 'before');
    select(/^Date/, '2026-11-19');
    expect(fitbitResourcePaths(lastQuery()!, TODAY)).toEqual([
      'activities/list.json?beforeDate=2026-11-19&sort=desc&offset=0&limit=1',
    ]);
    onSubmit.mockClear();
    select(/^Max activity logs/, '');
    expect(screen.getByText(M.maxActivityLogs)).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it(`${M.maxSleepLogs} (default 10)`, () => {
    const { onSubmit, select, lastQuery } = setup();
    select(/^Category/, 'sleep');
    select(/^Sleep Option/, 'sleepLogs');
    select(/^Before or after/, 'after');
    select(/^Date/, '2026-11-01');
    expect(fitbitResourcePaths(lastQuery()!, TODAY)).toEqual([
      'sleep/list.json?afterDate=2026-11-01&sort=asc&offset=0&limit=10',
    ]);
    onSubmit.mockClear();
    select(/^Max sleep logs/, '');
    expect(screen.getByText(M.maxSleepLogs)).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it(M.includeTimeAndStartTime, () => {
    const { onSubmit, select, lastQuery } = setup();
    select(/^Category/, 'activities');
    select(/^Resource/, 'activityLogs');
    select(/^Before or after/, 'after');
    select(/^Date/, '2026-11-01');
    onSubmit.mockClear();
    fireEvent.click(screen.getByLabelText('Include time'));
    expect(screen.getByText(M.includeTimeAndStartTime)).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
    select(/^Start Time/, '08:30');
    expect(fitbitResourcePaths(lastQuery()!, TODAY)).toEqual([
      'activities/list.json?afterDate=2026-11-01T08:30:00&sort=asc&offset=0&limit=1',
    ]);
  });

  it(`${M.startAndEndTime} (heart rate of one day, with its detail level)`, () => {
    const { onSubmit, select, lastQuery } = setup();
    select(/^Category/, 'heart');
    select(/^Heart Option/, 'intraday');
    select(/^Heart detail level/, '1sec');
    expect(fitbitResourcePaths(lastQuery()!, TODAY)).toEqual([
      'activities/heart/date/2026-11-20/1d/1sec.json',
    ]);
    onSubmit.mockClear();
    fireEvent.click(screen.getByLabelText('Include time'));
    expect(screen.getByText(M.startAndEndTime)).toBeTruthy();
    select(/^Start Time/, '08:00');
    expect(screen.getByText(M.startAndEndTime)).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
    select(/^End Time/, '12:00');
    expect(fitbitResourcePaths(lastQuery()!, TODAY)).toEqual([
      'activities/heart/date/2026-11-20/1d/1sec/time/08:00/12:00.json',
    ]);
  });

  it('active minutes asks the three tracker series', () => {
    const { select, lastQuery } = setup();
    select(/^Category/, 'activities');
    select(/^Resource/, 'activeMinutes');
    expect(fitbitResourcePaths(lastQuery()!, TODAY)).toEqual([
      'activities/tracker/minutesLightlyActive/date/2026-11-14/2026-11-20.json',
      'activities/tracker/minutesFairlyActive/date/2026-11-14/2026-11-20.json',
      'activities/tracker/minutesVeryActive/date/2026-11-14/2026-11-20.json',
    ]);
  });
});

describe('Fitbit query form: date shortcuts (decisions 0166, 0190)', () => {
  it('7 and 30 days choose the §9 period, 14 and 90 days custom dates; each submits', () => {
    const { select, lastQuery } = setup();
    select(/^Category/, 'activities');
    // The category's default 7d is the last 7 days.
    expect(screen.getByTestId('fitbit-shortcuts-7').getAttribute('aria-pressed')).toBe('true');

    fireEvent.click(screen.getByTestId('fitbit-shortcuts-14'));
    expect(lastQuery()).toMatchObject({
      period: 'customDates',
      startDate: '2026-11-07',
      endDate: '2026-11-20',
    });
    expect(screen.getByLabelText(/^Start Date/)).toHaveProperty('value', '2026-11-07');
    expect(screen.getByTestId('fitbit-shortcuts-14').getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByTestId('fitbit-shortcuts-7').getAttribute('aria-pressed')).toBe('false');

    fireEvent.click(screen.getByTestId('fitbit-shortcuts-30'));
    expect(lastQuery()!.period).toBe('30d');
    expect(fitbitResourcePaths(lastQuery()!, TODAY)).toEqual([
      'activities/distance/date/2026-10-22/2026-11-20.json',
    ]);

    fireEvent.click(screen.getByTestId('fitbit-shortcuts-90'));
    expect(fitbitResourcePaths(lastQuery()!, TODAY)).toEqual([
      'activities/distance/date/2026-08-23/2026-11-20.json',
    ]);
  });

  it('offers only what the option can ask: SpO2 up to 30 days, VO2 max 7 and 30, none for logs', () => {
    const { select } = setup();
    const offered = () =>
      [7, 14, 30, 90].filter((days) => screen.queryByTestId(`fitbit-shortcuts-${days}`));
    select(/^Category/, 'healthMetrics');
    expect(offered()).toEqual([7, 14, 30]);
    select(/^Health Metrics Option/, 'vo2max');
    expect(offered()).toEqual([7, 30]);
    select(/^Category/, 'sleep');
    select(/^Sleep Option/, 'sleepLogs');
    expect(screen.queryByTestId('fitbit-shortcuts')).toBeNull();
    select(/^Category/, '');
    expect(screen.queryByTestId('fitbit-shortcuts')).toBeNull();
  });
});
