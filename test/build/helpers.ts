import { spawnSync } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { copyParts, listFiles, tempDir } from "../helpers/temp-project.js";

export { listFiles, removeTempDirs, snapshotTree, tempDir } from "../helpers/temp-project.js";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
export const fixturesDir = join(repoRoot, "test/fixtures/build");
export const cliPath = join(repoRoot, "lib/cli/index.js");
export { UPDATE_GOLDEN as updateGolden } from "../helpers/golden.js";

/** Copies the sources of a fixture project (not its expected output) into a new temp root. */
export async function copyProject(fixture: string, into?: string): Promise<string> {
  const root = into ?? join(await tempDir(), "project root");
  return copyParts(join(fixturesDir, fixture), ["skills", "prompts", "schemas", "knowledge", "gamma-prompt.config.json"], root);
}

/**
 * The basic project with `count` more skills, two sources each (SKILL.md and a reference), and budgets
 * large enough to hold them: a project large enough for a build to count its tokens on a worker thread.
 */
export async function largeProject(count: number, into?: string): Promise<string> {
  const root = await copyProject("basic", into);
  for (let index = 0; index < count; index++) {
    const name = `generated-${String(index).padStart(3, "0")}`;
    await mkdir(join(root, "skills", name, "references"), { recursive: true });
    const body = [`# Generated ${index}`, "", "Read [the terms](references/terms.md) first.", "", ...Array.from({ length: 12 }, (_, step) => `${step + 1}. Edit card ${step + 1} of deck ${index} and keep its title.`), ""];
    await writeFile(join(root, "skills", name, "SKILL.md"), ["---", `name: ${name}`, "type: workflow", `description: Use when the task concerns generated topic ${index} and the cards of its deck.`, "---", "", ...body].join("\n"));
    await writeFile(join(root, "skills", name, "references", "terms.md"), `# Terms of topic ${index}\n\nA card is one slide.\n`);
  }
  await writeFile(join(root, "gamma-prompt.config.json"), JSON.stringify({ budgets: { prefixTokens: 400000, catalogTokens: 400000 } }));
  return root;
}

/**
 * The basic project with a case folder's files laid over it: every file but
 * the expected output (expected.json, expected/), and without the basic
 * project's files that the case's removed.json lists.
 */
export async function projectWithOverlay(caseDir: string): Promise<string> {
  const root = await copyProject("basic");
  const files = await listFiles(caseDir);
  for (const file of files) {
    if (file.startsWith("expected")) continue;
    if (file === REMOVED_FILE) {
      for (const removed of JSON.parse(await readFile(join(caseDir, file), "utf8")) as string[]) await rm(join(root, removed));
      continue;
    }
    await mkdir(dirname(join(root, file)), { recursive: true });
    await writeFile(join(root, file), await readFile(join(caseDir, file)));
  }
  return root;
}

/** A case's list of the basic project's files it leaves out. */
const REMOVED_FILE = "removed.json";

/** Runs the compiled CLI in a child process, as a user or CI would. */
export function spawnCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...options.env },
    encoding: "utf8",
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Merges a case folder's layout.json (`skills`, `ignore`) into the project's gamma-prompt.config.json. */
export async function applyLayout(root: string, caseDir: string): Promise<void> {
  const configPath = join(root, "gamma-prompt.config.json");
  const layout = JSON.parse(await readFile(join(caseDir, "layout.json"), "utf8")) as object;
  await writeFile(configPath, JSON.stringify({ ...(JSON.parse(await readFile(configPath, "utf8")) as object), ...layout }, null, 2));
}
