import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { delimiter, join, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const bin = join(root, "lib/cli/bin.cjs");
const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const floor = /^>=(\d+)\.(\d+)$/.exec(packageJson.engines.node);

function olderThanFloor(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  const [floorMajor, floorMinor] = [Number(floor?.[1]), Number(floor?.[2])];
  return major < floorMajor || (major === floorMajor && minor < floorMinor);
}

/** A Node on PATH outside any node_modules (the machine's own, e.g. Node 20), if it is older than the floor. */
function systemNodeBelowFloor(): { path: string; version: string } | undefined {
  for (const folder of (process.env["PATH"] ?? "").split(delimiter)) {
    if (folder === "" || folder.split(sep).includes("node_modules")) continue;
    const path = join(folder, "node");
    try {
      const version = execFileSync(path, ["--version"], { encoding: "utf8" }).trim();
      if (olderThanFloor(version)) return { path, version };
    } catch {
      // No node in this folder.
    }
  }
  return undefined;
}

describe("the Node floor", () => {
  it("is one minor version in engines, the pinned Node meets it, and the CLI checks the same one", () => {
    expect(floor).not.toBeNull();
    const pinned = packageJson.devDependencies["node"] ?? "";
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(olderThanFloor(pinned)).toBe(false);
    expect(olderThanFloor(process.versions.node)).toBe(false);
    const source = readFileSync(join(root, "src/cli/bin.cts"), "utf8");
    expect(source).toContain(`const MINIMUM_NODE: readonly [number, number] = [${floor?.[1]}, ${floor?.[2]}];`);
    // docs/node-and-pi.md shows the refusal and names the pinned Node.
    const doc = readFileSync(join(root, "docs/node-and-pi.md"), "utf8");
    expect(doc).toContain(`    gamma-prompt needs Node.js ${floor?.[1]}.${floor?.[2]} or later; this is Node.js 20.`);
    expect(doc).toContain(`**Node ${floor?.[1]}.${floor?.[2]} or later** (\`engines.node\` is \`>=${floor?.[1]}.${floor?.[2]}\`)`);
    expect(doc).toContain(`(\`${pinned}\`)`);
  });

  const older = systemNodeBelowFloor();
  it.skipIf(older === undefined)("an older Node running the bin gets one line naming the required version and exit code 2", () => {
    for (const args of [["lint"], ["--version"], ["build", "--help"]]) {
      const run = spawnSync(older?.path ?? "node", [bin, ...args], { cwd: root, encoding: "utf8" });
      expect(run.status).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toBe(`gamma-prompt needs Node.js ${floor?.[1]}.${floor?.[2]} or later; this is Node.js ${older?.version.replace(/^v/, "")}\n`);
    }
  });
});
