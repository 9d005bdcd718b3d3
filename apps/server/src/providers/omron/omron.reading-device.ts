import { brandAndModel, type ReadingDeviceRule } from '../reading-device';

/** An Omron reading's device: the device model Omron reports with it ("Omron HEM-7600T"). */
export const omronReadingDevice: ReadingDeviceRule = { brand: 'Omron', ...brandAndModel() };
