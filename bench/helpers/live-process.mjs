// Measuring a long-running child process (a watcher, a language server) from
// the benchmark that drives it: its CPU time so far, the machine's load, and
// percentiles of the latencies observed.
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";

/** User + system CPU milliseconds a running process has used so far (Linux /proc; undefined elsewhere). */
export function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name: state is field 3, utime and stime are fields 14 and 15 (clock ticks of 10 ms).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

export function loadLine() {
  return `load average ${loadavg().map((value) => value.toFixed(2)).join(" ")} on ${cpus().length} cores`;
}

export function median(values) {
  return percentile(values, 0.5);
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}
