// Every process's own CPU time, read from /proc every 2 s and added up by the pass or check
// that started it (the CPU_TIME_FILE in its own or an ancestor's starting environment).
// `scripts/cpu-time.mjs` reads a pass's process and the children it waited for; Chromium's
// renderer, GPU and utility processes are not waited for by a process of ours, so the browser
// pass's figure missed most of Chromium (440 s printed where 691 s were spent: decision 0277).
// Time a process spends after the last sample before it exits is missed (at most 2 s each).
// Elsewhere (no /proc) nothing is sampled.
import fs from 'node:fs';
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { TICKS_PER_SECOND, statFields } from './cpu-time.mjs';

/**
 * Starts sampling the processes whose CPU_TIME_FILE lies in `directory` (this run's: a second
 * run of the suite beside it has its own); `stop()` takes a last sample and returns the
 * seconds of CPU per pass name (`cpu-browser.json` → `browser`), or null where /proc is missing.
 */
export function startProcessCpuSampler(directory, intervalMs = 2000) {
  if (!fs.existsSync('/proc/self/stat')) return { stop: () => null };
  /** pid → { start, ticks, tag } of the processes seen at the last sample. */
  let seen = new Map();
  /** `${pid}:${start}` → the pass named in that process's starting environment, or null. */
  const environTags = new Map();
  const ticksByTag = new Map();
  let first = true;

  const environTag = (pid, start) => {
    const key = `${pid}:${start}`;
    if (!environTags.has(key)) {
      let tag = null;
      try {
        const entry = fs
          .readFileSync(`/proc/${pid}/environ`, 'latin1')
          .split('\0')
          .find((variable) => variable.startsWith('CPU_TIME_FILE='));
        const file = entry?.slice('CPU_TIME_FILE='.length);
        if (file && path.dirname(file) === directory)
          tag = path.basename(file, '.json').replace(/^cpu-/, '');
      } catch {
        // gone already, or not ours to read
      }
      environTags.set(key, tag);
    }
    return environTags.get(key);
  };

  const tagOf = (pid, stats) => {
    for (let current = pid, depth = 0; current > 1 && depth < 64; depth += 1) {
      const stat = stats.get(current);
      if (!stat) return null;
      const tag = environTag(current, stat.start);
      if (tag) return tag;
      current = stat.ppid;
    }
    return null;
  };

  const sample = () => {
    const stats = new Map();
    for (const name of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const fields = statFields(name);
        stats.set(Number(name), {
          ppid: Number(fields[1]),
          ticks: Number(fields[11]) + Number(fields[12]),
          start: fields[19],
        });
      } catch {
        // exited between the listing and the read
      }
    }
    const next = new Map();
    for (const [pid, stat] of stats) {
      const known = seen.get(pid);
      const same = known && known.start === stat.start;
      // Processes running before the first sample count from then; later ones from their start.
      const before = same ? known.ticks : first ? stat.ticks : 0;
      const tag = same ? known.tag : tagOf(pid, stats);
      next.set(pid, { start: stat.start, ticks: stat.ticks, tag });
      if (tag && stat.ticks > before)
        ticksByTag.set(tag, (ticksByTag.get(tag) ?? 0) + stat.ticks - before);
    }
    seen = next;
    first = false;
  };

  sample();
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
      return Object.fromEntries(
        [...ticksByTag].map(([tag, ticks]) => [tag, ticks / TICKS_PER_SECOND]),
      );
    },
  };
}
