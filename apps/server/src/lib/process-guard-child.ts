/**
 * Test child for process-guards.test.ts: installs the guards (unless GUARDS=off), then lets a
 * database-unavailable rejection and an ordinary exception go unhandled, then prints 'alive'
 * and exits 0 — Node's default would have ended it with status 1 at the first one.
 */
import { installProcessGuards } from './process-guards';

const lines: string[] = [];
const logger = {
  warn: (obj: object, msg?: string) =>
    lines.push(`warn ${msg} ${String((obj as { err?: Error }).err?.message)}`),
  error: (obj: object, msg?: string) =>
    lines.push(`error ${msg} ${String((obj as { err?: Error }).err?.message)}`),
};
if (process.env.GUARDS !== 'off') installProcessGuards(logger);

const restart = Object.assign(new Error('the database system is shutting down'), { code: '57P03' });
void Promise.reject(restart);
setTimeout(() => {
  throw new Error('a bug in a timer');
}, 10);
setTimeout(() => {
  for (const line of lines) process.stdout.write(line + '\n');
  process.stdout.write('alive\n');
  process.exit(0);
}, 100);
