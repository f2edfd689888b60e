// Whole-process timing shared by the benchmarks that compare a CLI run with
// a peer's: wall time of one process, its CPU time, its peak RSS (reported by
// report-rss.mjs, preloaded), and the median of several runs.
//
// On a machine other work loads, wall time also holds time spent waiting for a
// core; CPU time (user + system) does not. It comes from Linux's accounting of
// reaped children (/proc/self/stat), in 10 ms ticks: exact only summed over
// many runs, so benchmarks report its mean.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const rssHook = join(dirname(fileURLToPath(import.meta.url)), "report-rss.mjs");

/** CPU milliseconds (user + system) of every child this process has reaped so far, or undefined off Linux. */
export function childrenCpuMs() {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    return (Number(fields[13]) + Number(fields[14])) * 10; // cutime + cstime (fields 16 and 17), in 1/100 s
  } catch {
    return undefined;
  }
}

/** Runs `node ARGS` once; exit codes 0 and 1 (findings) are both a finished run. */
export function timeProcess(args) {
  const cpuBefore = childrenCpuMs();
  const start = performance.now();
  const run = spawnSync(process.execPath, ["--import", rssHook, ...args], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - start;
  const cpuAfter = childrenCpuMs();
  if (run.status !== 0 && run.status !== 1) throw new Error(`${args.join(" ")} exited ${run.status}: ${run.stderr}`);
  const rss = Number(/maxRSS=(\d+)/.exec(run.stderr)?.[1] ?? 0) * 1024;
  return { ms, cpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore, rss, stdout: run.stdout };
}

/** Runs each command (node arguments) `runs` times, alternating between them: a busy machine slows all alike. */
export function measureAlternately(commands, runs) {
  const samples = commands.map(() => []);
  for (let round = 0; round < runs; round++) commands.forEach((args, index) => samples[index].push(timeProcess(args)));
  return samples.map((taken) => ({
    ms: median(taken.map((sample) => sample.ms)),
    cpuMs: taken.every((sample) => sample.cpuMs !== undefined) ? taken.reduce((sum, sample) => sum + sample.cpuMs, 0) / taken.length : undefined,
    rss: Math.max(...taken.map((sample) => sample.rss)),
    stdout: taken[0].stdout,
  }));
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
