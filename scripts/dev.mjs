// `npm run dev`: the server with reload (tsx watch, demo mode) and the Vite dev server,
// which proxies /api to the server.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT, ensureDependencies } from './lib.mjs';

ensureDependencies();
const env = {
  ...process.env,
  TRIALPULSE_MODE: process.env.TRIALPULSE_MODE ?? 'demo',
  SERVE_WEB: 'false',
};
const children = [
  spawn(
    process.execPath,
    ['--import', 'tsx', '--watch', path.join(ROOT, 'apps/server/src/main.ts')],
    {
      cwd: ROOT,
      stdio: 'inherit',
      env,
    },
  ),
  spawn('npm', ['run', 'dev', '-w', 'apps/web'], { cwd: ROOT, stdio: 'inherit', env }),
];
const stopAll = (signal) => children.forEach((child) => child.kill(signal));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stopAll(signal));
for (const child of children)
  child.on('exit', (code) => {
    stopAll('SIGTERM');
    process.exit(code ?? 0);
  });
