// `npm start`: install what is missing, build the web app, run TrialPulse in demo mode
// (embedded PGlite database under ./.data, demo data on first run, provider simulators).
import { spawn } from 'node:child_process';
import { ROOT, ensureDependencies, ensureWebBuild, serverCommand } from './lib.mjs';

ensureDependencies();
ensureWebBuild();

const [command, args] = serverCommand();
const child = spawn(command, args, {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, TRIALPULSE_MODE: process.env.TRIALPULSE_MODE ?? 'demo' },
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
