// The runtime's own costs, in process, on the compiled lib/:
//   1. loadArtifacts() on the embedded default dist/ (read + sha256-verify
//      every artifact): median of many runs, target <= 10 ms;
//   2. one turn's runtime work with 20 active skills and 100 tasks: building
//      the turn's messages and one durable change, on the memory and the file
//      store, target <= 1 ms.
//   Also shown: rendering the compaction anchor for the same state.
// GAMMA_RUNTIME=/path/to/other/lib/runtime/index.js measures another build's
// per-turn work beside this one's, on the same machine in the same process.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { defaultDistDir, loadArtifacts } from "../lib/runtime/index.js";
import { measure, row as printRow } from "./helpers/timing.mjs";

const distDir = process.env.GAMMA_DIST ?? defaultDistDir();

const row = (label, result, target) => printRow(label, result, target);

// 1. Load and verify.
if (existsSync(join(distDir, "manifest.json"))) {
  const loaded = loadArtifacts({ distDir });
  const files = Object.keys(loaded.manifest.artifacts).length;
  const bytes = Object.values(loaded.manifest.artifacts).reduce((sum, entry) => sum + entry.bytes, 0);
  row(`loadArtifacts (${files} files, ${(bytes / 1024).toFixed(1)} KiB)`, measure(500, () => loadArtifacts({ distDir })), 10);
} else {
  console.log(`loadArtifacts: skipped, no dist/ at ${distDir} (run the build first)`);
}

// 2. Per-turn work with a synthetic dist in memory: 20 skills, all active, 100 tasks.
const skills = new Map();
for (let i = 0; i < 20; i++) {
  const name = `skill-${String(i).padStart(2, "0")}`;
  const body = `# ${name}\n\n${Array.from({ length: 40 }, (_, line) => `${line + 1}. Step ${line + 1} of ${name}: render, inspect and repair.`).join("\n")}\n`;
  skills.set(name, { name, type: i % 4 === 0 ? "reference" : "workflow", description: `Use for ${name}.`, body, requiresSkills: [], conflictsWith: [], toolNamespaces: [], baseDir: `skills/${name}`, files: new Map(), modelInvocable: true });
}
const variant = { file: "variants/base.md", sha256: "", bytes: 0, tokens: 0, preloadedSkills: [], sharedPrefixTokens: 0, cacheableTokens: 0 };
const artifacts = {
  manifest: { variants: { base: variant, "deck-generation": variant, import: variant }, artifacts: {}, staticPrefix: { file: "prefix.md", sha256: "", bytes: 0, tokens: 0, toolsSha256: "", cacheKey: "" } },
  prefix: "prefix\n",
  catalog: "",
  variants: { base: "prefix\n", "deck-generation": "prefix\n", import: "prefix\n" },
  tools: [],
  skills,
  injectionKinds: [],
  namespaces: new Map(),
};
const folder = mkdtempSync(join(tmpdir(), "gamma-runtime-bench-"));
const builds = [{ label: "this build", url: new URL("../lib/runtime/index.js", import.meta.url).href }];
if (process.env.GAMMA_RUNTIME) builds.push({ label: "other build", url: pathToFileURL(process.env.GAMMA_RUNTIME).href });
const tasks = Array.from({ length: 100 }, (_, i) => ({ id: `t${i}`, title: `Task ${i}: write and verify card ${i}`, status: i < 40 ? "complete" : i === 40 ? "in_progress" : "pending" }));
let files = 0;
for (const { label, url } of builds) {
  const { FileStateStore, MemoryStateStore, SessionProtocolController } = await import(url);
  for (const kind of ["memory", "file"]) {
    const store = kind === "memory" ? new MemoryStateStore() : new FileStateStore(join(folder, `state-${files++}.json`));
    const controller = new SessionProtocolController({ artifacts, variant: "base", store });
    for (const name of skills.keys()) controller.activateSkill(name);
    controller.updateTasks(tasks);
    let turn = 0;
    row(
      `${label}, ${kind}: per turn, buildTurnMessages + one durable change`,
      measure(2000, () => {
        controller.buildTurnMessages({ text: `user turn ${turn++}` });
        controller.setCurrentArtifacts([{ ref: `gamma:file:g_1:d_${turn % 7}` }]);
      }),
      1,
      66,
    );
    row(`${label}, ${kind}: todo update (validate 100 tasks + persist)`, measure(2000, () => controller.updateTasks(tasks)), 1, 66);
    if (kind === "file") row(`${label}: anchor for compaction recovery (20 bodies, 100 tasks)`, measure(2000, () => controller.anchorMessage()), 1, 66);
    controller.close();
  }
}
rmSync(folder, { recursive: true, force: true });
