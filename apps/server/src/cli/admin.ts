import { CliError, runAdminCommand } from './admin-commands';

/**
 * `npm run admin -- <command>`: team administration from the command line, e.g. the first
 * team and Sys_Admin of a fresh production database. Reads DATABASE_URL or DATA_DIR
 * directly (the server's full configuration, with SMTP and secrets, is not needed here).
 */
const code = await runAdminCommand(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  readPassword,
});
process.exit(code);

/** The password from standard input: a hidden prompt on a terminal, else the first line. */
async function readPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    let text = '';
    for await (const chunk of process.stdin) text += String(chunk);
    const line = text.split(/\r?\n/)[0] ?? '';
    if (!line) throw new CliError('No password: set ADMIN_PASSWORD or pipe it on standard input.');
    return line;
  }
  const first = await promptHidden('Password: ');
  const second = await promptHidden('Repeat password: ');
  if (first !== second) throw new CliError('The two passwords do not match.');
  return first;
}

function promptHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    let value = '';
    const done = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new CliError('Cancelled.'));
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    stdin.on('data', onData);
  });
}
