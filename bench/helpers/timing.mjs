// In-process timing shared by the runtime benchmarks: a warm-up, a full GC,
// then the median and p95 of many runs, printed against a target.

export function measure(runs, fn) {
  for (let i = 0; i < Math.min(50, runs); i++) fn(); // warm the JIT and the page cache
  globalThis.gc?.();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], p95: times[Math.floor(times.length * 0.95)] };
}

export function row(label, { median, p95 }, target, width = 54) {
  console.log(`${label.padEnd(width)} median ${median.toFixed(3).padStart(7)} ms   p95 ${p95.toFixed(3).padStart(7)} ms   target <= ${target} ms ${median <= target ? "ok" : "MISSED"}`);
}
