import { isDatabaseUnavailable } from './db-errors';

/** The logging the guards need; pino/Fastify loggers and `console` all fit. */
export type GuardLogger = {
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
};

/** The process events the guards listen to (the real `process`, or a test's emitter). */
export type GuardedProcess = {
  on(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
  on(event: 'uncaughtException', listener: (error: Error) => void): unknown;
  off(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
  off(event: 'uncaughtException', listener: (error: Error) => void): unknown;
};

/**
 * Logs an error nothing else handled and keeps the process running (decision 0120): a
 * database that is away (restart, failover, refused connection) at warn — the pools and
 * pg-boss reconnect on their own once it is back — anything else at error, since it is a bug
 * to fix.
 */
export function reportUnhandled(
  logger: GuardLogger,
  kind: 'unhandledRejection' | 'uncaughtException',
  error: unknown,
): void {
  if (isDatabaseUnavailable(error))
    logger.warn({ err: error, kind }, `${kind}: database unavailable, process keeps running`);
  else logger.error({ err: error, kind }, `${kind}: process keeps running`);
}

/**
 * Installs the process-level guards (`unhandledRejection`, `uncaughtException`) that log and
 * keep the process running instead of Node's default exit. Answers a function that removes
 * them again.
 */
export function installProcessGuards(
  logger: GuardLogger,
  target: GuardedProcess = process,
): () => void {
  const onRejection = (reason: unknown) => reportUnhandled(logger, 'unhandledRejection', reason);
  const onException = (error: Error) => reportUnhandled(logger, 'uncaughtException', error);
  target.on('unhandledRejection', onRejection);
  target.on('uncaughtException', onException);
  return () => {
    target.off('unhandledRejection', onRejection);
    target.off('uncaughtException', onException);
  };
}
