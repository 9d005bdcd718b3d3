import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './env';

const tempDirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trialpulse-config-'));
  tempDirs.push(dir);
  return dir;
};
afterEach(() =>
  tempDirs.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })),
);

const productionEnv = () => ({
  TRIALPULSE_MODE: 'production',
  APP_SECRET: randomBytes(32).toString('hex'),
  TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  PUBLIC_URL: 'https://trialpulse.example.org',
  SMTP_URL: 'smtp://mail.example.org:587',
  DATA_DIR: tempDir(),
});

describe('configuration', () => {
  it('keeps the public address without a trailing slash, so links never get a double one', () => {
    expect(
      loadConfig({ ...productionEnv(), PUBLIC_URL: 'https://trialpulse.example.org/' }).PUBLIC_URL,
    ).toBe('https://trialpulse.example.org');
  });

  it('names every bad key in one message', () => {
    try {
      loadConfig({
        ...productionEnv(),
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        LOG_LEVEL: 'loud',
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const configError = error as ConfigError;
      expect(configError.badKeys.sort()).toEqual(['DATABASE_URL', 'LOG_LEVEL', 'PORT']);
      for (const key of ['PORT', 'DATABASE_URL', 'LOG_LEVEL'])
        expect(configError.message).toContain(key);
    }
  });

  it('has no default secrets in production', () => {
    const { APP_SECRET: _a, TOKEN_ENCRYPTION_KEY: _t, SMTP_URL: _s, ...env } = productionEnv();
    expect(() => loadConfig(env)).toThrow(ConfigError);
    try {
      loadConfig(env);
    } catch (error) {
      expect((error as ConfigError).badKeys.sort()).toEqual([
        'APP_SECRET',
        'SMTP_URL',
        'TOKEN_ENCRYPTION_KEY',
      ]);
    }
  });

  it('rejects weak secrets', () => {
    expect(() => loadConfig({ ...productionEnv(), APP_SECRET: 'short' })).toThrow(/APP_SECRET/);
    expect(() => loadConfig({ ...productionEnv(), TOKEN_ENCRYPTION_KEY: 'c2hvcnQ=' })).toThrow(
      /TOKEN_ENCRYPTION_KEY/,
    );
  });

  it('accepts a complete production environment and binds to all interfaces there', () => {
    const config = loadConfig(productionEnv());
    expect(config.isProduction).toBe(true);
    expect(config.HOST).toBe('0.0.0.0');
    expect(config.PORT).toBe(3000);
  });

  it('TRUST_PROXY: off by default (also in production), a hop count or a list of proxy addresses; never "true"', () => {
    expect(loadConfig(productionEnv()).TRUST_PROXY).toBe(false);
    expect(loadConfig({ ...productionEnv(), TRUST_PROXY: '0' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ ...productionEnv(), TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(
      loadConfig({ ...productionEnv(), TRUST_PROXY: '10.0.0.1, 192.168.0.0/16, ::1' }).TRUST_PROXY,
    ).toEqual(['10.0.0.1', '192.168.0.0/16', '::1']);
    for (const bad of ['true', 'proxy.example.org', '10.0.0.1/33']) {
      expect(() => loadConfig({ ...productionEnv(), TRUST_PROXY: bad })).toThrow(/TRUST_PROXY/);
    }
  });

  it('in demo mode generates secrets once under the data directory and keeps them', () => {
    const dataDir = tempDir();
    const first = loadConfig({ TRIALPULSE_MODE: 'demo', DATA_DIR: dataDir });
    const second = loadConfig({ TRIALPULSE_MODE: 'demo', DATA_DIR: dataDir });
    expect(first.APP_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(Buffer.from(first.TOKEN_ENCRYPTION_KEY, 'base64')).toHaveLength(32);
    expect(second.APP_SECRET).toBe(first.APP_SECRET);
    expect(second.TOKEN_ENCRYPTION_KEY).toBe(first.TOKEN_ENCRYPTION_KEY);
    const file = path.join(dataDir, 'secrets.json');
    expect(fs.statSync(file).mode & 0o077).toBe(0);
    expect(first.HOST).toBe('127.0.0.1');
    expect(first.PUBLIC_URL).toBe('http://localhost:3000');
  });
});
