import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Where finished export files live. The worker writes to a local work file (`partPath`),
 * then `commit` makes it the finished file in one step (a rename here; an upload to object
 * storage in an S3 driver), so a reader never sees a half-written file. Keys are ours
 * (`<jobId>-<claim>.zip`), never user input. Every file of a run carries the run's claim
 * (export_jobs.claim, decision 0121): a run that was taken over and comes back writes,
 * commits and removes only its own files, never those of the run that took over.
 */
export type ExportStorage = {
  /** The local path the run holding `claim` writes job `jobId`'s ZIP to while it is being built. */
  partPath(jobId: number, claim: number): string;
  /** A scratch directory for one run's intermediate files (removed by `removeWork`). */
  workDir(jobId: number, claim: number): Promise<string>;
  removeWork(jobId: number, claim: number): Promise<void>;
  /** Moves the run's finished part file to its final place; answers the key and size. */
  commit(jobId: number, claim: number): Promise<{ key: string; size: number }>;
  /**
   * Moves the run's work directory, its files complete, to its final place in one step (a
   * FHIR Bulk Data export's NDJSON files, issue 31); answers the key and the files' size.
   */
  commitDirectory(jobId: number, claim: number): Promise<{ key: string; size: number }>;
  open(key: string): Promise<{ stream: Readable; size: number } | null>;
  /** A file of a committed directory (`commitDirectory`), or null when it is gone. */
  openEntry(key: string, name: string): Promise<{ stream: Readable; size: number } | null>;
  /**
   * Removes the finished file `key` and the part files and work directories of a job: only
   * those of the run holding `claim` when given, else every run's (missing ones are fine).
   */
  remove(jobId: number, key?: string | null, claim?: number): Promise<void>;
  /** Removes the part files and work directories of a job's runs before claim `claim` (runs taken over). */
  removeEarlierClaims(jobId: number, claim: number): Promise<void>;
  /** Part files and work directories on disk: job id and claim (null: named before claims). */
  listUnfinished(): Promise<Array<{ jobId: number; claim: number | null }>>;
};

/** A part file or work directory: `<jobId>.<claim>.zip.part`, `<jobId>.<claim>.work` (or, from before claims, without `.<claim>`). */
const UNFINISHED = /^(\d+)(?:\.(\d+))?\.(zip\.part|work)$/;

export function createLocalExportStorage(rootDir: string): ExportStorage {
  const filesDir = path.join(rootDir, 'files');
  const partsDir = path.join(rootDir, 'parts');
  const ensure = () =>
    Promise.all([
      fsp.mkdir(filesDir, { recursive: true }),
      fsp.mkdir(partsDir, { recursive: true }),
    ]);
  const finalPath = (key: string) => {
    // Keys are `<digits>-<digits>.zip` (`<digits>.zip` before claims) or, for a directory,
    // `<digits>-<digits>.bulk`; refuse anything else rather than resolve outside the directory.
    if (!/^\d+(-\d+)?\.zip$|^\d+-\d+\.bulk$/.test(key)) throw new Error(`bad export key ${key}`);
    return path.join(filesDir, key);
  };
  const openFile = async (file: string) => {
    try {
      const { size } = await fsp.stat(file);
      return { stream: fs.createReadStream(file), size };
    } catch {
      return null;
    }
  };
  const partPath = (jobId: number, claim: number) =>
    path.join(partsDir, `${jobId}.${claim}.zip.part`);
  const workPath = (jobId: number, claim: number) => path.join(partsDir, `${jobId}.${claim}.work`);
  const unfinished = async () => {
    await ensure();
    const entries: Array<{ name: string; jobId: number; claim: number | null }> = [];
    for (const name of await fsp.readdir(partsDir)) {
      const match = UNFINISHED.exec(name);
      if (match)
        entries.push({
          name,
          jobId: Number(match[1]),
          claim: match[2] === undefined ? null : Number(match[2]),
        });
    }
    return entries;
  };

  return {
    partPath,
    async workDir(jobId, claim) {
      await ensure();
      const dir = workPath(jobId, claim);
      await fsp.rm(dir, { recursive: true, force: true });
      await fsp.mkdir(dir, { recursive: true });
      return dir;
    },
    async removeWork(jobId, claim) {
      await fsp.rm(workPath(jobId, claim), { recursive: true, force: true });
    },
    async commit(jobId, claim) {
      await ensure();
      const key = `${jobId}-${claim}.zip`;
      const part = partPath(jobId, claim);
      // fsync before rename: after a crash the finished name never points at missing bytes.
      const handle = await fsp.open(part, 'r+');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fsp.rename(part, finalPath(key));
      const { size } = await fsp.stat(finalPath(key));
      return { key, size };
    },
    async commitDirectory(jobId, claim) {
      await ensure();
      const key = `${jobId}-${claim}.bulk`;
      const work = workPath(jobId, claim);
      let size = 0;
      // fsync every file (and the directory) before the rename, as `commit` does.
      for (const name of await fsp.readdir(work)) {
        const handle = await fsp.open(path.join(work, name), 'r+');
        try {
          await handle.sync();
          size += (await handle.stat()).size;
        } finally {
          await handle.close();
        }
      }
      await fsp.rename(work, finalPath(key));
      return { key, size };
    },
    async open(key) {
      return openFile(finalPath(key));
    },
    async openEntry(key, name) {
      // Entry names are ours (`Observation-1.ndjson`, `files.json`); never a path.
      if (!/^[A-Za-z]+(-\d+)?\.(ndjson|json)$/.test(name)) return null;
      return openFile(path.join(finalPath(key), name));
    },
    async remove(jobId, key, claim) {
      const own =
        claim === undefined
          ? (await unfinished())
              .filter((entry) => entry.jobId === jobId)
              .map((entry) => path.join(partsDir, entry.name))
          : [partPath(jobId, claim), workPath(jobId, claim)];
      await Promise.all([
        ...own.map((file) => fsp.rm(file, { recursive: true, force: true })),
        key ? fsp.rm(finalPath(key), { recursive: true, force: true }) : Promise.resolve(),
      ]);
    },
    async removeEarlierClaims(jobId, claim) {
      const earlier = (await unfinished()).filter(
        (entry) => entry.jobId === jobId && (entry.claim === null || entry.claim < claim),
      );
      await Promise.all(
        earlier.map((entry) =>
          fsp.rm(path.join(partsDir, entry.name), { recursive: true, force: true }),
        ),
      );
    },
    async listUnfinished() {
      return (await unfinished()).map(({ jobId, claim }) => ({ jobId, claim }));
    },
  };
}

/** The export directory under DATA_DIR. */
export function exportRootDir(dataDir: string): string {
  return path.join(dataDir, 'exports');
}
