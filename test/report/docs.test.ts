import { readFileSync } from "node:fs";
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createProgram } from "../../src/cli/program.js";
import { repoRoot } from "../build/helpers.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { expectExcerptOf } from "../helpers/docs.js";
import { removeTempDirs } from "../helpers/temp-project.js";
import { reportProject } from "./helpers.js";

afterAll(removeTempDirs);

const guide = readFileSync(join(repoRoot, "docs/guide/report.md"), "utf8");
const blocks = [...guide.matchAll(/^```([a-z]*)\n([\s\S]*?)^```$/gm)].map((match) => ({ language: match[1] as string, text: match[2] as string }));

describe("the report's guide", () => {
  it("shows the Markdown summary exactly as report prints it for the project it describes", async () => {
    const sample = blocks.filter((block) => block.text.startsWith("$ gamma-prompt report --base base --format markdown\n"));
    expect(sample).toHaveLength(1);
    const project = await reportProject("tail");
    await cp(project.baseDist, join(project.root, "base"), { recursive: true });
    const run = await runCliInProcessFrom(project.root, "report", "--base", "base", "--format", "markdown");
    expect(run.code).toBe(0);
    expectExcerptOf((sample[0]?.text ?? "").replace(/^\$ .*\n/, ""), run.stdout);
  });

  it("publishes with report options that exist", () => {
    const report = createProgram({ exitCode: 0 }).commands.find((command) => command.name() === "report");
    const known = new Set(report?.options.map((option) => option.long));
    const used = blocks.filter((block) => block.language === "yaml").flatMap((block) => [...block.text.matchAll(/gamma-prompt report ([^\n]*)/g)].flatMap((match) => [...(match[1] ?? "").matchAll(/(--[a-z-]+)/g)].map((flag) => flag[1])));
    expect(used.length).toBeGreaterThan(3);
    for (const flag of used) expect(known, flag).toContain(flag);
  });
});
