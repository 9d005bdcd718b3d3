import { brandAndModel, type ReadingDeviceRule } from '../reading-device';

/**
 * A Fitbit reading's device: Google Health's data-source device ("Fitbit Charge 6"). The
 * legacy Fitbit Web API names no model, only its placeholder source: the brand alone.
 */
export const fitbitReadingDevice: ReadingDeviceRule = {
  brand: 'Fitbit',
  ...brandAndModel({ placeholder: 'fitbit-web-api' }),
};
