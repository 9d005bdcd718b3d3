import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../config/paths';
import { openDatabase, type Database } from '../db/client';
import {
  auditLog,
  credentials,
  teamAllowedBrands,
  teamUserMappings,
  teams,
  users,
} from '../db/schema';
import { createTestApp } from '../test/test-app';
import { scratchDirectory } from '../test/test-database';
import { runAdminCommand } from './admin-commands';
import { TestClient } from '../test/fixtures';

/**
 * `npm run admin` as an operator runs it, on an empty database (a new PostgreSQL database
 * when TEST_DATABASE_URL is set, else a new embedded data directory), then the app on that
 * database signs the new Sys_Admin in.
 *
 * Each command runs `runAdminCommand` as admin.ts calls it: its own open of the database,
 * migrations, services and close, with the environment a child process would get. Two run
 * as real child processes (`node --import tsx admin.ts`), which is what admin.ts adds: the
 * exit code and the password read from standard input, not printed. A child costs ~5 s of
 * CPU (tsx, the app's modules, PGlite), and all nine as children made this file ~70 s of CPU.
 */
const serverUrl = process.env.TEST_DATABASE_URL;
const PASSWORD = 'Fresh!Start2026';
let target: { env: Record<string, string>; open(): Promise<Database>; cleanup(): Promise<void> };

beforeAll(async () => {
  if (serverUrl) {
    const name = `tp_cli_${process.pid}_${randomBytes(4).toString('hex')}`;
    await onServer(`CREATE DATABASE "${name}"`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    target = {
      env: { DATABASE_URL: url.toString() },
      open: () =>
        openDatabase({ kind: 'postgres', connectionString: url.toString(), maxConnections: 3 }),
      cleanup: () => onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
    };
  } else {
    const dataDir = fs.mkdtempSync(path.join(scratchDirectory(), 'trialpulse-cli-'));
    target = {
      env: { DATA_DIR: dataDir },
      open: () => openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'db') }),
      cleanup: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
});
afterAll(() => target?.cleanup());

describe('npm run admin', () => {
  it('creates a team and a Sys_Admin on an empty database, who can then sign in', async () => {
    const team = await inProcess([
      'create-team',
      '--name',
      'First Customer',
      '--max-trials',
      '4',
      '--retention-days',
      '60',
      '--brands',
      'Fitbit,dexcom',
    ]);
    expect(team, team.stderr).toMatchObject({ code: 0 });
    expect(team.stdout).toMatch(/Created team \d+ "First Customer"/);

    // The password never goes on the command line.
    const inArgv = await inProcess([
      'create-sys-admin',
      '--email',
      'x@y.org',
      '--first-name',
      'A',
      '--last-name',
      'B',
      '--team',
      '1',
      '--password',
      PASSWORD,
    ]);
    expect(inArgv.code).not.toBe(0);
    expect(inArgv.stderr).toContain('Never pass the password on the command line');
    const weak = await inProcess(
      [
        'create-sys-admin',
        '--email',
        'weak@first.example',
        '--first-name',
        'Wea',
        '--last-name',
        'K',
        '--team',
        'First Customer',
      ],
      {
        ADMIN_PASSWORD: 'weakpass',
      },
    );
    expect(weak.code).toBe(1);
    expect(weak.stderr).toContain('Password must have at least One Uppercase');

    const admin = await inProcess(
      [
        'create-sys-admin',
        '--email',
        'Root@First.example',
        '--first-name',
        'Ada',
        '--last-name',
        'Root',
        '--team',
        'first customer',
      ],
      { ADMIN_PASSWORD: PASSWORD },
    );
    expect(admin, admin.stderr).toMatchObject({ code: 0 });
    expect(admin.stdout).toContain('Created Sys_Admin');
    expect(admin.stdout + admin.stderr).not.toContain(PASSWORD);

    // Standard input works too (piped, first line): a real child process, whose exit code
    // is the command's and whose output holds nothing of the password.
    const piped = await runAdmin(
      [
        'create-sys-admin',
        '--email',
        'second@first.example',
        '--first-name',
        'Bo',
        '--last-name',
        'Two',
        '--team',
        'First Customer',
      ],
      {},
      `${PASSWORD}\n`,
    );
    expect(piped, piped.stderr).toMatchObject({ code: 0 });
    expect(piped.stdout).toContain('Created Sys_Admin');
    expect(piped.stdout + piped.stderr).not.toContain(PASSWORD);
    const again = await inProcess(
      [
        'create-sys-admin',
        '--email',
        'second@first.example',
        '--first-name',
        'Bo',
        '--last-name',
        'Two',
        '--team',
        'First Customer',
      ],
      {},
      `${PASSWORD}\n`,
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
    const unknownTeam = await inProcess(
      [
        'create-sys-admin',
        '--email',
        'z@first.example',
        '--first-name',
        'Z',
        '--last-name',
        'Z',
        '--team',
        'Nope',
      ],
      { ADMIN_PASSWORD: PASSWORD },
    );
    expect(unknownTeam.code).toBe(1);
    expect(unknownTeam.stderr).toContain('No team "Nope"');

    const list = await inProcess(['list-teams']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/yes\t2\/10\t0\/4\t0\/100\tFitbit,Dexcom\tFirst Customer/);
    expect((await inProcess(['no-such-command'])).code).toBe(2);
    // The exit code of a child process is the command's: 2 for a wrong usage.
    const unknownCommand = await runAdmin(['no-such-command']);
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toContain('Unknown command "no-such-command"');

    const database = await target.open();
    try {
      const db = database.db;
      const [teamRow] = await db.select().from(teams);
      expect(teamRow).toMatchObject({
        teamName: 'First Customer',
        isActive: true,
        maxTrials: 4,
        retentionDays: 60,
        actualNumOfUsers: 2,
      });
      expect((await db.select().from(teamAllowedBrands)).map((b) => b.brandName).sort()).toEqual([
        'Dexcom',
        'Fitbit',
      ]);
      const [root] = await db.select().from(users).where(eq(users.email, 'root@first.example'));
      expect(root).toMatchObject({
        username: 'root@first.example',
        accountType: 'staff',
        isActive: true,
        sfaRequired: true,
      });
      expect(
        await db.select().from(teamUserMappings).where(eq(teamUserMappings.userId, root!.id)),
      ).toEqual([
        expect.objectContaining({ teamId: teamRow!.id, role: 'Sys_Admin', defaultTeam: true }),
      ]);
      const [credential] = await db
        .select()
        .from(credentials)
        .where(eq(credentials.userId, root!.id));
      expect(credential!.passwordHash).toMatch(/^\$argon2id\$/);
      expect(await db.select().from(users).where(eq(users.email, 'weak@first.example'))).toEqual(
        [],
      );
      const audit = await db.select().from(auditLog).orderBy(auditLog.id);
      expect(audit.map((a) => [a.action, a.actorUserId])).toEqual([
        ['cli.team.create', null],
        ['cli.user.create_sys_admin', null],
        ['cli.user.create_sys_admin', null],
      ]);
      expect(JSON.stringify(audit)).not.toContain(PASSWORD);

      // The app on that database: the new Sys_Admin signs in (second factor still to set up).
      const app = await createTestApp({ database });
      try {
        const client = new TestClient(app.app);
        const login = await client.login('root@first.example', PASSWORD);
        expect(login.statusCode, login.body).toBe(200);
        expect(login.json().user).toMatchObject({
          role: 'Sys_Admin',
          teamId: teamRow!.id,
          teamStatus: 'Active',
          authStatus: 'SFAIsNotSet',
        });
      } finally {
        await app.close();
      }
    } finally {
      await database.close();
    }
  });
});

type Run = { code: number | null; stdout: string; stderr: string };

/** The environment of a command: the caller's, with only the target database in it. */
function commandEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const {
    DATABASE_URL: _url,
    DATA_DIR: _dir,
    ADMIN_PASSWORD: _password,
    ...inherited
  } = process.env;
  return { ...inherited, ...target.env, ...env };
}

/**
 * Runs the command as admin.ts does, in this process. `stdin` is what admin.ts's
 * readPassword answers for piped input (its first line); without it, reading a password
 * fails the command as an empty pipe does.
 */
async function inProcess(
  args: string[],
  env: Record<string, string> = {},
  stdin?: string,
): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runAdminCommand(args, {
    env: commandEnv(env),
    out: (line) => (stdout += `${line}\n`),
    err: (line) => (stderr += `${line}\n`),
    readPassword: async () => {
      const line = stdin?.split(/\r?\n/)[0];
      if (!line) throw new Error('No password on standard input.');
      return line;
    },
  });
  return { code, stdout, stderr };
}

/** Runs the command line as `npm run admin` does: a child process. */
function runAdmin(args: string[], env: Record<string, string> = {}, stdin = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'apps/server/src/cli/admin.ts', ...args],
      {
        cwd: REPO_ROOT,
        env: commandEnv(env),
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
