import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createProjectAnalyzer } from "../../src/analyze.js";
import { lint } from "../../src/lint.js";
import { listFiles, removeTempDirs } from "../helpers/temp-project.js";
import { copyEmbeddedDefault } from "../lsp/client.js";

afterEach(removeTempDirs);

const IMPORT = "skills/import/SKILL.md";
const IDENTITY = "prompts/partials/identity.hbs";

describe("createProjectAnalyzer", () => {
  it("gives after each incremental edit what a fresh analysis of the same buffers gives, and writes nothing", async () => {
    const root = await copyEmbeddedDefault();
    const filesBefore = await listFiles(root);
    const analyzer = createProjectAnalyzer({ root });
    expect((await analyzer.analyze()).errorCount).toBe(0);
    const skill = readFileSync(join(root, IMPORT), "utf8");
    const partial = readFileSync(join(root, IDENTITY), "utf8");
    const steps: Array<{ buffers: Map<string, string>; changedPaths: string[] }> = [
      { buffers: new Map([[IMPORT, skill.replace("name: import", "name: importer")]]), changedPaths: [IMPORT] },
      { buffers: new Map([[IMPORT, skill], [IDENTITY, `${partial}{{> nowhere}}\n`]]), changedPaths: [IMPORT, IDENTITY] },
      { buffers: new Map([[IDENTITY, `${partial}One more line.\n`]]), changedPaths: [IMPORT, IDENTITY] },
      { buffers: new Map(), changedPaths: [IDENTITY] },
    ];
    for (const step of steps) {
      const incremental = await analyzer.analyze(step);
      const fresh = await createProjectAnalyzer({ root }).analyze({ buffers: step.buffers });
      expect(incremental.diagnostics).toEqual(fresh.diagnostics);
      expect(incremental.manifest).toEqual(fresh.manifest);
    }
    expect(await listFiles(root)).toEqual(filesBefore);
  });

  it("refuses an unsaved knowledge note over 1 MiB under the note rule, as the build does from disk", async () => {
    const root = await copyEmbeddedDefault();
    const path = "knowledge/brand-images.md";
    const huge = `${readFileSync(join(root, path), "utf8")}${"x".repeat(1024 * 1024)}\n`;
    const analysis = await createProjectAnalyzer({ root }).analyze({ buffers: new Map([[path, huge]]) });
    expect(analysis.diagnostics.filter((diagnostic) => diagnostic.file === path).map((diagnostic) => diagnostic.ruleId)).toEqual(["knowledge/file-too-large"]);
  });

  it("reports lint's findings for a collection without prompts/ under the agentskills profile", async () => {
    const root = await copyEmbeddedDefault();
    const { rm } = await import("node:fs/promises");
    await rm(join(root, "prompts"), { recursive: true });
    const analysis = await createProjectAnalyzer({ root }).analyze();
    expect(analysis.profile).toBe("agentskills");
    expect(analysis.diagnostics).toEqual((await lint({ root })).diagnostics);
    expect(analysis.manifest).toBeUndefined();
  });
});
