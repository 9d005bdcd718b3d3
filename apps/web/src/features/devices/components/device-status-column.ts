import { DeviceStatusCell } from './device-status-cell';
import { DeviceStatusProvider } from './device-status-provider';

/**
 * The device status column of a participants table (access spec §4): the provider runs
 * the status cycle for the table's rows, the cell shows one row. The route hands it to
 * the participants table's `deviceStatus` slot.
 */
export const deviceStatusColumn = { Provider: DeviceStatusProvider, Cell: DeviceStatusCell };
