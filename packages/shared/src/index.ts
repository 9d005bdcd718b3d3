export * from './roles';
export * from './auth-status';
export * from './errors';
export * from './limits';
export * from './routes';
export * from './auth/auth.schemas';
