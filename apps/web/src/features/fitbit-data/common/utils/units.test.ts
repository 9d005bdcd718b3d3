import { describe, expect, it } from 'vitest';
import { kgToLbs, kmToMiles, minutesToHours } from './units';

describe('Fitbit units (device-data §9)', () => {
  it('converts km to miles by dividing by 1.609', () => {
    expect(kmToMiles(1.609)).toBe(1);
    expect(kmToMiles(10)).toBe(6.22);
  });
  it('converts kg to pounds by 2.20462, one decimal', () => {
    expect(kgToLbs(70)).toBe(154.3);
    expect(kgToLbs(56.7)).toBe(125);
  });
  it('shows minutes as hours with one decimal', () => {
    expect(minutesToHours(450)).toBe(7.5);
  });
});
