import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BRANDS, teamInputSchema } from '@trialpulse/shared';
import { loadConfig, type Config } from '../config/env';
import { REPO_ROOT } from '../config/paths';
import { openDatabase, runMigrations, type Database, type DatabaseOptions } from '../db/client';
import type { JobLogger } from '../jobs/types';
import { systemClock } from '../lib/clock';
import { AppError } from '../lib/errors';
import { argon2Hasher } from '../lib/passwords';
import type { TeamAdminActor, TeamAdminService } from '../modules/team-admin/team-admin.service';
import { createServices } from '../services';

export const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  create-team --name <name> [--max-users N] [--max-trials N] [--max-participants N]
              [--retention-days N] [--brands ${BRANDS.join(',')}] [--inactive]
  create-sys-admin --email <email> --first-name <first> --last-name <last> --team <team name or id>
              The password is read from the environment variable ADMIN_PASSWORD, or from
              standard input (typed without echo on a terminal); never from the command line.
  list-teams

Database: DATABASE_URL (postgres://…) when set, otherwise the embedded database under
DATA_DIR (default ./.data). Stop the server before using the embedded database.
Migrations are applied first.`;

export type CliIo = {
  env: NodeJS.ProcessEnv;
  out(line: string): void;
  err(line: string): void;
  /** Reads the password when ADMIN_PASSWORD is not set (stdin or a hidden prompt). */
  readPassword(): Promise<string>;
};

/** A problem the operator can fix; printed without a stack. */
export class CliError extends Error {}

const CLI_ACTOR: TeamAdminActor = { userId: null, requestId: null, via: 'cli' };

/**
 * Runs one administration command against the configured database and answers the exit
 * code: 0 done, 1 refused or failed (message on stderr), 2 wrong usage.
 */
export async function runAdminCommand(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    io.out(USAGE);
    return command ? 0 : 2;
  }
  const handler = COMMANDS[command];
  if (!handler) {
    io.err(`Unknown command "${command}".\n\n${USAGE}`);
    return 2;
  }

  let database: Database | undefined;
  try {
    const args = handler.parse(rest);
    const config = cliConfig(io.env);
    database = await openDatabase(databaseOptions(io.env));
    await runMigrations(database);
    // The one builder of services (decision 0156), as the server builds them.
    const services = createServices({
      config,
      database,
      clock: systemClock,
      hasher: argon2Hasher,
      providers: {},
      logger: cliLogger(io),
    });
    await handler.run(services.teamAdmin, args as never, io);
    return 0;
  } catch (error) {
    if (error instanceof CliError || error instanceof AppError) {
      io.err(`Error: ${error.message}`);
      return 1;
    }
    if (
      error instanceof TypeError &&
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      io.err(`Error: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    io.err(`Error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await database?.close().catch(() => undefined);
  }
}

/**
 * The configuration `createServices` takes. The CLI's commands use none of the server's
 * secrets, mail, public address or providers, which an operator's shell need not hold: what
 * the environment leaves out is filled with values of this run only (nothing is written to
 * DATA_DIR, unlike the demo's secrets.json).
 */
export function cliConfig(env: NodeJS.ProcessEnv): Config {
  return loadConfig({
    ...env,
    APP_SECRET: env.APP_SECRET || randomBytes(48).toString('base64url'),
    TOKEN_ENCRYPTION_KEY: env.TOKEN_ENCRYPTION_KEY || randomBytes(32).toString('base64'),
    PUBLIC_URL: env.PUBLIC_URL || 'http://localhost',
    SMTP_URL: env.SMTP_URL || 'smtp://localhost',
  });
}

/** The services' log: warnings and errors on stderr, nothing else. */
function cliLogger(io: CliIo): JobLogger {
  const line = (obj: object, msg?: string) => [msg, JSON.stringify(obj)].filter(Boolean).join(' ');
  return {
    info: () => undefined,
    warn: (obj, msg) => io.err(`Warning: ${line(obj, msg)}`),
    error: (obj, msg) => io.err(`Error: ${line(obj, msg)}`),
  };
}

/** DATABASE_URL, else the embedded database in DATA_DIR (the same place the server uses). */
export function databaseOptions(env: NodeJS.ProcessEnv): DatabaseOptions {
  const url = env.DATABASE_URL?.trim();
  if (url) {
    if (!/^postgres(ql)?:\/\//.test(url))
      throw new CliError('DATABASE_URL must be a postgres:// connection string.');
    return { kind: 'postgres', connectionString: url, maxConnections: 2 };
  }
  const dataDir = env.DATA_DIR?.trim() || path.join(REPO_ROOT, '.data');
  return { kind: 'pglite', dataDir: path.join(dataDir, 'db') };
}

type Service = TeamAdminService;
type Command<A> = {
  parse(argv: string[]): A;
  run(service: Service, args: A, io: CliIo): Promise<void>;
};

const createTeam: Command<ReturnType<typeof parseCreateTeam>> = {
  parse: parseCreateTeam,
  async run(service, input, io) {
    const { team_id } = await service.createTeam(CLI_ACTOR, input);
    const team = await service.getTeam(team_id);
    io.out(
      `Created team ${team.team_id} "${team.team_name}" (${team.is_active ? 'active' : 'inactive'}; brands: ${team.allowed_brands.join(', ') || 'none'}).`,
    );
  },
};

const createSysAdmin: Command<ReturnType<typeof parseCreateSysAdmin>> = {
  parse: parseCreateSysAdmin,
  async run(service, args, io) {
    const teamId = await service.resolveTeam(args.team);
    if (teamId === undefined)
      throw new CliError(
        `No team "${args.team}". Create it first with create-team, or see list-teams.`,
      );
    const password = io.env.ADMIN_PASSWORD ?? (await io.readPassword());
    const { userId } = await service.createSysAdmin(CLI_ACTOR, teamId, {
      email: args.email,
      firstName: args.firstName,
      lastName: args.lastName,
      password,
    });
    const team = await service.getTeam(teamId);
    io.out(
      `Created Sys_Admin ${userId} ${args.email.trim().toLowerCase()} in team ${team.team_id} "${team.team_name}". ` +
        'The second factor is set up at the first sign-in.',
    );
  },
};

const listTeams: Command<Record<string, never>> = {
  parse(argv) {
    parseArgs({ args: argv, options: {}, strict: true, allowPositionals: false });
    return {};
  },
  async run(service, _args, io) {
    const teams = await service.listTeams();
    if (teams.length === 0) {
      io.out('No teams yet.');
      return;
    }
    const limit = (actual: number, max: number | null) => `${actual}/${max ?? '∞'}`;
    io.out(['id', 'active', 'users', 'trials', 'participants', 'brands', 'name'].join('\t'));
    for (const team of teams) {
      io.out(
        [
          team.team_id,
          team.is_active ? 'yes' : 'no',
          limit(team.actual_num_of_users, team.max_users),
          limit(team.actual_num_of_trials, team.max_trials),
          limit(team.actual_num_of_participants, team.max_participants),
          team.allowed_brands.join(',') || '-',
          team.team_name,
        ].join('\t'),
      );
    }
  },
};

const COMMANDS: Record<string, Command<unknown>> = {
  'create-team': createTeam as Command<unknown>,
  'create-sys-admin': createSysAdmin as Command<unknown>,
  'list-teams': listTeams as Command<unknown>,
};

function parseCreateTeam(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      name: { type: 'string' },
      'max-users': { type: 'string' },
      'max-trials': { type: 'string' },
      'max-participants': { type: 'string' },
      'retention-days': { type: 'string' },
      brands: { type: 'string' },
      inactive: { type: 'boolean', default: false },
    },
  });
  if (!values.name) throw new CliError('create-team needs --name <name>.');
  const brands = values.brands
    ? values.brands
        .split(',')
        .map((brand) => brand.trim())
        .filter(Boolean)
        .map((brand) => {
          const known = BRANDS.find((b) => b.toLowerCase() === brand.toLowerCase());
          if (!known) throw new CliError(`Unknown brand "${brand}" (known: ${BRANDS.join(', ')}).`);
          return known;
        })
    : [];
  const parsed = teamInputSchema.safeParse({
    team_name: values.name,
    is_active: !values.inactive,
    ...(values['max-users'] !== undefined && { max_users: values['max-users'] }),
    ...(values['max-trials'] !== undefined && { max_trials: values['max-trials'] }),
    ...(values['max-participants'] !== undefined && {
      max_participants: values['max-participants'],
    }),
    ...(values['retention-days'] !== undefined && { retention_days: values['retention-days'] }),
    allowed_brands: [...new Set(brands)],
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new CliError(`${issue.path.join('.') || 'input'}: ${issue.message}`);
  }
  return parsed.data;
}

function parseCreateSysAdmin(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      email: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      team: { type: 'string' },
      password: { type: 'string' },
    },
  });
  if (values.password !== undefined) {
    throw new CliError(
      'Never pass the password on the command line (it shows in the process list); use ADMIN_PASSWORD or standard input.',
    );
  }
  const missing = (['email', 'first-name', 'last-name', 'team'] as const).filter(
    (key) => !values[key],
  );
  if (missing.length > 0)
    throw new CliError(`create-sys-admin needs ${missing.map((key) => `--${key}`).join(', ')}.`);
  return {
    email: values.email!,
    firstName: values['first-name']!,
    lastName: values['last-name']!,
    team: values.team!,
  };
}
