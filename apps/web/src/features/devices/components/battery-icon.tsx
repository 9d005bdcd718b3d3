import type { SvgIconProps } from '@mui/material/SvgIcon';
import Battery20 from '@mui/icons-material/Battery20';
import Battery50 from '@mui/icons-material/Battery50';
import Battery80 from '@mui/icons-material/Battery80';
import BatteryAlert from '@mui/icons-material/BatteryAlert';
import BatteryFull from '@mui/icons-material/BatteryFull';
import { batteryIconOf, type BatteryIcon as BatteryIconName } from '@trialpulse/shared';
import { BATTERY_LABELS } from '../utils/device-labels';

type IconSpec = { Icon: typeof BatteryFull; color: SvgIconProps['color'] };

const ICONS = {
  high: { Icon: BatteryFull, color: 'success' },
  medium: { Icon: Battery80, color: 'success' },
  low: { Icon: Battery50, color: 'warning' },
  'very-low': { Icon: Battery20, color: 'error' },
  empty: { Icon: BatteryAlert, color: 'error' },
} as const satisfies Record<BatteryIconName, IconSpec>;

/**
 * The battery of a device by the access spec §4 thresholds (above 90 high, above 50
 * medium, above 25 low, above 0 very low, otherwise empty), named for screen readers.
 */
export function BatteryIcon({ level }: { level: number | null | undefined }) {
  const name = batteryIconOf(level);
  const { Icon, color } = ICONS[name];
  return (
    <Icon
      fontSize="small"
      color={color}
      aria-label={BATTERY_LABELS[name]}
      data-battery={name}
      titleAccess={BATTERY_LABELS[name]}
    />
  );
}
