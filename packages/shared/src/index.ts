export * from './roles';
export * from './auth-status';
export * from './errors';
export * from './limits';
export * from './routes';
