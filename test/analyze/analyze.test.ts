import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createProjectAnalyzer, type ProjectAnalyzer } from "../../src/analyze.js";
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

  it("types skills by the config's skillTypes in the skills scope as in the whole project, and warns at a key that matches no skill folder in both", async () => {
    const root = await copyEmbeddedDefault();
    const path = "skills/ask-user-questions/SKILL.md";
    const skill = readFileSync(join(root, path), "utf8");
    expect(skill).toContain("metadata:\n  gamma-type: reference\n");
    writeFileSync(join(root, path), skill.replace("metadata:\n  gamma-type: reference\n", ""));
    // The bare folder name is a folder at the root and types nothing; the full path types the skill.
    writeFileSync(join(root, "gamma-prompt.config.json"), `${JSON.stringify({ skillTypes: { "ask-user-questions": "workflow", "skills/ask-user-questions": "reference" } }, null, 2)}\n`);
    const findings = (analysis: { diagnostics: Array<{ file: string; line: number; column: number; ruleId: string; message: string }> }): string[] =>
      analysis.diagnostics.map((diagnostic) => `${diagnostic.file}:${diagnostic.line}:${diagnostic.column} ${diagnostic.ruleId} ${diagnostic.message.slice(diagnostic.message.indexOf("; did you mean"))}`);
    const expected = ['gamma-prompt.config.json:3:5 config/unmatched-skill-type ; did you mean "skills/ask-user-questions"?'];
    expect(findings(await createProjectAnalyzer({ root }).analyze({ scope: "skills" }))).toEqual(expected);
    const whole = await createProjectAnalyzer({ root }).analyze();
    expect(findings(whole)).toEqual(expected);
    expect(whole.manifest?.skills["ask-user-questions"]?.type).toBe("reference");
  });

  it("tells its findings once, exactly those it resolves to, and goes on only when the promise the callback returns settles", async () => {
    const root = await copyEmbeddedDefault();
    const skill = readFileSync(join(root, IMPORT), "utf8");
    const runs: Array<{ name: string; input: Parameters<ProjectAnalyzer["analyze"]>[0] }> = [
      { name: "clean, compiled", input: {} },
      { name: "an error in a skill", input: { buffers: new Map([[IMPORT, skill.replace("name: import", "name: importer")]]) } },
      { name: "a broken partial", input: { buffers: new Map([[IDENTITY, "{{> nowhere}}\n"]]) } },
      { name: "skills scope", input: { scope: "skills" } },
    ];
    const analyzer = createProjectAnalyzer({ root });
    for (const { name, input } of runs) {
      const told: Array<readonly unknown[]> = [];
      let resolved = false;
      let heldWhileResolved = false;
      const analysis = analyzer
        .analyze({
          ...input,
          onFindings: async (diagnostics) => {
            told.push(diagnostics);
            await new Promise((resolve) => setTimeout(resolve, 20));
            heldWhileResolved ||= resolved;
          },
        })
        .then((result) => {
          resolved = true;
          return result;
        });
      const result = await analysis;
      expect(told, name).toEqual([result.diagnostics]);
      expect(heldWhileResolved, name).toBe(false);
      if (name === "clean, compiled") {
        expect(result.errorCount).toBe(0);
        expect(result.manifest).toBeDefined();
      } else if (name !== "skills scope") expect(result.errorCount).toBeGreaterThan(0);
    }
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

describe("an agent whose config gives lint the agentskills profile", () => {
  it("has its tools, variants and other sources checked as lint checks them, unsaved text included", async () => {
    const root = await copyEmbeddedDefault();
    writeFileSync(join(root, "gamma-prompt.config.json"), `${JSON.stringify({ profile: "agentskills" })}\n`);
    const bash = JSON.parse(readFileSync(join(root, "schemas/tools/bash.json"), "utf8")) as { name: string };
    const renamed = `${JSON.stringify({ ...bash, name: "bash2" }, null, 2)}\n`;
    writeFileSync(join(root, "schemas/tools/bash.json"), renamed);
    const expected = (await lint({ root })).diagnostics.filter((diagnostic) => diagnostic.ruleId === "tool/name-mismatch");
    expect(expected.map((diagnostic) => `${diagnostic.file}:${diagnostic.line}:${diagnostic.column}`)).toEqual(["schemas/tools/bash.json:2:11"]);
    const analyzer = createProjectAnalyzer({ root });
    const found = (await analyzer.analyze()).diagnostics.filter((diagnostic) => diagnostic.ruleId === "tool/name-mismatch");
    expect(found).toEqual(expected);
    // The same from an editor's unsaved buffer, the file on disk mended.
    writeFileSync(join(root, "schemas/tools/bash.json"), `${JSON.stringify(bash, null, 2)}\n`);
    const unsaved = await analyzer.analyze({ buffers: new Map([["schemas/tools/bash.json", renamed]]), changedPaths: ["schemas/tools/bash.json"] });
    expect(unsaved.diagnostics.filter((diagnostic) => diagnostic.ruleId === "tool/name-mismatch")).toEqual(expected);
    const mended = await analyzer.analyze({ changedPaths: ["schemas/tools/bash.json"] });
    expect(mended.diagnostics.filter((diagnostic) => diagnostic.ruleId === "tool/name-mismatch")).toEqual([]);
  });
});

describe("an unsaved SKILL.md in a folder not made yet", () => {
  it("has the findings of its own text only: a folder that is not on disk holds no supporting file, and is no unreadable folder", async () => {
    const root = await copyEmbeddedDefault();
    const analyzer = createProjectAnalyzer({ root });
    const text = "---\nname: speaker-notes\ndescription: Use when writing the speaker notes of a card.\nmetadata:\n  gamma-type: reference\n---\n\n# Speaker notes\n\nKeep notes under 120 words per card.\n";
    const analysis = await analyzer.analyze({ buffers: new Map([["skills/speaker-notes/SKILL.md", text]]), changedPaths: ["skills/speaker-notes/SKILL.md"] });
    expect(analysis.diagnostics.filter((diagnostic) => diagnostic.file.startsWith("skills/speaker-notes"))).toEqual([]);
  });
});
