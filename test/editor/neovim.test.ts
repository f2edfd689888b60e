import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { removeTempDirs } from "../helpers/temp-project.js";
import { copyEmbeddedDefault, repoRoot } from "../lsp/client.js";
import { linkCli, neovimVersion, runNeovim } from "./neovim.js";

// The language server in a real editor: Debian's Neovim, headless, with the configuration the docs give.
// CI installs it (.ci/run); elsewhere a machine without the binary skips this file, and says so.

interface Step {
  name: string;
  buffer: string;
  lines: string[];
  diagnostics: Array<{ line: number; col: number; code: string; message: string }>;
  cursor: [number, number];
  completions?: string[];
  hover?: string[];
}

interface Session {
  steps: Step[];
  notifications: Array<{ message: string; level: number }>;
  messages: string[];
  failure?: string;
}

const version = neovimVersion();
const session = fileURLToPath(new URL("./neovim-session.lua", import.meta.url));
const inCi = process.env.CI === "true";
if (version === undefined && !inCi) process.stderr.write("test/editor/neovim.test.ts skipped: no nvim binary on PATH (Debian: apt-get install neovim)\n");

afterAll(removeTempDirs);

describe.skipIf(version === undefined && !inCi)(`the language server in ${version ?? "Neovim (nvim not installed)"}`, () => {
  it("diagnoses, shows a rule's documentation, fixes, completes, hovers, jumps, shows a compiled prompt and renames a skill, with the documented configuration", async () => {
    expect(version, "CI installs neovim (.ci/run); nvim --version failed").toBeDefined();
    const root = await copyEmbeddedDefault();
    linkCli(root);
    const original = readFileSync(join(root, "skills/import/SKILL.md"), "utf8").split("\n");
    const { results, stderr } = await runNeovim<Session>(root, session);
    expect(results.failure, `${stderr}\n${JSON.stringify(results.notifications)}\n${JSON.stringify(results.steps.map((entry) => [entry.name, entry.buffer, entry.diagnostics]))}`).toBeUndefined();
    const step = (name: string): Step => {
      const found = results.steps.find((entry) => entry.name === name);
      expect(found, name).toBeDefined();
      return found as Step;
    };

    expect(step("open")).toMatchObject({ buffer: "skills/import/SKILL.md", lines: original.slice(0, -1), diagnostics: [] });

    const broken = step("broken type");
    expect(broken.lines[4]).toBe("  gamma-type: workflw");
    expect(broken.diagnostics).toEqual([{ line: 4, col: 14, code: "skill/type-value", message: 'Unexpected type "workflw", expected "workflow" or "reference"; did you mean "workflow"?' }]);

    expect(results.messages).toEqual(["Rule documentation: https://www.npmjs.com/package/gamma-prompt#rule-skill-type-value"]);

    // The quick fix puts the type back (a workflow: the body is a checklist), and the buffer is the file again.
    expect(step("quick fix")).toMatchObject({ lines: original.slice(0, -1), diagnostics: [] });

    const completion = step("completion");
    expect(completion.completions).toEqual(["drive-files"]);
    expect(completion.lines.slice(3, 7)).toEqual(["metadata:", "  gamma-type: workflow", "  gamma-requires-skills: gml-authoring gml-cli ask-user-questions drive-files", "  gamma-conflicts-with: deck-generation"]);

    const hover = step("hover").hover?.join("\n") ?? "";
    expect(hover).toContain("**gml-cli** (reference skill, `skills/gml-cli/SKILL.md`)");
    expect(hover).toMatch(/Body: [\d,]+ o200k tokens/);

    expect(step("definition")).toMatchObject({ buffer: "skills/gml-cli/SKILL.md", cursor: [2, 6] });

    const compiled = step("compiled prompt");
    expect(compiled.lines.filter((line) => line.startsWith("⟦")).map((line) => /^⟦ cache block ([a-z-]+)/.exec(line)?.[1] ?? line)).toEqual(["tools", "static-prefix", "⟦ end of the cached blocks ⟧"]);
    expect(compiled.lines.filter((line) => !line.startsWith("⟦")).join("\n")).toBe(readFileSync(join(repoRoot, "dist", "variants", "base.md"), "utf8"));

    // This Neovim cannot move a folder in a workspace edit: the rename is refused whole, with what to do instead.
    const refused = step("rename refused");
    expect(refused.buffer).toBe("skills/deck-generation/SKILL.md");
    expect(refused.lines).toContain("  gamma-conflicts-with: import");
    expect(results.notifications.map((notification) => notification.message)).toEqual([
      expect.stringMatching(/^gamma_prompt: -32803: Renaming skill "import" moves its folder skills\/import\/ to skills\/importer\/, and Neovim 0\.7\.2 cannot rename a folder in a workspace edit \(it can from 0\.9 on\)\. Rename the folder to skills\/importer\/ first/),
    ]);
    expect(step("folder moved").diagnostics.map((diagnostic) => diagnostic.code)).toContain("skill/name-mismatch");
    const renamed = step("renamed");
    expect(renamed.lines).toContain("  gamma-conflicts-with: importer");
    expect(renamed.diagnostics).toEqual([]);
    expect(step("renamed skill")).toMatchObject({ buffer: "skills/importer/SKILL.md", diagnostics: [] });
    expect(step("renamed skill").lines[1]).toBe("name: importer");

    // Saved with :wall, the project builds clean under the new name.
    expect(existsSync(join(root, "skills/import"))).toBe(false);
    expect(readFileSync(join(root, "prompts/variants.yaml"), "utf8")).toContain("preload: [importer]");
    const built = await build({ root });
    expect(built.diagnostics.filter((diagnostic) => diagnostic.severity !== "note")).toEqual([]);
    expect(built.ok).toBe(true);
  }, 300_000);
});
