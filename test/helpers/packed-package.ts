/**
 * The package as a user gets it: `npm pack` once per test run (whichever
 * test file asks first packs; the others wait for its tarball), installed
 * into a fresh project outside the repository. With `pi`, the repository's
 * own Pi packages (the pinned devDependencies, the versions the package
 * requires) are linked into the project as an install would place them.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { inject } from "vitest";
import { piPackageNames } from "../../src/protocol/pi-requirement.js";
import { tempDir } from "./temp-project.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

export interface InstalledPackage {
  /** The user's project: package.json (`"type": "module"`) and node_modules/. */
  project: string;
  /** The installed CLI's entry. */
  cli: string;
  /** What `npm install` printed (stdout and stderr). */
  installOutput: string;
}

/** The path of the tarball `npm pack` made of the repository (lib/ as `npm run build:ts` left it). */
export async function packedTarball(): Promise<string> {
  const dir = inject("packDir");
  const done = join(dir, "done.json");
  let packer = false;
  try {
    mkdirSync(join(dir, "lock"));
    packer = true;
  } catch {
    // Another test file packs: wait for its result below.
  }
  if (packer) {
    const pack = spawnSync(npm, ["pack", "--ignore-scripts", "--pack-destination", dir, "--json"], { cwd: repoRoot, encoding: "utf8", timeout: 180_000 });
    const filename = pack.status === 0 ? ((JSON.parse(pack.stdout) as Array<{ filename: string }>)[0]?.filename ?? "") : "";
    writeFileSync(done, JSON.stringify(filename === "" ? { error: `npm pack failed (${pack.status}): ${pack.stderr}` } : { tarball: join(dir, filename) }));
  }
  for (let waited = 0; !existsSync(done); waited += 100) {
    if (waited > 300_000) throw new Error("no tarball after 5 minutes: the test file packing it did not finish");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const result = JSON.parse(readFileSync(done, "utf8")) as { tarball?: string; error?: string };
  if (result.tarball === undefined) throw new Error(result.error);
  return result.tarball;
}

/** Installs the packed package (without the optional Pi peers) into a new project in a temporary folder. */
export async function installPackedPackage(options: { pi?: boolean; name?: string } = {}): Promise<InstalledPackage> {
  const tarball = await packedTarball();
  const project = await tempDir(options.name ?? "gamma-installed");
  writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "user-project", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`);
  // No --ignore-scripts: what npm says about the package's scripts is part of what is tested.
  const install = spawnSync(npm, ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund", "--omit=peer"], { cwd: project, encoding: "utf8", timeout: 300_000 });
  if (install.status !== 0) throw new Error(`npm install failed (${install.status}):\n${install.stdout}${install.stderr}`);
  if (options.pi === true) linkPi(project);
  return { project, cli: join(project, "node_modules", "gamma-prompt", "lib", "cli", "index.js"), installOutput: `${install.stdout}${install.stderr}` };
}

/** Links the repository's Pi packages into `project`'s node_modules; returns the links made. */
export function linkPi(project: string): string[] {
  return linkInstalled(project, piPackageNames());
}

/** Links packages the repository installed (its pinned devDependencies) into `project`'s node_modules, as an install of them would place them; returns the links made. */
export function linkInstalled(project: string, names: readonly string[]): string[] {
  return names.map((name) => {
    const link = join(project, "node_modules", name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(repoRoot, "node_modules", name), link, "dir");
    return link;
  });
}
