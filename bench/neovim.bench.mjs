// The language server in Neovim (Debian's 0.7.2), headless, with the
// configuration docs/editors.md gives: in a 1,000-skill project (the embedded
// default plus synthetic skills), the time from `:edit` of a SKILL.md (which
// starts the server, the project's node_modules/.bin/gamma-prompt as the
// docs' configuration prefers) to its first diagnostics in the editor,
// measured inside Neovim; then the same for a clean second file while the
// server runs (its first publication is the empty list that says it is clean).
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadLine, median } from "./helpers/live-process.mjs";
import { createProject } from "./helpers/synthetic-project.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const SKILLS = 1000;
const RUNS = 5;
const TARGET_MS = 1000;

if (spawnSync("nvim", ["--version"]).status !== 0) {
  console.log("nvim is not installed (Debian: apt-get install neovim): nothing measured");
  process.exit(0);
}
const docs = await readFile(join(repo, "docs", "editors.md"), "utf8");
const init = /```lua\n(local gamma_prompt_clients = \{\}[\s\S]*?)```/.exec(docs)?.[1];
if (init === undefined) throw new Error("docs/editors.md has no Neovim 0.7 configuration block");

const SCRIPT = `
local results = {}
local published = {}
local show = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
  published[result.uri] = published[result.uri] or {}
  table.insert(published[result.uri], vim.loop.hrtime())
  return show(err, result, ctx, config)
end
-- The first publication for the file after it is opened (for a clean file, the empty list that says so).
local function open(path)
  local uri = vim.uri_from_fname(vim.fn.fnamemodify(path, ":p"))
  local before = #(published[uri] or {})
  local started = vim.loop.hrtime()
  vim.cmd("edit " .. path)
  if not vim.wait(60000, function() return #(published[uri] or {}) > before end, 5) then error("no diagnostics for " .. path) end
  return { ms = (published[uri][before + 1] - started) / 1e6, codes = vim.tbl_map(function(d) return d.code end, vim.diagnostic.get(0)) }
end
local ok, failure = pcall(function()
  results.cold = open("skills/synthetic-0500/SKILL.md")
  results.warm = open("skills/synthetic-0600/SKILL.md")
end)
results.failure = not ok and failure or nil
local file = io.open(os.getenv("GAMMA_NVIM_RESULTS"), "w")
file:write(vim.json.encode(results))
file:close()
vim.cmd("qa!")
`;

const root = await mkdtemp(join(tmpdir(), "gamma-nvim-bench-"));
try {
  await createProject(root, SKILLS);
  // The first file opened has a finding, so its first diagnostics are visible ones.
  for (const name of ["synthetic-0500"]) {
    const path = join(root, "skills", name, "SKILL.md");
    await writeFile(path, (await readFile(path, "utf8")).replace(`name: ${name}`, `name: ${name}-renamed`));
  }
  await mkdir(join(root, "node_modules", ".bin"), { recursive: true });
  await symlink(join(repo, "lib", "cli", "index.js"), join(root, "node_modules", ".bin", "gamma-prompt"));
  const home = await mkdtemp(join(tmpdir(), "gamma-nvim-bench-home-"));
  await writeFile(join(home, "init.lua"), init);
  await writeFile(join(home, "measure.lua"), SCRIPT);
  const cold = [];
  const warm = [];
  const loadBefore = loadLine();
  for (let run = 0; run < RUNS; run++) {
    const resultsFile = join(home, `results-${run}.json`);
    const child = spawnSync("nvim", ["--headless", "-n", "-i", "NONE", "-u", join(home, "init.lua"), "-c", `luafile ${join(home, "measure.lua")}`], {
      cwd: root,
      env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, "config"), XDG_DATA_HOME: join(home, "data"), XDG_STATE_HOME: join(home, "state"), XDG_CACHE_HOME: join(home, "cache"), GAMMA_NVIM_RESULTS: resultsFile },
      timeout: 180_000,
      encoding: "utf8",
    });
    const results = JSON.parse(await readFile(resultsFile, "utf8").catch(() => `{"failure":"no results; nvim exited ${child.status}: ${child.stderr}"}`));
    if (results.failure) throw new Error(results.failure);
    if (!results.cold.codes.includes("skill/name-mismatch")) throw new Error(`Unexpected first diagnostics: ${JSON.stringify(results.cold)}`);
    cold.push(results.cold.ms);
    warm.push(results.warm.ms);
  }
  const loadAfter = loadLine();
  await rm(home, { recursive: true, force: true });
  console.log(`\n${SKILLS} skills, Neovim ${spawnSync("nvim", ["--version"], { encoding: "utf8" }).stdout.split("\n")[0]} with the documented configuration, ${RUNS} runs`);
  console.log(`  :edit -> first diagnostics shown, server started by it   median ${median(cold).toFixed(0).padStart(5)} ms   runs ${cold.map((ms) => ms.toFixed(0)).join(", ")}   target < ${TARGET_MS} ms: ${median(cold) < TARGET_MS ? "met" : "NOT met"}`);
  console.log(`  :edit of a clean second file -> its first publication, server running  median ${median(warm).toFixed(0).padStart(5)} ms   runs ${warm.map((ms) => ms.toFixed(0)).join(", ")}`);
  console.log(`  ${loadBefore} before, ${loadAfter} after`);
} finally {
  await rm(root, { recursive: true, force: true });
}
