import { describe, expect, it } from 'vitest';
import { SIMULATED_ACCOUNTS, findAccount } from './accounts';
import { addDays, civilToUtcMs, localDayUtcRange, toCivilMs } from './civil-time';
import { STAGE, WearableModel, trackerSyncedUntil, wearableModel } from './wearable-model';

const DAYS = 120;
const LAST_DAY = '2026-11-19';

describe('wearable model: physiological sanity over 120 days for every account', () => {
  it.each(SIMULATED_ACCOUNTS.map((account) => [account.id, account] as const))(
    '%s',
    (_id, account) => {
      const model = wearableModel(account);
      let mainSleeps = 0;
      let nightSleeps = 0;
      let wornDays = 0;
      let totalSteps = 0;
      const violations: string[] = [];
      for (let back = 0; back < DAYS; back++) {
        const date = addDays(LAST_DAY, -back);
        const series = model.day(date);
        const summary = model.summary(date);
        if (summary.wornMinutes > 0) wornDays++;
        totalSteps += summary.steps;
        for (let m = 0; m < series.length; m++) {
          const bpm = series.heartRate[m] ?? 0;
          const steps = series.steps[m] ?? 0;
          // Worn: 35–200 bpm. Off the wrist nothing is measured. Asleep: no steps.
          if (series.worn[m] ? bpm < 35 || bpm > 200 : bpm !== 0 || steps !== 0)
            violations.push(`${date} ${m} bpm ${bpm}`);
          if (series.stage[m] !== STAGE.none && steps !== 0)
            violations.push(`${date} ${m} steps while asleep`);
        }
        for (const sleep of model.plan(date).sleeps.filter((s) => s.isMainSleep)) {
          mainSleeps++;
          const startHour = new Date(sleep.startCivil).getUTCHours();
          const endHour = new Date(sleep.endCivil).getUTCHours();
          if ((startHour >= 20 || startHour < 3) && endHour >= 4 && endHour <= 11) nightSleeps++;
          const covered = sleep.segments.reduce((sum, s) => sum + s.seconds * 1000, 0);
          expect(covered).toBe(sleep.endCivil - sleep.startCivil);
        }
      }
      expect(violations).toEqual([]);
      expect(nightSleeps / mainSleeps).toBeGreaterThan(0.95);
      expect(mainSleeps).toBeGreaterThan(
        DAYS * (1 - account.wear.notWornDayRate * 2 - account.wear.nightOffRate) - 12,
      );
      expect(wornDays).toBeLessThan(DAYS + 1);
      const meanSteps = totalSteps / wornDays;
      expect(meanSteps).toBeGreaterThan(account.habits.dailyStepsMean * 0.7);
      expect(meanSteps).toBeLessThan(account.habits.dailyStepsMean * 1.5);
    },
  );

  it('heart-rate samples come every 2–8 seconds within a worn minute and stay in range', () => {
    const model = wearableModel(findAccount('daniel-kim')!);
    const series = model.day('2026-11-10');
    const minute = series.worn.findIndex((worn, m) => worn === 1 && (series.steps[m] ?? 0) > 100);
    const samples = model.heartRateSamples('2026-11-10', minute);
    expect(samples.length).toBeGreaterThanOrEqual(7);
    for (let i = 1; i < samples.length; i++) {
      const gap = samples[i]!.utc - samples[i - 1]!.utc;
      expect(gap).toBeGreaterThanOrEqual(2000);
      expect(gap).toBeLessThanOrEqual(8000);
    }
    expect(samples.every((s) => s.bpm >= 35 && s.bpm <= 200)).toBe(true);
  });

  it('weekly weight drift: heavier on Mondays than on Fridays on average', () => {
    const model = wearableModel(findAccount('ben-okafor')!);
    const byWeekday = new Map<number, number[]>();
    for (let back = 0; back < 365; back++) {
      const date = addDays(LAST_DAY, -back);
      const weighIn = model.weighIn(date);
      if (!weighIn) continue;
      const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
      byWeekday.set(weekday, [...(byWeekday.get(weekday) ?? []), weighIn.weightKg]);
    }
    const mean = (values: number[] = []) => values.reduce((a, b) => a + b, 0) / values.length;
    expect(mean(byWeekday.get(1))).toBeGreaterThan(mean(byWeekday.get(5)) + 0.2);
  });
});

describe('determinism and gaps', () => {
  it('a fresh model (as after a restart) generates exactly the same days', () => {
    const account = findAccount('ava-thompson')!;
    const fresh = new WearableModel(account);
    for (const date of ['2025-10-22', '2026-03-08', '2026-11-19']) {
      expect(fresh.summary(date)).toEqual(wearableModel(account).summary(date));
      expect(fresh.plan(date).sleeps).toEqual(wearableModel(account).plan(date).sleeps);
      expect(fresh.heartRateSamples(date, 600)).toEqual(
        wearableModel(account).heartRateSamples(date, 600),
      );
    }
  });

  it('covers at least 400 days for every account', () => {
    for (const account of SIMULATED_ACCOUNTS) {
      const model = wearableModel(account);
      expect(model.plan(addDays(LAST_DAY, -400)).member).toBe(true);
    }
  });

  it('has days without the tracker and accounts that have not synced for days', () => {
    const carmen = wearableModel(findAccount('carmen-diaz')!);
    const unworn = Array.from({ length: 60 }, (_, back) => addDays(LAST_DAY, -back)).filter(
      (date) => !carmen.plan(date).worn,
    );
    expect(unworn.length).toBeGreaterThan(3);
    for (const date of unworn) expect(carmen.summary(date).steps).toBe(0);
    const now = Date.parse('2026-11-20T12:00:00Z');
    expect(now - trackerSyncedUntil(findAccount('daniel-kim')!, now)).toBeGreaterThanOrEqual(
      80 * 3_600_000 - 15 * 60_000,
    );
    expect(now - trackerSyncedUntil(findAccount('ava-thompson')!, now)).toBeLessThan(15 * 60_000);
  });

  it('handles daylight saving days: 23 and 25 hour days without duplicate instants', () => {
    const model = wearableModel(findAccount('ava-thompson')!);
    for (const [date, hours] of [
      ['2026-03-08', 23],
      ['2026-11-01', 25],
    ] as const) {
      const [start, end] = localDayUtcRange('America/New_York', date);
      expect((end - start) / 3_600_000).toBe(hours);
      const instants = [...model.day(date).minuteUtc].filter((utc) => !Number.isNaN(utc));
      expect(new Set(instants).size).toBe(instants.length);
      expect(instants.every((utc) => utc >= start && utc < end)).toBe(true);
    }
    // 02:30 does not exist on 8 March; 01:30 happens twice on 1 November (first one wins).
    expect(
      toCivilMs(
        'America/New_York',
        civilToUtcMs('America/New_York', Date.parse('2026-03-08T02:30:00Z')),
      ),
    ).not.toBe(Date.parse('2026-03-08T02:30:00Z'));
    expect(
      new Date(civilToUtcMs('America/New_York', Date.parse('2026-11-01T01:30:00Z'))).toISOString(),
    ).toBe('2026-11-01T05:30:00.000Z');
  });
});
