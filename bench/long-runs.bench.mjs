// A skill whose body is one character repeated (a hostile or broken file):
// whole `build` processes through the package's bin on the embedded default
// plus that skill, at 100 KB, 200 KB, 400 KB and just under the 1 MiB limit,
// for three characters ("=", "a", "<"). Such a body is one o200k pre-token,
// which the tokenizer's own merge handles in time quadratic in its length.
// Target: the 1 MiB build takes at most 3× the CPU time of the 100 KB one
// (linear work plus start-up; quadratic work would be about 110×). CPU time,
// not wall time: a busy machine stretches the wall time of one run.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { median, timeProcess } from "./helpers/process-timing.mjs";
import { createProject } from "./helpers/synthetic-project.mjs";

const bin = join(dirname(fileURLToPath(import.meta.url)), "..", "lib", "cli", "bin.cjs");
const SIZES = [100_000, 200_000, 400_000, 1_048_400];
const CHARACTERS = ["=", "a", "<"];
const RUNS = 3;
const HEAD = "---\nname: long-run\ndescription: Use when a body is one character repeated.\nmetadata:\n  gamma-type: reference\n---\n\n";

const root = mkdtempSync(join(tmpdir(), "gamma-long-runs-bench-"));
let held = true;
try {
  const project = join(root, "project");
  await createProject(project, 0);
  mkdirSync(join(project, "skills", "long-run"));
  for (const character of CHARACTERS) {
    const cpuTimes = [];
    for (const size of SIZES) {
      writeFileSync(join(project, "skills", "long-run", "SKILL.md"), `${HEAD}${character.repeat(size)}\n`);
      const wall = [];
      let cpu = 0;
      for (let run = 0; run < RUNS; run++) {
        rmSync(join(project, "dist"), { recursive: true, force: true });
        rmSync(join(project, ".gamma-prompt"), { recursive: true, force: true });
        const sample = timeProcess([bin, "build", "--root", project]);
        if (!/wrote \d+/.test(sample.stdout)) throw new Error(`build of a ${size}-character run of ${JSON.stringify(character)} did not write dist/: ${sample.stdout}`);
        wall.push(sample.ms);
        cpu += sample.cpuMs ?? sample.ms;
      }
      cpuTimes.push(cpu / RUNS);
      console.log(`${JSON.stringify(character)} × ${String(size).padStart(9)}: build ${median(wall).toFixed(0).padStart(6)} ms wall (median), ${(cpu / RUNS).toFixed(0).padStart(6)} ms CPU (mean)`);
    }
    const ratio = cpuTimes[cpuTimes.length - 1] / cpuTimes[0];
    const met = ratio <= 3;
    held &&= met;
    console.log(`${JSON.stringify(character)}: CPU 1 MiB ÷ 100 KB = ${ratio.toFixed(2)}×, target <= 3× ${met ? "met" : "MISSED"}`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
process.exitCode = held ? 0 : 1;
