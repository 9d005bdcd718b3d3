import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { REPO_ROOT, WEB_DIST_DIR } from './paths';

/**
 * The whole configuration, parsed once at start from the environment. A bad value stops
 * the server with one message naming every bad key. Secrets have no defaults outside demo
 * mode; in demo mode they are generated once and kept in `<DATA_DIR>/secrets.json`.
 */
const booleanString = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

/** One proxy address or network: an IPv4/IPv6 address, optionally with a /prefix. */
const isProxyAddress = (entry: string) => {
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
};

/**
 * TRUST_PROXY: whose X-Forwarded-For to believe when working out the client address (and
 * so every per-IP limit). Off (default, `false`/`0`): the TCP peer is the client. A number
 * n: the n proxies nearest to us are trusted (the address n hops back is the client). A
 * comma-separated list of proxy addresses or networks (`10.0.0.1, 192.168.0.0/16`): only
 * those peers' headers count. `true` (trust anyone) is refused: anyone could then pick
 * their own address.
 */
const trustProxySchema = z
  .string()
  .trim()
  .transform((value, ctx): false | number | string[] => {
    if (/^(false|off|0)$/i.test(value)) return false;
    if (/^\d{1,2}$/.test(value)) return Number(value);
    const entries = value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    if (entries.length > 0 && entries.every(isProxyAddress)) return entries;
    ctx.addIssue({
      code: 'custom',
      message: 'must be false, a hop count or a comma-separated list of proxy addresses',
    });
    return z.NEVER;
  });

const envSchema = z
  .object({
    TRIALPULSE_MODE: z.enum(['production', 'demo', 'test']).default('production'),
    PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
    HOST: z.string().min(1).optional(),
    PUBLIC_URL: z.url().optional(),
    DATA_DIR: z.string().min(1).default(path.join(REPO_ROOT, '.data')),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string')
      .optional(),
    APP_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    TOKEN_ENCRYPTION_KEY: z
      .string()
      .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes in base64')
      .optional(),
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
      .optional(),
    MAIL_FROM: z.string().min(3).default('TrialPulse <no-reply@trialpulse.local>'),
    TRUST_PROXY: trustProxySchema.default(false),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info'),
    BODY_LIMIT_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(50 * 1024 * 1024)
      .default(1024 * 1024),
    PROCESS_ROLE: z.enum(['all', 'web', 'worker']).default('all'),
    JOBS_ENABLED: booleanString.default(true),
    SERVE_WEB: booleanString.default(true),
    WEB_DIST_DIR: z.string().min(1).default(WEB_DIST_DIR),
    RECAPTCHA_SITE_KEY: z.string().min(1).optional(),
    RECAPTCHA_SECRET_KEY: z.string().min(1).optional(),
    RECAPTCHA_VERIFY_URL: z.url().default('https://www.google.com/recaptcha/api/siteverify'),
    RECAPTCHA_MIN_SCORE: z.coerce.number().min(0).max(1).default(0.5),
    /** Proof-of-work difficulty of the self-hosted human check (ALTCHA max number). */
    HUMAN_CHECK_DIFFICULTY: z.coerce.number().int().min(10).max(10_000_000).default(100_000),
    SUPPORT_EMAIL: z.email().default('support@trialpulse.local'),
    /**
     * Provider simulators: 'embedded' starts them inside the process and points the provider
     * clients at them (default in demo mode); 'off' uses the configured providers.
     */
    SIMULATORS: z.enum(['embedded', 'off']).optional(),
    /** Google Health on this port, legacy Fitbit +1, Omron +2, Dexcom +3; 0 picks free ports. */
    SIMULATOR_BASE_PORT: z.coerce.number().int().min(0).max(65_000).default(0),
    /** The Fitbit brand's OAuth client at Google (the Google Health API). */
    FITBIT_CLIENT_ID: z.string().min(1).optional(),
    FITBIT_CLIENT_SECRET: z.string().min(1).optional(),
    GOOGLE_HEALTH_BASE_URL: z.url().optional(),
    /** Only to keep serving connections made before the legacy Fitbit Web API shut down. */
    FITBIT_LEGACY_CLIENT_ID: z.string().min(1).optional(),
    FITBIT_LEGACY_CLIENT_SECRET: z.string().min(1).optional(),
    FITBIT_LEGACY_BASE_URL: z.url().optional(),
    OMRON_CLIENT_ID: z.string().min(1).optional(),
    OMRON_CLIENT_SECRET: z.string().min(1).optional(),
    OMRON_BASE_URL: z.url().optional(),
    DEXCOM_CLIENT_ID: z.string().min(1).optional(),
    DEXCOM_CLIENT_SECRET: z.string().min(1).optional(),
    DEXCOM_BASE_URL: z.url().optional(),
    /** Device data sync: how far back a new connection's backfill may go (days; demo mode: 60). */
    SYNC_BACKFILL_DAYS: z.coerce.number().int().min(1).max(365).optional(),
    /** Time box of one sync run of a connection, in seconds. */
    SYNC_RUN_SECONDS: z.coerce.number().int().min(5).max(3600).default(120),
    /**
     * The secret Google Health sends in the Authorization header of webhook deliveries
     * (`Bearer <token>`, registered with the subscriber); without it the endpoint refuses all.
     */
    GOOGLE_HEALTH_WEBHOOK_SECRET: z.string().min(16).optional(),
    /**
     * The token in the Omron notification URI registered with Omron
     * (`<PUBLIC_URL>/webhooks/omron?token=<secret>`; Omron documents no signature); without
     * it the endpoint refuses all.
     */
    OMRON_NOTIFICATION_SECRET: z.string().min(16).optional(),
  })
  .superRefine((env, ctx) => {
    if (env.TRIALPULSE_MODE !== 'production') return;
    for (const key of ['APP_SECRET', 'TOKEN_ENCRYPTION_KEY', 'PUBLIC_URL', 'SMTP_URL'] as const) {
      if (!env[key])
        ctx.addIssue({ code: 'custom', path: [key], message: 'is required in production' });
    }
  });

export type RawEnv = z.infer<typeof envSchema>;

export type Config = Omit<RawEnv, 'APP_SECRET' | 'TOKEN_ENCRYPTION_KEY' | 'HOST' | 'PUBLIC_URL'> & {
  APP_SECRET: string;
  TOKEN_ENCRYPTION_KEY: string;
  HOST: string;
  PUBLIC_URL: string;
  isProduction: boolean;
  isDemo: boolean;
};

export class ConfigError extends Error {
  constructor(
    readonly badKeys: string[],
    detail: string,
  ) {
    super(`Invalid configuration: ${detail}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment; throws ConfigError naming every bad key. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const definedOnly = Object.fromEntries(
    Object.entries(source).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = envSchema.safeParse(definedOnly);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
    const keys = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0])))];
    throw new ConfigError(keys, problems.join('; '));
  }
  const env = parsed.data;
  // Production has both secrets (checked above); demo and test generate missing ones.
  const secrets =
    env.APP_SECRET && env.TOKEN_ENCRYPTION_KEY
      ? { APP_SECRET: env.APP_SECRET, TOKEN_ENCRYPTION_KEY: env.TOKEN_ENCRYPTION_KEY }
      : loadOrCreateLocalSecrets(env.DATA_DIR, env);
  const host = env.HOST ?? (env.TRIALPULSE_MODE === 'production' ? '0.0.0.0' : '127.0.0.1');
  return {
    ...env,
    ...secrets,
    HOST: host,
    // Without a trailing slash: links in mails and callbacks are built on it.
    PUBLIC_URL: (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    isProduction: env.TRIALPULSE_MODE === 'production',
    isDemo: env.TRIALPULSE_MODE === 'demo',
  };
}

/**
 * Demo and test secrets: generated once per data directory and reused, so sessions and
 * encrypted provider tokens survive a restart of `npm start`.
 */
function loadOrCreateLocalSecrets(
  dataDir: string,
  given: Pick<RawEnv, 'APP_SECRET' | 'TOKEN_ENCRYPTION_KEY'>,
): { APP_SECRET: string; TOKEN_ENCRYPTION_KEY: string } {
  const file = path.join(dataDir, 'secrets.json');
  let stored: Partial<Record<'APP_SECRET' | 'TOKEN_ENCRYPTION_KEY', string>> = {};
  if (fs.existsSync(file)) stored = JSON.parse(fs.readFileSync(file, 'utf8'));
  const secrets = {
    APP_SECRET: given.APP_SECRET ?? stored.APP_SECRET ?? randomBytes(48).toString('base64url'),
    TOKEN_ENCRYPTION_KEY:
      given.TOKEN_ENCRYPTION_KEY ??
      stored.TOKEN_ENCRYPTION_KEY ??
      randomBytes(32).toString('base64'),
  };
  if (
    stored.APP_SECRET !== secrets.APP_SECRET ||
    stored.TOKEN_ENCRYPTION_KEY !== secrets.TOKEN_ENCRYPTION_KEY
  ) {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  return secrets;
}
