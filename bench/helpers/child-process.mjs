// Runs a whole Node process and reports its wall time and, on Linux, its CPU
// time (user + system, from the kernel's count for waited-for children), so a
// benchmark on a shared machine can show what a run cost apart from how long
// it waited for a core.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";

/** CPU milliseconds of every finished child of this process; undefined where /proc is missing. */
function childrenCpuMs() {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // Fields after the command name: state is field 3, cutime and cstime are fields 16 and 17 (clock ticks of 10 ms).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

/** Runs `node <args>`; throws with its stderr when it exits non-zero. */
export function runNode(args) {
  const cpuBefore = childrenCpuMs();
  const start = performance.now();
  const child = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - start;
  const cpuAfter = childrenCpuMs();
  if (child.status !== 0) throw new Error(`${args.join(" ")} exited ${child.status}: ${child.stderr.slice(0, 2000)}`);
  return { ms, cpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore, stdout: child.stdout };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export function loadLine() {
  return `load average ${loadavg().map((value) => value.toFixed(2)).join(" ")} on ${cpus().length} cores`;
}
