import { describe, expect, it } from 'vitest';
import { heartRateSeconds } from './reading-generators';

const owner = { participantId: 7, teamId: 1 };
const midnight = new Date('2026-03-01T05:00:00Z');

const stepsOf = (values: number[]) =>
  values
    .slice(1)
    .map((value, index) => Math.abs(value - values[index]!))
    .sort((a, b) => a - b);

describe('the demo 1-second heart-rate day (decision 0172)', () => {
  it('is smooth from second to second, bounded and the same on every start', () => {
    const values = heartRateSeconds(owner, midnight, -300).map((row) => Number(row.value));
    expect(values).toHaveLength(86_400);
    const steps = stepsOf(values);
    // Beat-to-beat: a beat or two, never the 63 → 125 → 66 sawtooth.
    expect(steps.at(-1)!).toBeLessThanOrEqual(3);
    expect(steps[Math.floor(steps.length * 0.99)]!).toBeLessThanOrEqual(2);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(45);
    expect(Math.max(...values)).toBeLessThanOrEqual(110);
    // Lower asleep than awake.
    const mean = (from: number, to: number) =>
      values.slice(from * 3600, to * 3600).reduce((sum, v) => sum + v, 0) / ((to - from) * 3600);
    expect(mean(2, 4)).toBeLessThan(mean(13, 15) - 8);
    expect(heartRateSeconds(owner, midnight, -300).map((row) => Number(row.value))).toEqual(values);
  });

  it("follows a minute series when given (the account's own heart rate), nearest worn minute where not worn", () => {
    const minutes = new Uint8Array(1440);
    for (let m = 0; m < 1440; m += 1)
      minutes[m] = m < 600 ? 0 : 60 + Math.round(20 * Math.sin(m / 30));
    const values = heartRateSeconds(owner, midnight, -300, minutes).map((row) => Number(row.value));
    expect(stepsOf(values).at(-1)!).toBeLessThanOrEqual(4);
    let deviation = 0;
    for (let second = 36_000; second < 86_400; second += 1) {
      deviation += Math.abs(values[second]! - minutes[Math.floor(second / 60)]!);
    }
    expect(deviation / (86_400 - 36_000)).toBeLessThan(2);
    // Before the first worn minute: about that minute's rate.
    expect(Math.abs(values[0]! - minutes[600]!)).toBeLessThanOrEqual(4);
  });
});
