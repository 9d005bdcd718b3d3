import { describe, expect, it } from 'vitest';
import { DATE_MESSAGES } from '@trialpulse/shared';
import { NEW_TEAM_VALUES, teamFormSchema } from './team-form-schema';

describe('team form: subscription dates (decision 0127)', () => {
  it.each(['0000-01-01', '9999-12-31', '2026-02-30'])(
    'refuses %s under the input with the shared message',
    (date) => {
      const result = teamFormSchema.safeParse({
        ...NEW_TEAM_VALUES,
        team_name: 'Cardio Lab',
        subscription_starts: date,
      });
      expect(result.success).toBe(false);
      expect(result.error?.issues).toEqual([
        expect.objectContaining({ path: ['subscription_starts'], message: DATE_MESSAGES.date }),
      ]);
    },
  );

  it('accepts a real date', () => {
    const result = teamFormSchema.safeParse({
      ...NEW_TEAM_VALUES,
      team_name: 'Cardio Lab',
      subscription_ends: '2028-02-29',
    });
    expect(result.success, JSON.stringify(result.error?.issues)).toBe(true);
    expect(result.data?.subscription_ends).toBe('2028-02-29T00:00:00.000Z');
  });
});
