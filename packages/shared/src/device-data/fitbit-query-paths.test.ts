import { describe, expect, it } from 'vitest';
import {
  FITBIT_CATEGORIES,
  FITBIT_CATEGORY_OPTIONS,
  FITBIT_HEART_DETAIL_LEVELS,
  FITBIT_LOG_LIST_SUBJECTS,
  FITBIT_MAX_LOGS_CHOICES,
  fitbitResourcePaths,
  selectFitbitCategory,
  selectFitbitOption,
  validateFitbitQuery,
  type FitbitQueryForm,
} from './fitbit-query';
import { parseFitbitResourcePath } from './fitbit-resource-path';

/**
 * The glue between the data page's form and the server's parser: every query the form lets
 * through builds resource paths the server accepts (decision 0063).
 */

const TODAY = '2026-11-20';

/** Every query a user can send: category × option × period, with each variant the form offers. */
function everyQuery(): FitbitQueryForm[] {
  const queries: FitbitQueryForm[] = [];
  for (const category of FITBIT_CATEGORIES) {
    const options = FITBIT_CATEGORY_OPTIONS[category] as Record<
      string,
      { periods: readonly string[]; maxDays: number; shape: string }
    >;
    for (const [option, spec] of Object.entries(options)) {
      const base = selectFitbitOption(selectFitbitCategory(category), option);
      if (spec.shape === 'list') {
        for (const subject of FITBIT_LOG_LIST_SUBJECTS) {
          for (const max of FITBIT_MAX_LOGS_CHOICES) {
            for (const includeTime of [false, true]) {
              queries.push({
                ...base,
                period: '',
                subject,
                startDate: '2026-11-10',
                includeTime,
                startTime: includeTime ? '08:30' : '',
                maxActivityLogs: String(max),
                maxSleepLogs: String(max),
              });
            }
          }
        }
        continue;
      }
      for (const period of spec.periods) {
        const dated =
          period === 'customDates'
            ? [
                { startDate: TODAY, endDate: TODAY },
                { startDate: '2026-11-01', endDate: '2026-11-07' },
                {
                  startDate: new Date(
                    Date.parse(`${TODAY}T00:00:00Z`) - (spec.maxDays - 1) * 86_400_000,
                  )
                    .toISOString()
                    .slice(0, 10),
                  endDate: TODAY,
                },
              ]
            : [{ startDate: '', endDate: '' }];
        for (const dates of dated) {
          const query = { ...base, period, ...dates };
          if (spec.shape === 'day') {
            for (const heartDetailLevel of category === 'heart'
              ? FITBIT_HEART_DETAIL_LEVELS
              : (['1min'] as const)) {
              for (const includeTime of [false, true]) {
                queries.push({
                  ...query,
                  heartDetailLevel,
                  includeTime,
                  startTime: includeTime ? '06:00' : '',
                  endTime: includeTime ? '18:45' : '',
                });
              }
            }
          } else queries.push(query);
        }
      }
    }
  }
  return queries;
}

describe('every path the Fitbit query form builds is one the server parses', () => {
  const queries = everyQuery();

  it('covers every category and option with valid queries', () => {
    for (const query of queries) expect(validateFitbitQuery(query, TODAY)).toEqual({});
    const seen = new Set(queries.map((q) => `${q.category}`));
    expect([...seen].sort()).toEqual([...FITBIT_CATEGORIES].sort());
    expect(queries.length).toBeGreaterThan(200);
  });

  it.each(queries.map((query) => [fitbitResourcePaths(query, TODAY).join(' + '), query] as const))(
    '%s',
    (_name, query) => {
      const paths = fitbitResourcePaths(query, TODAY);
      expect(paths.length).toBeGreaterThan(0);
      for (const path of paths) {
        const parsed = parseFitbitResourcePath(path, TODAY);
        expect(parsed, path).toMatchObject({ ok: true });
      }
    },
  );
});

describe('paths added for the data page (decision 0063)', () => {
  it('sleep/list.json: one of beforeDate/afterDate, sort to match, offset 0, limit ≤ 100', () => {
    expect(
      parseFitbitResourcePath(
        'sleep/list.json?beforeDate=2026-11-10&sort=desc&offset=0&limit=10',
        TODAY,
      ),
    ).toEqual({
      ok: true,
      request: { kind: 'sleep-list', beforeDate: '2026-11-10', sort: 'desc', limit: 10 },
    });
    expect(
      parseFitbitResourcePath('sleep/list.json?afterDate=2026-11-10&sort=asc&limit=3', TODAY),
    ).toMatchObject({ ok: true, request: { kind: 'sleep-list', afterDate: '2026-11-10' } });
    for (const bad of [
      'sleep/list.json?afterDate=2026-11-10&sort=desc&limit=3',
      'sleep/list.json?afterDate=2026-11-10&sort=asc&offset=10&limit=3',
      'sleep/list.json?afterDate=2026-11-10&sort=asc&limit=101',
      'sleep/list/more.json?afterDate=2026-11-10&sort=asc&limit=3',
    ])
      expect(parseFitbitResourcePath(bad, TODAY), bad).toEqual({ ok: false, error: 'badRequest' });
    expect(parseFitbitResourcePath('sleep/list.json?sort=asc&limit=3', TODAY)).toEqual({
      ok: false,
      error: 'parametersMissing',
    });
  });

  it('heart intraday at 5min and 15min', () => {
    for (const detail of ['5min', '15min'] as const)
      expect(
        parseFitbitResourcePath(
          `activities/heart/date/today/1d/${detail}/time/06:00/07:00.json`,
          TODAY,
        ),
      ).toEqual({
        ok: true,
        request: {
          kind: 'heart-intraday',
          date: TODAY,
          detail,
          time: { from: '06:00', to: '07:00' },
        },
      });
  });

  it('body queries ask the log call in 30-day windows; BMI comes from the weight logs', () => {
    const query = { ...selectFitbitOption(selectFitbitCategory('body'), 'bmi'), period: '3m' };
    expect(fitbitResourcePaths(query, TODAY)).toEqual([
      'body/log/weight/date/2026-08-21/2026-09-19.json',
      'body/log/weight/date/2026-09-20/2026-10-19.json',
      'body/log/weight/date/2026-10-20/2026-11-18.json',
      'body/log/weight/date/2026-11-19/2026-11-20.json',
    ]);
  });
});
