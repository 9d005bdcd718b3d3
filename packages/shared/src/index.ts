export * from './roles';
export * from './permissions';
export * from './auth-status';
export * from './errors';
export * from './limits';
export * from './ids';
export * from './dates';
export * from './routes';
export * from './auth/auth.schemas';
export * from './trials/trials.schemas';
export * from './teams/teams.schemas';
export * from './participants/participants.schemas';
export * from './devices/devices.schemas';
export * from './paging';
export * from './export/export.schemas';
// Not re-exported here: './device-data/device-data.schemas', './device-data/cgm' and
// './device-data/fitbit-resource-path' / './device-data/fitbit-shapes'. Import
// them by path (`@trialpulse/shared/device-data/cgm`): zod schemas are built when the module
// loads, so everything in this barrel ships with the sign-in pages, and the data views'
// schemas and statistics must not.
export * from './devices/sync.schemas';
export * from './metrics/metric-catalog';
export * from './metrics/metrics.schemas';
export * from './sysadmin/sysadmin.schemas';
export * from './completeness/completeness.schemas';
