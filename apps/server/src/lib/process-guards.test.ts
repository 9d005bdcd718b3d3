import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../config/paths';
import { installProcessGuards, reportUnhandled } from './process-guards';

function recordingLogger() {
  const lines: { level: 'warn' | 'error'; obj: Record<string, unknown>; msg?: string }[] = [];
  return {
    lines,
    warn: (obj: object, msg?: string) =>
      lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
    error: (obj: object, msg?: string) =>
      lines.push({ level: 'error', obj: obj as Record<string, unknown>, msg }),
  };
}

describe('process guards', () => {
  it('logs a database outage at warn and anything else at error', () => {
    const logger = recordingLogger();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    const wrapped = new Error('could not mark job 1 of queue q completed', {
      cause: Object.assign(new Error('the database system is shutting down'), { code: '57P03' }),
    });
    reportUnhandled(logger, 'unhandledRejection', refused);
    reportUnhandled(logger, 'unhandledRejection', wrapped);
    reportUnhandled(logger, 'uncaughtException', new TypeError('x is not a function'));
    reportUnhandled(logger, 'unhandledRejection', 'a string reason');
    expect(logger.lines.map((line) => [line.level, line.obj.kind])).toEqual([
      ['warn', 'unhandledRejection'],
      ['warn', 'unhandledRejection'],
      ['error', 'uncaughtException'],
      ['error', 'unhandledRejection'],
    ]);
    expect(logger.lines[0]!.obj.err).toBe(refused);
  });

  it('listens to both events and removes its listeners again', () => {
    const logger = recordingLogger();
    const target = new EventEmitter();
    const remove = installProcessGuards(logger, target);
    target.emit('unhandledRejection', Object.assign(new Error('gone'), { code: '57P01' }));
    target.emit('uncaughtException', new Error('boom'));
    expect(logger.lines.map((line) => line.level)).toEqual(['warn', 'error']);
    remove();
    expect(
      target.listenerCount('unhandledRejection') + target.listenerCount('uncaughtException'),
    ).toBe(0);
  });

  it('keeps a real process running through an unhandled rejection and an uncaught exception', () => {
    const child = path.join(REPO_ROOT, 'apps/server/src/lib/process-guard-child.ts');
    const run = (guards: 'on' | 'off') =>
      spawnSync(process.execPath, ['--import', 'tsx', child], {
        cwd: REPO_ROOT,
        env: { ...process.env, GUARDS: guards },
        encoding: 'utf8',
        // A budget against hanging: a child's tsx start ran 8-10x its time with a second CI
        // run beside (decision 0274).
        timeout: 120_000,
      });

    const guarded = run('on');
    expect(guarded.status, guarded.stderr).toBe(0);
    expect(guarded.stdout.trim().split('\n')).toEqual([
      'warn unhandledRejection: database unavailable, process keeps running the database system is shutting down',
      'error uncaughtException: process keeps running a bug in a timer',
      'alive',
    ]);

    // Node's default without them: the first unhandled rejection ends the process.
    const unguarded = run('off');
    expect(unguarded.status).toBe(1);
    expect(unguarded.stdout).not.toContain('alive');
  });
});
