import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type RunningServer = {
  baseUrl: string;
  dataDir: string;
  /** Terminal output that is not a log line (the start banner). */
  terminalText(): string;
  stop(): Promise<void>;
};

/**
 * Starts the real server (`apps/server/src/main.ts`, demo mode, the built web app) on a
 * free port with its own data directory, as `npm start` does, and waits until it answers.
 * JSON log lines go to TEST_LOG_DIR for the run's log check; other output is kept apart.
 */
export async function startServer(options: { dataDir?: string; env?: Record<string, string> } = {}): Promise<RunningServer> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'trialpulse-e2e-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/server/src/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      TRIALPULSE_MODE: 'demo',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logFile = process.env.TEST_LOG_DIR ? path.join(process.env.TEST_LOG_DIR, `e2e-server-${port}.log`) : undefined;
  let terminal = '';
  const onOutput = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (!line) continue;
      if (line.startsWith('{') && logFile) fs.appendFileSync(logFile, `${line}\n`);
      else if (!line.startsWith('{')) terminal += `${line}\n`;
    }
  };
  child.stdout!.on('data', onOutput);
  child.stderr!.on('data', onOutput);

  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilHealthy(baseUrl, child, () => terminal);
  return {
    baseUrl,
    dataDir,
    terminalText: () => terminal,
    stop: () => stopChild(child),
  };
}

async function waitUntilHealthy(baseUrl: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(`${baseUrl}/api/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not become healthy:\n${output()}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
