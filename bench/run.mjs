// Runs every benchmark in bench/ (files named *.bench.mjs), one after another,
// each in its own process so one benchmark's heap never skews the next.
// Arguments name benchmarks (part of a file name); those that start with `--`
// are passed to each benchmark run (`npm run bench -- startup --installed`).
// Ends with every line that held a target's verdict ("ok" or "met", "MISSED" or "NOT met"), by
// benchmark, and the load average, so one run says which targets hold.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const passed = process.argv.slice(2).filter((arg) => arg.startsWith("--"));
const files = readdirSync(here)
  .filter((name) => name.endsWith(".bench.mjs"))
  .filter((name) => only.length === 0 || only.some((filter) => name.includes(filter)))
  .sort();
/** A line that states a target and whether it held. */
const VERDICT = /\btarget\b.*\b(?:ok|MISSED|OVER|met)\b|\b(?:ok|MISSED|OVER|met)\b.*\btarget\b/;
/** A verdict that says the target was not held. */
const MISSED = /\b(?:MISSED|OVER|NOT met)\b/;
const verdicts = [];
let failed = false;
const loadBefore = loadavg()[0];
for (const file of files) {
  process.stdout.write(`\n=== ${file}\n`);
  const status = await new Promise((resolve) => {
    const child = spawn(process.execPath, ["--expose-gc", join(here, file), ...passed], { stdio: ["inherit", "pipe", "inherit"] });
    let pending = "";
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) if (VERDICT.test(line)) verdicts.push(`${file.replace(".bench.mjs", "")}: ${line.trim()}`);
    });
    child.on("close", (code) => {
      if (pending !== "" && VERDICT.test(pending)) verdicts.push(`${file.replace(".bench.mjs", "")}: ${pending.trim()}`);
      resolve(code);
    });
  });
  if (status !== 0) failed = true;
}
if (verdicts.length > 0) {
  const missed = verdicts.filter((line) => MISSED.test(line)).length;
  process.stdout.write(`\n=== targets (load average ${loadBefore.toFixed(2)} at the start, ${loadavg()[0].toFixed(2)} at the end): ${verdicts.length - missed} held, ${missed} missed\n`);
  for (const line of verdicts) process.stdout.write(`${line}\n`);
}
process.exitCode = failed ? 1 : 0;
