/** The whole database schema; drizzle-kit reads this file (drizzle.config.ts). */
export * from './teams';
export * from './users';
export * from './auth';
export * from './trials';
export * from './participants';
export * from './devices';
export * from './metrics';
export * from './exports';
export * from './audit';
export * from './mail';
export * from './sync';
export * from './reading-days';
export * from './completeness';
export * from './backend-clients';
export * from './reading-chunks';
