/**
 * Neovim driven headless with the configuration docs/editors.md gives for
 * Neovim 0.7 to 0.10, on a project folder whose `npx gamma-prompt` is this
 * repository's built CLI (as it is for a project that installed the package).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { docPage } from "../helpers/docs.js";
import { tempDir } from "../helpers/temp-project.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const editorsPage = docPage("docs/editors.md");

/** `nvim --version`'s first line, or undefined where there is no nvim binary. */
export function neovimVersion(): string | undefined {
  const probe = spawnSync("nvim", ["--version"], { encoding: "utf8", timeout: 20_000 });
  return probe.status === 0 ? probe.stdout.split("\n")[0] : undefined;
}

/** The docs' configuration for Neovim before 0.11, and their snippet that shows a compiled prompt. */
export function documentedConfiguration(): { init: string; compiledPrompt: string } {
  return {
    init: editorsPage.blockStartingWith("local gamma_prompt_clients = {}", "lua"),
    compiledPrompt: editorsPage.blockStartingWith('vim.lsp.buf_request(0, "workspace/executeCommand"', "lua"),
  };
}

/** Makes `npx gamma-prompt` in `project` run this repository's built CLI. */
export function linkCli(project: string): void {
  mkdirSync(join(project, "node_modules", ".bin"), { recursive: true });
  symlinkSync(join(repoRoot, "lib", "cli", "index.js"), join(project, "node_modules", ".bin", "gamma-prompt"));
}

/** Runs `script` (a Lua file) in a headless Neovim inside `project`, after the documented init.lua; resolves to what it wrote to $GAMMA_NVIM_RESULTS. */
export async function runNeovim<T>(project: string, script: string, env: Record<string, string> = {}, timeoutMs = 240_000): Promise<{ results: T; stderr: string }> {
  const home = await tempDir("gamma-nvim-home");
  const init = join(home, "init.lua");
  const { init: config, compiledPrompt } = documentedConfiguration();
  writeFileSync(init, config);
  const resultsFile = join(home, "results.json");
  const child = spawn("nvim", ["--headless", "-n", "-i", "NONE", "-u", init, "-c", `luafile ${script}`], {
    cwd: project,
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, "config"), XDG_DATA_HOME: join(home, "data"), XDG_STATE_HOME: join(home, "state"), XDG_CACHE_HOME: join(home, "cache"), GAMMA_NVIM_RESULTS: resultsFile, GAMMA_NVIM_COMPILED_PROMPT_SNIPPET: compiledPrompt, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  child.stdout.resume();
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearTimeout(timer);
  let text: string;
  try {
    text = readFileSync(resultsFile, "utf8");
  } catch {
    throw new Error(`nvim exited with ${code} and wrote no results; stderr: ${stderr}`);
  }
  return { results: JSON.parse(text) as T, stderr };
}
