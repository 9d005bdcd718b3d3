// The CPU time of a process and of every child it has waited for (Linux: /proc/<pid>/stat,
// utime + stime + cutime + cstime). `npm test` prints it per pass so a run's CPU can be
// traced to the pass that spent it (issue 26: a run's CPU doubled between two machines and
// only the total was known). Elsewhere (no /proc) it reports nothing.
import fs from 'node:fs';

export const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux architecture Node runs on.

/** The fields of `/proc/<pid>/stat` after the command name (which may hold spaces): field 3 on. Throws when it is gone. */
export function statFields(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** `{ userS, systemS }` of the process and its waited-for children, or null without /proc. */
export function cpuSecondsOf(pid = 'self') {
  try {
    const [utime, stime, cutime, cstime] = statFields(pid).slice(11, 15).map(Number);
    return {
      userS: (utime + cutime) / TICKS_PER_SECOND,
      systemS: (stime + cstime) / TICKS_PER_SECOND,
    };
  } catch {
    return null;
  }
}

/** "CPU 700 s (user 600 + sys 100)", or '' when unknown. */
export function describeCpu(cpu) {
  if (!cpu) return '';
  const total = Math.round(cpu.userS + cpu.systemS);
  return `CPU ${total} s (user ${Math.round(cpu.userS)} + sys ${Math.round(cpu.systemS)})`;
}

// As a preload (`node --import scripts/cpu-time.mjs …` with CPU_TIME_FILE set): on exit the
// process writes its own figures there. By then Vitest has waited for its workers, and they
// for their servers and browsers, so their time is included.
// Vitest's workers inherit the preload with its execArgv: the variable is taken out of the
// environment here, so only the process it was meant for writes.
const reportFile = process.env.CPU_TIME_FILE;
delete process.env.CPU_TIME_FILE;
if (reportFile) {
  process.on('exit', () => {
    const cpu = cpuSecondsOf();
    if (cpu) fs.writeFileSync(reportFile, JSON.stringify(cpu));
  });
}
