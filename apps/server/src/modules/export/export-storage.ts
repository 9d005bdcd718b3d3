import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Where finished export files live. The worker writes to a local work file (`partPath`),
 * then `commit` makes it the finished file in one step (a rename here; an upload to object
 * storage in an S3 driver), so a reader never sees a half-written file. Keys are ours
 * (`<jobId>.zip`), never user input.
 */
export type ExportStorage = {
  /** The local path the worker writes job `jobId`'s ZIP to while it is being built. */
  partPath(jobId: number): string;
  /** A scratch directory for one run's intermediate files (removed by `removeWork`). */
  workDir(jobId: number): Promise<string>;
  removeWork(jobId: number): Promise<void>;
  /** Moves the finished part file to its final place; answers the key and size. */
  commit(jobId: number): Promise<{ key: string; size: number }>;
  open(key: string): Promise<{ stream: Readable; size: number } | null>;
  /** Removes the finished file, the part file and the work directory of a job (missing ones are fine). */
  remove(jobId: number, key?: string | null): Promise<void>;
  /** Part files and work directories on disk, by job id (for the sweeper). */
  listUnfinished(): Promise<number[]>;
};

export function createLocalExportStorage(rootDir: string): ExportStorage {
  const filesDir = path.join(rootDir, 'files');
  const partsDir = path.join(rootDir, 'parts');
  const ensure = () => Promise.all([fsp.mkdir(filesDir, { recursive: true }), fsp.mkdir(partsDir, { recursive: true })]);
  const finalPath = (key: string) => {
    // Keys are `<digits>.zip`; refuse anything else rather than resolve outside the directory.
    if (!/^\d+\.zip$/.test(key)) throw new Error(`bad export key ${key}`);
    return path.join(filesDir, key);
  };
  const workPath = (jobId: number) => path.join(partsDir, `${jobId}.work`);

  return {
    partPath: (jobId) => path.join(partsDir, `${jobId}.zip.part`),
    async workDir(jobId) {
      await ensure();
      const dir = workPath(jobId);
      await fsp.rm(dir, { recursive: true, force: true });
      await fsp.mkdir(dir, { recursive: true });
      return dir;
    },
    async removeWork(jobId) {
      await fsp.rm(workPath(jobId), { recursive: true, force: true });
    },
    async commit(jobId) {
      await ensure();
      const key = `${jobId}.zip`;
      const part = path.join(partsDir, `${jobId}.zip.part`);
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
    async open(key) {
      const file = finalPath(key);
      try {
        const { size } = await fsp.stat(file);
        return { stream: fs.createReadStream(file), size };
      } catch {
        return null;
      }
    },
    async remove(jobId, key) {
      await Promise.all([
        fsp.rm(path.join(partsDir, `${jobId}.zip.part`), { force: true }),
        fsp.rm(workPath(jobId), { recursive: true, force: true }),
        key ? fsp.rm(finalPath(key), { force: true }) : Promise.resolve(),
      ]);
    },
    async listUnfinished() {
      await ensure();
      const names = await fsp.readdir(partsDir);
      const ids = new Set<number>();
      for (const name of names) {
        const match = /^(\d+)\.(zip\.part|work)$/.exec(name);
        if (match) ids.add(Number(match[1]));
      }
      return [...ids];
    },
  };
}

/** The export directory under DATA_DIR. */
export function exportRootDir(dataDir: string): string {
  return path.join(dataDir, 'exports');
}
