// Whole-process timing shared by the benchmarks that compare a CLI run with
// a peer's: wall time of one process, its peak RSS (reported by
// report-rss.mjs, preloaded), and the median of several runs.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const rssHook = join(dirname(fileURLToPath(import.meta.url)), "report-rss.mjs");

/** Runs `node ARGS` once; exit codes 0 and 1 (findings) are both a finished run. */
export function timeProcess(args) {
  const start = performance.now();
  const run = spawnSync(process.execPath, ["--import", rssHook, ...args], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - start;
  if (run.status !== 0 && run.status !== 1) throw new Error(`${args.join(" ")} exited ${run.status}: ${run.stderr}`);
  const rss = Number(/maxRSS=(\d+)/.exec(run.stderr)?.[1] ?? 0) * 1024;
  return { ms, rss, stdout: run.stdout };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
