import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { BatteryIcon } from './battery-icon';

describe('BatteryIcon', () => {
  it.each([
    [100, 'Battery high', 'BatteryFullIcon'],
    [91, 'Battery high', 'BatteryFullIcon'],
    [90, 'Battery medium', 'Battery80Icon'],
    [51, 'Battery medium', 'Battery80Icon'],
    [50, 'Battery low', 'Battery50Icon'],
    [26, 'Battery low', 'Battery50Icon'],
    [25, 'Battery very low', 'Battery20Icon'],
    [1, 'Battery very low', 'Battery20Icon'],
    [0, 'Battery empty', 'BatteryAlertIcon'],
    [null, 'Battery empty', 'BatteryAlertIcon'],
  ])('level %s → %s (%s)', (level, label, icon) => {
    render(<BatteryIcon level={level} />);
    const svg = screen.getByRole('img', { name: label });
    expect(svg.getAttribute('data-testid')).toBe(icon);
  });
});
