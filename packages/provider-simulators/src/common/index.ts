/**
 * The one toolkit of the provider simulators (Google Health, legacy Fitbit, Omron, Dexcom);
 * keep these exports stable.
 */
export * from './types';
export * from './clock';
export * from './prng';
export * from './civil-time';
export * from './faults';
export * from './oauth';
export * from './authorize-page';
export * from './rate-limit';
export * from './page-token';
export * from './server';
export * from './control';
export * from './control-routes';
export * from './accounts';
export * from './wearable-model';
export * from './consent-driver';
export * from './signed-tokens';
export * from './signed-token-provider';
