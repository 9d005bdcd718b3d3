import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import JSZip from 'jszip';
import { REPO_ROOT } from '../../config/paths';
export { HttpClient } from '../http-client';

/** A seeded PRNG (mulberry32): the fault moments of a run replay from its seed. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    /** A whole number of milliseconds in [min, max]. */
    between: (min: number, max: number) => Math.round(min + next() * (max - min)),
    shuffle<T>(items: readonly T[]): T[] {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i -= 1) {
        const j = Math.floor(next() * (i + 1));
        [copy[i], copy[j]] = [copy[j]!, copy[i]!];
      }
      return copy;
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `condition` answers true; throws `describe()` when `timeoutMs` runs out. */
export async function waitUntil(
  condition: () => Promise<boolean>,
  timeoutMs: number,
  describe: () => Promise<string> | string,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline)
      throw new Error(`not reached within ${timeoutMs} ms: ${await describe()}`);
    await sleep(250);
  }
}

/**
 * The real server process (`node --import tsx apps/server/src/main.ts`) with its last log
 * lines kept for the failure message. `onExit` is called if it ever exits on its own.
 */
export class ServerProcess {
  readonly child: ChildProcess;
  private lines: string[] = [];
  private partial = '';
  private stopping = false;
  exitedWith: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(
    readonly name: string,
    env: Record<string, string>,
    onExit: (process: ServerProcess) => void,
    /** How node starts main.ts: `await serverNodeArgs()` (test/server-bundle.ts). */
    nodeArgs: string[],
  ) {
    this.child = spawn(process.execPath, nodeArgs, {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      const text = this.partial + chunk.toString();
      const parts = text.split('\n');
      this.partial = parts.pop() ?? '';
      this.lines.push(...parts);
      if (this.lines.length > 200) this.lines.splice(0, this.lines.length - 200);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.child.once('close', (code, signal) => {
      this.exitedWith = { code, signal };
      if (!this.stopping) onExit(this);
    });
  }

  lastLines(count = 60): string {
    return [...this.lines, this.partial].filter(Boolean).slice(-count).join('\n');
  }

  get alive() {
    return this.exitedWith === undefined;
  }

  /** SIGTERM, then SIGKILL after 15 s. */
  async stop() {
    this.stopping = true;
    if (!this.alive) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
      this.child.once('close', () => (clearTimeout(timer), resolve()));
      this.child.kill('SIGTERM');
    });
  }
}

export const ERROR_BODY_KEYS = ['displayToUser', 'errors', 'location', 'message', 'reason', 'user'];

/**
 * Why a downloaded export is not whole (undefined when it is): the ZIP opens with its CRCs,
 * and every file its manifest names is there with the manifest's SHA-256 and size.
 */
export async function wholeExportProblem(bytes: Buffer): Promise<string | undefined> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes, { checkCRC32: true });
  } catch (error) {
    return `not a readable ZIP (${bytes.length} bytes): ${(error as Error).message}`;
  }
  const manifestName = Object.keys(zip.files).find((name) => name.endsWith('-manifest.json'));
  if (!manifestName) return `no manifest among ${Object.keys(zip.files).join(', ')}`;
  const manifest = JSON.parse(await zip.file(manifestName)!.async('string')) as {
    files: { name: string; sha256: string; bytes: number }[];
  };
  if (!Array.isArray(manifest.files) || manifest.files.length === 0)
    return 'the manifest lists no files';
  for (const file of manifest.files) {
    const entry = zip.file(file.name);
    if (!entry) return `${file.name} is missing`;
    const content = await entry.async('nodebuffer');
    if (content.length !== file.bytes)
      return `${file.name}: ${content.length} bytes, manifest says ${file.bytes}`;
    const sha256 = createHash('sha256').update(content).digest('hex');
    if (sha256 !== file.sha256)
      return `${file.name}: SHA-256 ${sha256}, manifest says ${file.sha256}`;
  }
  return undefined;
}
