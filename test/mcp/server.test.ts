import { execFileSync, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { check } from "../../src/check.js";
import { explainRule, formatExplanation, ruleIds } from "../../src/diagnostics/rules/explain.js";
import { lint } from "../../src/lint.js";
import { runCliInProcess, runCliInProcessFrom } from "../helpers/cli.js";
import { docPage } from "../helpers/docs.js";
import { copyParts, tempDir } from "../helpers/temp-project.js";
import { repoRoot } from "../lsp/client.js";
import { closeSessionsAndFolders, embeddedDefault, startMcp, structured, toolError } from "./client.js";

const IMPORT = "skills/import/SKILL.md";
const PLAIN = join(repoRoot, "test", "fixtures", "mcp", "plain-collection");
const TOOLS = ["lint", "lint_text", "explain_rule", "fix_file", "check_cache", "show_variant", "skill_graph"];

interface Finding {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: string;
  ruleId: string;
  message: string;
  url: string;
  fix?: string;
}
interface Lint {
  scope: string;
  profile: string;
  errorCount: number;
  warningCount: number;
  diagnostics: Finding[];
}

afterEach(closeSessionsAndFolders);


describe("gamma-prompt mcp: what it offers", () => {
  it("lists its tools, each with a description saying when to call it and schemas for input and output; and its resources", async () => {
    const session = await startMcp(await embeddedDefault());
    expect(session.client.getServerVersion()?.name).toBe("gamma-prompt");
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.description, tool.name).toMatch(/Call it|Call /);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
    }
    const { resources } = await session.client.listResources();
    const uris = resources.map((resource) => resource.uri);
    expect(uris.slice(0, 4)).toEqual(["gamma-prompt://project/dist/manifest.json", "gamma-prompt://project/dist/variants/base.md", "gamma-prompt://project/dist/variants/deck-generation.md", "gamma-prompt://project/dist/variants/import.md"]);
    expect(uris.slice(4)).toEqual(ruleIds().map((id) => `gamma-prompt://rules/${id}`));
    const text = async (uri: string): Promise<string> => {
      const [content] = (await session.client.readResource({ uri })).contents;
      return content && "text" in content ? content.text : "";
    };
    expect(await text("gamma-prompt://project/dist/variants/import.md")).toBe(readFileSync(join(repoRoot, "dist", "variants", "import.md"), "utf8"));
    expect(JSON.parse(await text("gamma-prompt://project/dist/manifest.json"))).toEqual(JSON.parse(readFileSync(join(repoRoot, "dist", "manifest.json"), "utf8")));
    // Each output file by its type: the catalog is XML, plans JSON, prompts Markdown.
    for (const [file, mimeType] of [["catalog.xml", "application/xml"], ["cache-plan.json", "application/json"], ["prefix.md", "text/markdown"]]) {
      expect((await session.client.readResource({ uri: `gamma-prompt://project/dist/${file}` })).contents[0], file).toMatchObject({ mimeType });
    }
    const page = await session.client.readResource({ uri: "gamma-prompt://rules/skill/type-value" });
    expect(page.contents[0]).toMatchObject({ mimeType: "text/markdown", text: readFileSync(join(repoRoot, "docs", "rules", "skill", "type-value.md"), "utf8") });
    const { resourceTemplates } = await session.client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(["gamma-prompt://rules/{rule}", "gamma-prompt://project/{+path}"]);
  });
});

describe("gamma-prompt mcp on the embedded default", () => {
  it("lints the project, a skill folder, a file and unsaved text, with rule ids, doc URLs and the fixes available", async () => {
    const root = await embeddedDefault();
    const session = await startMcp(root);
    const clean = structured<Lint>(await session.call("lint"));
    expect(clean).toMatchObject({ scope: ".", profile: "gamma", errorCount: 0, warningCount: 0, diagnostics: [] });

    const original = readFileSync(join(root, IMPORT), "utf8");
    writeFileSync(join(root, IMPORT), original.replace("  gamma-type: workflow\n", ""));
    const whole = structured<Lint>(await session.call("lint"));
    // The same findings `gamma-prompt lint` reports, each with its safe fix where it has one.
    const expected = (await lint({ root, checklists: false })).diagnostics;
    expect(whole.diagnostics.map(({ fix: _fix, ...finding }) => finding)).toEqual(expected);
    const missing = whole.diagnostics.find((finding) => finding.ruleId === "skill/missing-key");
    expect(missing).toMatchObject({ file: IMPORT, line: 1, column: 1, severity: "error", url: "https://www.npmjs.com/package/gamma-prompt#rule-skill-missing-key", fix: expect.stringContaining("type: workflow") });
    expect(structured<Lint>(await session.call("lint", { path: "skills/import" })).diagnostics.every((finding) => finding.file.startsWith("skills/import/"))).toBe(true);
    expect(structured<Lint>(await session.call("lint", { path: "skills/gml-cli/SKILL.md" }))).toMatchObject({ scope: "skills/gml-cli/SKILL.md", diagnostics: [] });
    writeFileSync(join(root, IMPORT), original);

    const unsaved = structured<Lint & { path: string }>(await session.call("lint_text", { text: original.replace("type: workflow", "type: workflw") }));
    expect(unsaved.path).toBe(IMPORT);
    expect(unsaved.diagnostics).toEqual([
      {
        file: IMPORT,
        line: 5,
        column: 15,
        endLine: 5,
        endColumn: 22,
        severity: "error",
        ruleId: "skill/type-value",
        message: 'Unexpected type "workflw", expected "workflow" or "reference"; did you mean "workflow"?',
        url: "https://www.npmjs.com/package/gamma-prompt#rule-skill-type-value",
      },
    ]);
    // A new skill that is not on disk yet, checked against the others: it requires one that does not exist.
    const draft = "---\nname: deck-review\ntype: reference\ndescription: Use when reviewing a finished deck card by card before it is shared.\nrequiresSkills: [gml-cli, deck-critic]\n---\n\n# Deck review\n\nRead each card against the brief.\n";
    const drafted = structured<Lint & { path: string }>(await session.call("lint_text", { text: draft }));
    expect(drafted.path).toBe("skills/deck-review/SKILL.md");
    expect(drafted.diagnostics.map((finding) => finding.ruleId)).toEqual(["skill/reference-unknown"]);
    // What lint_text saw stays unsaved: the project on disk is still clean.
    expect(structured<Lint>(await session.call("lint")).diagnostics).toEqual([]);
  });

  it("explains a rule as `gamma-prompt explain` does", async () => {
    const session = await startMcp(await embeddedDefault());
    const explained = structured(await session.call("explain_rule", { rule: "skill/type-value" }));
    expect(explained).toEqual(explainRule("skill/type-value"));
    const cli = await runCliInProcess("explain", "skill/type-value");
    expect(formatExplanation(explainRule("skill/type-value"))).toBe(cli.stdout);
    // A long argument is quoted by its start only.
    expect(toolError(await session.call("explain_rule", { rule: "x".repeat(2 * 1024 * 1024) }))).toBe(
      `Unexpected rule ${JSON.stringify("x".repeat(100))}… (${2 * 1024 * 1024} characters), expected a rule id such as skill/description-trigger (every finding names its rule)`,
    );
    expect(toolError(await session.call("explain_rule", { rule: "skill/type-valu" }))).toBe('Unexpected rule "skill/type-valu", expected a rule id such as skill/description-trigger (every finding names its rule); did you mean "skill/type-value"?');
    // A rule named without its category, as a finding's tail shows it: the same suggestions as the CLI's explain.
    expect(toolError(await session.call("explain_rule", { rule: "unknown-skill" }))).toBe(
      'Unexpected rule "unknown-skill", expected a rule id such as skill/description-trigger (every finding names its rule); did you mean one of "audit/unknown-skill", "knowledge/unknown-skill", "variant/unknown-skill"?',
    );
    expect(toolError(await session.call("explain_rule", { rule: "type-value" }))).toBe('Unexpected rule "type-value", expected a rule id such as skill/description-trigger (every finding names its rule); did you mean "skill/type-value"?');
  });

  it("returns the safe fixes of a file as a diff, and writes them only when asked", async () => {
    const root = await embeddedDefault();
    const session = await startMcp(root);
    const original = readFileSync(join(root, IMPORT), "utf8");
    const broken = original.replace("  gamma-type: workflow\n", "");
    writeFileSync(join(root, IMPORT), broken);
    const preview = structured<{ written: boolean; diff: string; fixes: Array<{ ruleId: string }> }>(await session.call("fix_file", { path: IMPORT }));
    expect(preview.written).toBe(false);
    expect(preview.fixes.map((fix) => fix.ruleId)).toEqual(["skill/missing-key"]);
    expect(preview.diff).toBe(
      `--- a/${IMPORT}\n+++ b/${IMPORT}\n@@ -2,6 +2,7 @@\n name: import\n description: ${original.split("\n")[2]?.slice("description: ".length)}\n metadata:\n+  gamma-type: workflow\n   gamma-requires-skills: gml-authoring gml-cli ask-user-questions\n   gamma-conflicts-with: deck-generation\n ---\n`,
    );
    expect(readFileSync(join(root, IMPORT), "utf8")).toBe(broken);
    const written = structured<{ written: boolean; remaining: unknown[] }>(await session.call("fix_file", { path: IMPORT, write: true }));
    expect(written).toMatchObject({ written: true, remaining: [] });
    expect(readFileSync(join(root, IMPORT), "utf8")).toBe(original);
    expect(structured<{ written: boolean; diff: string }>(await session.call("fix_file", { path: IMPORT, write: true }))).toMatchObject({ written: false, diff: "" });
  });

  it("says why it leaves a SKILL.md reached through a symbolic link unfixed, and writes nothing through it", async () => {
    const root = await embeddedDefault();
    const original = readFileSync(join(root, IMPORT), "utf8");
    const broken = original.replace("  gamma-type: workflow\n", "");
    mkdirSync(join(root, "shared"), { recursive: true });
    writeFileSync(join(root, "shared", "SKILL.md"), broken);
    rmSync(join(root, IMPORT));
    symlinkSync(relative(dirname(join(root, IMPORT)), join(root, "shared", "SKILL.md")), join(root, IMPORT));
    const session = await startMcp(root);
    const answer = structured<{ written: boolean; notFixed?: string; diff: string; remaining: Array<{ ruleId: string }> }>(await session.call("fix_file", { path: IMPORT, write: true }));
    expect(answer).toMatchObject({ written: false, diff: "", notFixed: "it is a symbolic link (to ../../shared/SKILL.md) and --fix never writes through a link, which would replace it with a copy: fix the file it points to" });
    expect(answer.remaining.map((finding) => finding.ruleId)).toContain("skill/missing-key");
    expect(lstatSync(join(root, IMPORT)).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(root, "shared", "SKILL.md"), "utf8")).toBe(broken);
  });

  it("says what an edit does to the cache against the committed dist/: blocks per variant, tokens and cost per 1,000 sessions", async () => {
    const root = await embeddedDefault();
    const session = await startMcp(root);
    interface Impact {
      ok: boolean;
      drift: Array<{ artifact: string }>;
      invalidatesSharedPrefix: boolean;
      comparison: { intact: boolean; variants: Array<{ name: string; blocks: Array<{ name: string; state: string }> }>; invalidation: unknown[]; costDelta: Array<{ variant: string; before: number; after: number }> };
    }
    const current = structured<Impact>(await session.call("check_cache"));
    expect(current).toMatchObject({ ok: true, drift: [], invalidatesSharedPrefix: false, comparison: { intact: true, invalidation: [] } });

    const partial = join(root, "prompts", "partials", "identity.hbs");
    writeFileSync(partial, `${readFileSync(partial, "utf8")}One more sentence in the static prefix.\n`);
    const edited = structured<Impact>(await session.call("check_cache"));
    expect(edited.ok).toBe(false);
    expect(edited.invalidatesSharedPrefix).toBe(true);
    expect(edited.drift.map((entry) => entry.artifact)).toContain("prefix.md");
    expect(edited.comparison.variants.map((variant) => [variant.name, variant.blocks.map((block) => `${block.name}:${block.state}`)])).toEqual([
      ["base", ["tools:intact", "static-prefix:changed"]],
      ["deck-generation", ["tools:intact", "static-prefix:changed", "variant-tail:invalidated"]],
      ["import", ["tools:intact", "static-prefix:changed", "variant-tail:invalidated"]],
    ]);
    // The figures check itself reports, to the cent as `cost` prints dollars.
    const toCents = (dollars: number): number => Math.round(dollars * 100) / 100;
    expect(edited.comparison.invalidation).toEqual(
      (await check({ root })).invalidation?.map((entry) => ({ ...entry, dollarsPer1000Sessions: Object.fromEntries(Object.entries(entry.dollarsPer1000Sessions).map(([model, dollars]) => [model, toCents(dollars)])) })),
    );
    // The default policies' cost before and after for every variant.
    expect(new Set(edited.comparison.costDelta.map((row) => row.variant))).toEqual(new Set(["base", "deck-generation", "import"]));
    expect(edited.comparison.costDelta.every((row) => Number.isFinite(row.before) && Number.isFinite(row.after))).toBe(true);
    expect(edited.comparison.costDelta.every((row) => toCents(row.before) === row.before && toCents(row.after) === row.after)).toBe(true);
    expect(edited.comparison.costDelta.some((row) => row.after !== row.before)).toBe(true);
  });

  it("shows a variant's compiled prompt and its cache plan blocks", async () => {
    const root = await embeddedDefault();
    const session = await startMcp(root);
    const shown = structured<{ from: string; text: string; blocks: Array<{ name: string; system?: { start: number; end: number } }> }>(await session.call("show_variant", { variant: "import" }));
    expect(shown.from).toBe("sources");
    expect(shown.text).toBe(readFileSync(join(repoRoot, "dist", "variants", "import.md"), "utf8"));
    expect(shown.blocks.map((block) => block.name)).toEqual(["tools", "static-prefix", "variant-tail"]);
    expect(shown.blocks.at(-1)?.system?.end).toBe(Buffer.byteLength(shown.text));
    // While the sources have errors, the output folder's copy.
    writeFileSync(join(root, IMPORT), readFileSync(join(root, IMPORT), "utf8").replace("type: workflow", "type: workflw"));
    expect(structured<{ from: string; text: string }>(await session.call("show_variant", { variant: "import" }))).toMatchObject({ from: "output", text: shown.text });
    expect(toolError(await session.call("show_variant", { variant: "imports" }))).toMatch(/^Unexpected variant "imports": the sources have errors \(\d+; run lint\) and the output folder has no such variant; did you mean "import"\?$/);
  });

  it("gives the skills graph around a skill", async () => {
    const session = await startMcp(await embeddedDefault());
    expect(structured(await session.call("skill_graph", { skill: "import" }))).toEqual({
      skill: "import",
      type: "workflow",
      description: expect.stringMatching(/^TRIGGER when the user uploads/),
      path: IMPORT,
      requires: ["gml-authoring", "gml-cli", "ask-user-questions"],
      requiredBy: [],
      conflicts: ["deck-generation"],
      activation: [
        { name: "gml-authoring", requiredBy: "import", type: "reference" },
        { name: "gml-cli", requiredBy: "import", type: "reference" },
        { name: "ask-user-questions", requiredBy: "import", type: "reference" },
      ],
      activationConflicts: [],
      toolNamespaces: [],
      preloadedBy: ["import"],
      preloadedFrom: "sources",
    });
    const cli = structured<{ requiredBy: string[] }>(await session.call("skill_graph", { skill: "gml-cli" }));
    expect(cli.requiredBy).toEqual(["deck-generation", "gml-editing", "import"]);
  });
});

describe("docs/mcp.md", () => {
  it("shows a real lint_text answer", async () => {
    const page = docPage("docs/mcp.md");
    const call = /^--> lint_text (\{.*\})$/m.exec(page.text)?.[1];
    expect(call).toBeDefined();
    const answer = page.blockStartingWith('{\n  "path": "skills/deck-review/SKILL.md"', "json");
    const session = await startMcp(await embeddedDefault());
    expect(structured(await session.call("lint_text", JSON.parse(call ?? "{}") as Record<string, unknown>))).toEqual(JSON.parse(answer));
  });
});

describe("gamma-prompt mcp on a plain Agent Skills collection", () => {
  it("lints, lints text, explains, fixes and draws the graph; the compiler's tools say why they do not apply", async () => {
    const root = await copyParts(PLAIN, ["skills"], await tempDir("gamma mcp plain"));
    const session = await startMcp(root);
    const linted = structured<Lint>(await session.call("lint"));
    expect(linted.profile).toBe("agentskills");
    expect(linted.diagnostics.map((finding) => [finding.ruleId, finding.fix])).toEqual([
      ["skill/description-whitespace", "trimmed the spaces inside the description's quotes"],
      ["skill/allowed-tools-format", "rewrote allowed-tools from a list as one space-separated string: Read Bash(git:*)"],
    ]);
    const text = structured<Lint>(await session.call("lint_text", { path: "skills/pdf-forms/SKILL.md", text: readFileSync(join(root, "skills/pdf-forms/SKILL.md"), "utf8").replace("references/fields.md", "references/field.md") }));
    expect(text.diagnostics.map((finding) => finding.ruleId).sort()).toEqual(["skill/broken-link", "skill/unreferenced-file"]);
    expect(structured(await session.call("explain_rule", { rule: "skill/allowed-tools-format" }))).toMatchObject({ id: "skill/allowed-tools-format", severity: "warning" });
    const fixed = structured<{ written: boolean; remaining: unknown[] }>(await session.call("fix_file", { path: "skills/release-notes/SKILL.md", write: true }));
    expect(fixed).toMatchObject({ written: true, remaining: [] });
    expect(readFileSync(join(root, "skills/release-notes/SKILL.md"), "utf8")).toContain('description: "Use when writing the release notes for a tagged version."\nallowed-tools: Read Bash(git:*)\n');
    expect(structured(await session.call("skill_graph", { skill: "pdf-forms" }))).toMatchObject({ skill: "pdf-forms", requires: [], requiredBy: [], conflicts: [], activation: [], preloadedBy: [] });
    for (const tool of ["check_cache", "show_variant"]) {
      expect(toolError(await session.call(tool, tool === "show_variant" ? { variant: "base" } : {}))).toBe(`${tool} needs a project with prompts/prefix.hbs: ${root} is a skills collection, which gamma-prompt lints but does not compile into prompts`);
    }
  });
});

describe("gamma-prompt mcp where the working folder holds no project", () => {
  /** A monorepo (a git checkout) with two agents in packages/, each a copy of the plain collection. */
  async function monorepo(): Promise<string> {
    const root = await tempDir("gamma mcp mono");
    mkdirSync(join(root, ".git"));
    for (const agent of ["agent-a", "agent-b"]) await copyParts(PLAIN, ["skills"], join(root, "packages", agent));
    return root;
  }

  it("at a monorepo's root, names the projects below and the argument that picks one, instead of advice that would make the root a project", async () => {
    const root = await monorepo();
    const session = await startMcp(root);
    const none = `holds no project (a folder with gamma-prompt.config.json or skills/)`;
    const below = `projects below it: packages/agent-a, packages/agent-b; start the server in one, or add "--root" and its folder to the server's arguments (such as "--root", "packages/agent-a")`;
    for (const tool of ["lint", "check_cache", "show_variant"]) {
      expect(toolError(await session.call(tool, tool === "show_variant" ? { variant: "base" } : {}))).toBe(`${tool}: ${root} ${none}; ${below}`);
    }
    const path = "packages/agent-a/skills/pdf-forms";
    expect(toolError(await session.call("lint", { path }))).toBe(`lint: ${root} ${none}; the path "${path}" lies in the project packages/agent-a: start the server there, or add "--root", "packages/agent-a" to its arguments`);
    expect(toolError(await session.call("fix_file", { path: `${path}/SKILL.md` }))).toContain(`lies in the project packages/agent-a: start the server there`);
    // The rule docs need no project.
    expect(structured(await session.call("explain_rule", { rule: "skill/allowed-tools-format" }))).toMatchObject({ id: "skill/allowed-tools-format" });
  });

  it("says how to start a project where there is none, below or above", async () => {
    const root = await tempDir("gamma mcp empty");
    mkdirSync(join(root, ".git"));
    const session = await startMcp(root);
    expect(toolError(await session.call("lint"))).toBe(
      `lint: ${root} holds no project (a folder with gamma-prompt.config.json or skills/), and none below it; create skills/ (one folder per skill, skills/<name>/SKILL.md) to start one, or add "--root" and a project's folder to the server's arguments`,
    );
  });

  it("given the project's skills/ as its --root, names the project above it", async () => {
    const root = await monorepo();
    const skills = join(root, "packages", "agent-a", "skills");
    const session = await startMcp(root, ["--root", skills]);
    expect(toolError(await session.call("lint"))).toBe(
      `lint: ${skills} holds no project (a folder with gamma-prompt.config.json or skills/); the folder above it, ${join(root, "packages", "agent-a")}, is one: add "--root", "${join(root, "packages", "agent-a")}" to the server's arguments instead`,
    );
  });

  it("started in a folder inside a project, serves that project, as the CLI finds it", async () => {
    const root = await monorepo();
    const session = await startMcp(join(root, "packages", "agent-a", "skills"));
    expect(structured<Lint & { root: string }>(await session.call("lint"))).toMatchObject({ root: join(root, "packages", "agent-a"), profile: "agentskills" });
    expect(session.stderr()).toContain("gamma-prompt mcp: using the project in ../ (its skills/ or prompts/)");
  });
});

describe("gamma-prompt mcp and bad input", () => {
  it("answers each with a tool error that says what was wrong, and keeps serving", async () => {
    const root = await embeddedDefault();
    const outside = await tempDir("gamma mcp outside");
    writeFileSync(join(outside, "secret.md"), "not the project's\n");
    symlinkSync(outside, join(root, "skills", "linked-out"));
    execFileSync("mkfifo", [join(root, "skills", "import", "pipe.md")]);
    const session = await startMcp(root);
    const stillServing = async (): Promise<void> => {
      expect(structured(await session.call("explain_rule", { rule: "skill/name-format" }))).toMatchObject({ id: "skill/name-format" });
    };
    const cases: Array<[string, Record<string, unknown>, string | RegExp]> = [
      ["lint", { path: "skills/nope" }, `Unexpected path "skills/nope": nothing there under the project root ${root}; expected a skill folder or file`],
      ["fix_file", { path: "skills/import/pipe.md" }, 'Unexpected FIFO at "skills/import/pipe.md", expected a SKILL.md file'],
      ["lint", { path: "skills/import/pipe.md" }, 'Unexpected FIFO at "skills/import/pipe.md", expected a skill folder or a file'],
      ["lint_text", { text: `---\nname: huge\n---\n${"x".repeat(5 * 1024 * 1024)}` }, `Unexpected text of ${5 * 1024 * 1024 + 19} bytes, expected at most 1048576 bytes: a larger SKILL.md is refused unread (skill/file-too-large)`],
      ["lint", { path: "../" }, `Unexpected path "../": outside the project root ${root}; expected a skill folder or file inside it`],
      ["fix_file", { path: join(outside, "secret.md") }, `Unexpected path ${JSON.stringify(join(outside, "secret.md"))}: outside the project root ${root}; expected a SKILL.md file inside it`],
      ["lint", { path: "skills/linked-out" }, `Unexpected path "skills/linked-out": it leads outside the project root ${root} (through a symbolic link); expected a skill folder or file inside it`],
      ["lint_text", { text: "---\nname: x\n---\n", path: "../elsewhere/SKILL.md" }, /^Unexpected path "\.\.\/elsewhere\/SKILL\.md": outside the project root/],
      // A path outside the skills globs is quoted by its start and length: the whole of it, escaped twice on the wire, outgrew the answer a client reads.
      ["lint_text", { text: "---\nname: x\n---\n", path: `notes/${'"'.repeat(2 * 1024 * 1024)}/SKILL.md` }, `Unexpected path ${JSON.stringify(`notes/${'"'.repeat(94)}`)}… (${2 * 1024 * 1024 + 15} characters): not a SKILL.md in a skill folder the project's \`skills\` globs name (skills/*), so lint and build never read it; expected a SKILL.md in such a folder, or a glob for it in gamma-prompt.config.json`],
      ["lint_text", { text: "no frontmatter at all" }, "Unexpected text without a usable `name:` line, expected `path` (where the SKILL.md will live) or a `name:` in the frontmatter"],
      ["lint_text", { text: "---\nname: [\n---\n" }, "Unexpected text without a usable `name:` line, expected `path` (where the SKILL.md will live) or a `name:` in the frontmatter"],
      ["fix_file", { path: "prompts/prefix.hbs" }, 'Unexpected file "prompts/prefix.hbs", expected a SKILL.md (only skill frontmatter has safe fixes)'],
      ["fix_file", {}, "Unexpected arguments for fix_file: the arguments must have required property 'path'"],
      ["lint", { path: 3 }, "Unexpected arguments for lint: /path must be string"],
      ["lint", { files: ["x"] }, "Unexpected arguments for lint: the arguments must NOT have additional properties (files)"],
      ["skill_graph", { skill: "imprt" }, 'Unexpected skill "imprt", expected the name of a skill in the project; did you mean "import"?'],
    ];
    for (const [tool, args, message] of cases) {
      const result = await session.call(tool, args);
      if (typeof message === "string") expect(toolError(result), `${tool} ${JSON.stringify(args).slice(0, 80)}`).toBe(message);
      else expect(toolError(result)).toMatch(message);
      await stillServing();
    }
    for (const uri of ["gamma-prompt://project/dist/../../secret.md", "gamma-prompt://project/skills/linked-out/secret.md", "gamma-prompt://project/skills/import/SKILL.md"]) {
      await expect(session.client.readResource({ uri }), uri).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/^MCP error -32602: Unexpected (path|resource|rule)/) });
      await stillServing();
    }
    // A well-formed URI that names nothing is the specification's "resource not found", with the URI as its data.
    await expect(session.client.readResource({ uri: "gamma-prompt://rules/skill/nope" })).rejects.toMatchObject({
      code: -32002,
      message: `MCP error -32002: Unexpected rule "skill/nope" in gamma-prompt://rules/skill/nope, expected a rule id (resources/list names every rule's page)`,
      data: { uri: "gamma-prompt://rules/skill/nope" },
    });
    await expect(session.client.readResource({ uri: "gamma-prompt://project/dist/variants/nope.md" })).rejects.toMatchObject({
      code: -32002,
      message: "MCP error -32002: Unexpected resource gamma-prompt://project/dist/variants/nope.md: nothing there, expected a file of the output folder dist/ (resources/list names the manifest and the variants)",
      data: { uri: "gamma-prompt://project/dist/variants/nope.md" },
    });
    // A URI of a megabyte is quoted by its start and length, and not sent back as data.
    const huge = `gamma-prompt://project/dist/${"x".repeat(1 << 20)}`;
    const refusal = await session.client.readResource({ uri: huge }).then(
      () => undefined,
      (error: unknown) => error as { code: number; message: string; data?: unknown },
    );
    expect(refusal).toMatchObject({ code: -32002, message: `MCP error -32002: Unexpected resource ${huge.slice(0, 100)}… (${huge.length} characters): nothing there, expected a file of the output folder dist/ (resources/list names the manifest and the variants)` });
    expect(refusal?.data).toBeUndefined();
    await stillServing();
    // A name an object inherits is no tool either.
    for (const name of ["no_such_tool", "toString", "__proto__"]) {
      await expect(session.client.callTool({ name, arguments: {} }), name).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(new RegExp(`^MCP error -32602: Unknown tool ${name}; the tools are `)) });
      await stillServing();
    }
    expect(await session.close()).toBe(0);
    expect(session.stderr()).toBe("");
  });
});

describe("gamma-prompt mcp on an output folder that fails verification", () => {
  it.each([
    ["a manifest that is null", "null\n", /^The output folder dist\/ failed verification \(manifest\.json: .+\); run `gamma-prompt build`\. Its variants are not listed until it passes\.$/],
    ["a manifest whose variants are a list", "VARIANTS_LIST", /^The output folder dist\/ failed verification \(.+\); run `gamma-prompt build`\. Its variants are not listed until it passes\.$/],
  ])("lists %s by the manifest alone, saying what failed, and no variant", async (_name, manifest, description) => {
    const root = await embeddedDefault();
    const path = join(root, "dist", "manifest.json");
    const built = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    writeFileSync(path, manifest === "VARIANTS_LIST" ? `${JSON.stringify({ ...built, variants: [1] })}\n` : manifest);
    const session = await startMcp(root);
    const { resources } = await session.client.listResources();
    const project = resources.filter((resource) => resource.uri.startsWith("gamma-prompt://project/"));
    expect(project.map((resource) => resource.uri)).toEqual(["gamma-prompt://project/dist/manifest.json"]);
    expect(project[0]?.description).toMatch(description);
    expect(resources.slice(1).map((resource) => resource.uri)).toEqual(ruleIds().map((id) => `gamma-prompt://rules/${id}`));
    expect(await session.close()).toBe(0);
    expect(session.stderr()).toBe("");
  });
});

describe("gamma-prompt mcp shutdown", () => {
  it("exits with code 0 when the client closes the connection", async () => {
    const session = await startMcp(await embeddedDefault());
    structured(await session.call("lint"));
    expect(await session.close()).toBe(0);
    expect(session.stderr()).toBe("");
  });
});

describe("gamma-prompt mcp and SKILL.md files the project's globs do not name", () => {
  const LAYOUT = join(repoRoot, "test", "fixtures", "mcp", "plugin-layout");
  const NOT_READ = (path: string, through = ""): string =>
    `Unexpected path ${JSON.stringify(path)}${through}: not a SKILL.md in a skill folder the project's \`skills\` globs name (plugins/*/skills/*), so lint and build never read it; expected a SKILL.md in such a folder, or a glob for it in gamma-prompt.config.json`;

  it("refuses them with a tool error instead of reporting them clean, and lints one reached through a link under its real path", async () => {
    const root = await copyParts(LAYOUT, ["gamma-prompt.config.json", "plugins", "notskills"], await tempDir("gamma mcp layout"));
    symlinkSync(join("plugins", "pdf", "skills"), join(root, "linked"));
    const session = await startMcp(root);
    const broken = readFileSync(join(root, "notskills/release-notes/SKILL.md"), "utf8");
    // Without `path`, the globs leave open which plugin a new skill belongs to.
    expect(toolError(await session.call("lint_text", { text: broken }))).toBe(
      "Unexpected text without `path`: the project's `skills` globs (plugins/*/skills/*) leave open where a new skill goes; expected `path`, the SKILL.md's place in a folder they name",
    );
    for (const path of ["notskills/release-notes/SKILL.md", "skills/release-notes/SKILL.md", "plugins/pdf/skills/a/b/SKILL.md"]) {
      expect(toolError(await session.call("lint_text", { text: broken, path })), path).toBe(NOT_READ(path));
    }
    expect(toolError(await session.call("lint", { path: "notskills/release-notes/SKILL.md" }))).toBe(NOT_READ("notskills/release-notes/SKILL.md"));
    expect(toolError(await session.call("lint", { path: "notskills/release-notes" }))).toBe(NOT_READ("notskills/release-notes/SKILL.md"));
    expect(toolError(await session.call("fix_file", { path: "notskills/release-notes/SKILL.md", write: true }))).toBe(NOT_READ("notskills/release-notes/SKILL.md"));
    expect(readFileSync(join(root, "notskills/release-notes/SKILL.md"), "utf8")).toBe(broken);

    // Where the globs do name it, the same text has its findings.
    const named = structured<Lint & { path: string }>(await session.call("lint_text", { text: broken, path: "plugins/pdf/skills/release-notes/SKILL.md" }));
    expect(named.diagnostics.map((finding) => finding.ruleId)).toEqual(["skill/description-whitespace", "skill/allowed-tools-format"]);
    // Through a link inside the root: the real file, under its real path.
    const linked = readFileSync(join(root, "plugins/pdf/skills/pdf-forms/SKILL.md"), "utf8").replace("name: pdf-forms", "name: PDF_forms");
    const viaLink = structured<Lint & { path: string }>(await session.call("lint_text", { text: linked, path: "linked/pdf-forms/SKILL.md" }));
    expect(viaLink).toMatchObject({ path: "plugins/pdf/skills/pdf-forms/SKILL.md", errorCount: 2 });
    expect(viaLink.diagnostics.map((finding) => [finding.file, finding.ruleId])).toEqual([
      ["plugins/pdf/skills/pdf-forms/SKILL.md", "skill/name-format"],
      ["plugins/pdf/skills/pdf-forms/SKILL.md", "skill/name-mismatch"],
    ]);
    writeFileSync(join(root, "plugins/pdf/skills/pdf-forms/SKILL.md"), linked);
    expect(structured<Lint>(await session.call("lint", { path: "linked/pdf-forms/SKILL.md" }))).toMatchObject({ scope: "plugins/pdf/skills/pdf-forms/SKILL.md", errorCount: 2 });
  });

  it("puts a draft without `path` where the one glob puts a new skill", async () => {
    const root = await copyParts(LAYOUT, ["plugins"], await tempDir("gamma mcp layout"));
    writeFileSync(join(root, "gamma-prompt.config.json"), '{ "skills": ["plugins/pdf/skills/*"] }\n');
    const session = await startMcp(root);
    const draft = "---\nname: pdf-merge\ndescription: Use when merging several PDF files into one, in a given order.\n---\n\n# PDF merge\n\nList the files, then merge them.\n";
    expect(structured<Lint & { path: string }>(await session.call("lint_text", { text: draft }))).toMatchObject({ path: "plugins/pdf/skills/pdf-merge/SKILL.md", errorCount: 0 });
  });
});

describe("gamma-prompt mcp and a cancelled call", () => {
  it("writes nothing for a fix_file the client cancelled before its turn came, and answers the next call", async () => {
    const root = await embeddedDefault();
    const session = await startMcp(root);
    const broken = readFileSync(join(root, IMPORT), "utf8").replace("  gamma-type: workflow\n", "");
    writeFileSync(join(root, IMPORT), broken);
    // Calls ahead of it in the server's queue; the cancel follows the request at once, long before they are done.
    const ahead = [session.call("check_cache"), session.call("check_cache"), session.call("lint")];
    const cancel = new AbortController();
    const fix = session.client.callTool({ name: "fix_file", arguments: { path: IMPORT, write: true } }, undefined, { signal: cancel.signal });
    cancel.abort("the user stopped it");
    await expect(fix).rejects.toBeDefined();
    await Promise.all(ahead);
    // The queue runs in order: once this answers, the cancelled fix had its turn.
    expect(structured<Lint>(await session.call("lint", { path: IMPORT })).diagnostics.map((finding) => finding.ruleId)).toEqual(["skill/missing-key"]);
    expect(readFileSync(join(root, IMPORT), "utf8")).toBe(broken);
    expect(structured<{ written: boolean }>(await session.call("fix_file", { path: IMPORT, write: true })).written).toBe(true);
  });
});

describe("gamma-prompt mcp and a call cancelled while it runs", () => {
  it("writes nothing for a fix_file cancelled while it lints the project (the cancel is read before the write)", async () => {
    // A plain collection large enough that linting it to fix one file takes a while after the cancel is sent.
    const root = await tempDir("gamma mcp cancel");
    for (let index = 0; index < 1500; index++) {
      const folder = join(root, "skills", `generated-${index}`);
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, "SKILL.md"), `---\nname: generated-${index}\ndescription: Use when checking that a cancelled fix writes nothing, case ${index}.\n---\n\n# Generated ${index}\n\n- Term: meaning.\n`);
    }
    const file = "skills/generated-0/SKILL.md";
    const broken = readFileSync(join(root, file), "utf8").replace("description:", "allowed-tools: Read, Grep\ndescription:");
    writeFileSync(join(root, file), broken);
    const session = await startMcp(root);
    expect(structured<Lint>(await session.call("lint", { path: file })).diagnostics.map((finding) => finding.ruleId)).toEqual(["skill/allowed-tools-format"]);
    const cancel = new AbortController();
    const fix = session.client.callTool({ name: "fix_file", arguments: { path: file, write: true } }, undefined, { signal: cancel.signal });
    setTimeout(() => cancel.abort("the user stopped it"), 20);
    await expect(fix).rejects.toBeDefined();
    // The queue runs in order: once this answers, the cancelled fix has ended.
    await session.call("lint", { path: file });
    expect(readFileSync(join(root, file), "utf8")).toBe(broken);
  }, 120_000);
});

describe("gamma-prompt mcp and messages past the stdio readers' limits", () => {
  it("quotes a huge argument in its error by its start and length, so the answer stays small and the session lives", async () => {
    const session = await startMcp(await embeddedDefault());
    const huge = '"'.repeat(4_000_000);
    for (const [tool, args] of [
      ["skill_graph", { skill: huge }],
      ["show_variant", { variant: huge }],
      ["lint", { path: `skills/${"x".repeat(2_000_000)}` }],
      ["fix_file", { path: `${"y".repeat(2_000_000)}.md` }],
    ] as const) {
      const text = toolError(await session.call(tool, args));
      expect(text.length, tool).toBeLessThan(2_000);
      expect(text, tool).toMatch(/… \(\d+ characters\)/);
    }
    expect(structured(await session.call("explain_rule", { rule: "skill/name-format" }))).toMatchObject({ id: "skill/name-format" });
  }, 60_000);

  it("refuses a request too large to read, and a junk line of any size, with a word on stderr, and keeps serving", async () => {
    const session = await startMcp(await embeddedDefault());
    const stillServing = async (): Promise<void> => {
      expect(structured(await session.call("explain_rule", { rule: "skill/name-format" }))).toMatchObject({ id: "skill/name-format" });
    };
    const text = `---\nname: huge\n---\n${"x".repeat(12 * 1024 * 1024)}`;
    await expect(session.call("lint_text", { text })).rejects.toMatchObject({ code: -32600, message: expect.stringMatching(/^MCP error -32600: Unexpected message of \d+ bytes, expected at most 8388608 bytes per message: it was not read$/) });
    await stillServing();
    session.writeRaw(`${"junk".repeat(5 * 1024 * 1024)}\n`);
    session.writeRaw("not json either\n");
    await stillServing();
    const lines = session.stderr().trimEnd().split("\n");
    expect(lines[0]).toMatch(/^gamma-prompt mcp: Unexpected message of \d+ bytes, expected at most 8388608 bytes per message \(request \d+\); it was dropped and the session goes on$/);
    expect(lines[1]).toBe(`gamma-prompt mcp: Unexpected message of ${20 * 1024 * 1024 + 1} bytes, expected at most 8388608 bytes per message; it was dropped and the session goes on`);
    expect(lines[2]).toMatch(/^gamma-prompt mcp: .*JSON/);
    expect(lines).toHaveLength(3);
    expect(await session.close()).toBe(0);
  });

  it("answers a line that is not JSON with a Parse error and JSON that is no message with an Invalid Request, id null, and keeps serving", async () => {
    const root = await embeddedDefault();
    const child = spawn(process.execPath, [join(repoRoot, "lib", "cli", "index.js"), "mcp"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
    const lines: string[] = [];
    let stderr = "";
    createInterface({ input: child.stdout }).on("line", (line) => lines.push(line));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const answered = new Promise<void>((resolve) => child.stdout.on("data", () => lines.length >= 3 && resolve()));
    child.stdin.write("{not json\n");
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 3, method: 5 })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" })}\n`);
    await answered;
    expect(lines.slice(0, 3).map((line) => JSON.parse(line) as unknown)).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request" } },
      { jsonrpc: "2.0", id: 7, result: {} },
    ]);
    child.stdin.end();
    expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(0);
    expect(stderr.trimEnd().split("\n")[1]).toBe("gamma-prompt mcp: Unexpected JSON that is no JSON-RPC message, expected a request, notification or response; it was dropped and the session goes on");
  });

  it("refuses a resource whose answer, once escaped as JSON, is past the bound, though the file is not", async () => {
    const root = await embeddedDefault();
    // 6 MiB of `"` and newlines: under the 8 MiB a resource file may have, 12 MiB as JSON.
    writeFileSync(join(root, "dist", "quotes.md"), '"\n'.repeat(3 * 1024 * 1024));
    const session = await startMcp(root);
    await expect(session.client.readResource({ uri: "gamma-prompt://project/dist/quotes.md" })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^MCP error -32602: Unexpected resource gamma-prompt:\/\/project\/dist\/quotes\.md of 1258\d{4} bytes as JSON, expected at most 8387584: a client's stdio reader drops a larger message, so it is not sent$/),
    });
    expect(structured(await session.call("explain_rule", { rule: "skill/name-format" }))).toMatchObject({ id: "skill/name-format" });
    expect(await session.close()).toBe(0);
  });
});

describe("gamma-prompt mcp while the sources have errors and the output folder fails verification", () => {
  const brokenSources = (root: string): void => writeFileSync(join(root, IMPORT), readFileSync(join(root, IMPORT), "utf8").replace("type: workflow", "type: workflw"));

  it("takes a skill's preloads from the last build that passes verification, and otherwise says they are unknown", async () => {
    const root = await embeddedDefault();
    brokenSources(root);
    const session = await startMcp(root);
    expect(structured(await session.call("skill_graph", { skill: "import" }))).toMatchObject({ preloadedBy: ["import"], preloadedFrom: "output" });
    writeFileSync(join(root, "dist", "variants", "base.md"), "edited by hand\n");
    const graph = structured(await session.call("skill_graph", { skill: "import" }));
    expect(graph).not.toHaveProperty("preloadedBy");
    expect(graph.preloadsUnknown).toMatch(/^the sources have errors \(run lint\) and the output folder dist\/ failed verification \(variants\/base\.md: .+\): which variants preload a skill is not known$/);
  });

  it.each([
    ["a hand-edited variant", "variants/base.md", "edited by hand\n", /variants\/base\.md: /],
    ["a broken manifest", "manifest.json", "{", /manifest\.json: /],
    ["a cache plan whose blocks are no list", "cache-plan.json", '{"variants":{"base":{"blocks":5}}}', /cache-plan\.json: /],
  ])("refuses to show a variant from an output folder with %s, saying what failed", async (_name, file, content, problem) => {
    const root = await embeddedDefault();
    brokenSources(root);
    writeFileSync(join(root, "dist", file), content);
    const session = await startMcp(root);
    const message = toolError(await session.call("show_variant", { variant: "base" }));
    expect(message).toMatch(/^Unexpected variant "base": the sources have errors \(\d+; run lint\) and the output folder dist\/ failed verification \(.+\); run `gamma-prompt build` once the sources are fixed$/);
    expect(message).toMatch(problem);
  });
});

describe("gamma-prompt mcp and links inside the project", () => {
  it("refuses a resource whose link in the output folder leads elsewhere in the root, and takes a folder whose name starts with two dots", async () => {
    const root = await embeddedDefault();
    writeFileSync(join(root, ".env"), "TOKEN=not-for-the-agent\n");
    symlinkSync(join("..", ".env"), join(root, "dist", "env.txt"));
    mkdirSync(join(root, "..notes"));
    writeFileSync(join(root, "..notes", "todo.md"), "a note\n");
    const session = await startMcp(root);
    await expect(session.client.readResource({ uri: "gamma-prompt://project/dist/env.txt" })).rejects.toMatchObject({
      code: -32602,
      message: "MCP error -32602: Unexpected resource gamma-prompt://project/dist/env.txt: it leads outside the output folder dist/ (through a symbolic link, to .env), expected a file there",
    });
    // Inside the root, not out of it: lint says it reads nothing there, rather than that the path leaves the root.
    for (const path of ["..notes", "..notes/todo.md"]) {
      expect(toolError(await session.call("lint", { path })), path).toMatch(new RegExp(`^Unexpected path "${path.replace(/\./g, "\\.")}": lint reads no file there \\(`));
    }
  });
});

describe("gamma-prompt mcp's answers agree with the command's", () => {
  it("lint with a path reports a finding on the folder itself and on what the build never reads there, as `lint <path>` does", async () => {
    const root = await embeddedDefault();
    mkdirSync(join(root, "skills", "no-skill-file"));
    writeFileSync(join(root, "skills", "no-skill-file", "README.md"), "Not a skill yet.\n");
    writeFileSync(join(root, "knowledge", "notes.txt"), "A note in the wrong format.\n");
    mkdirSync(join(root, "knowledge", "sub"));
    writeFileSync(join(root, "knowledge", "sub", "deep.md"), "A note in a sub-folder.\n");
    const session = await startMcp(root);
    for (const path of ["skills/no-skill-file", "knowledge/notes.txt", "knowledge/sub", "knowledge"]) {
      const cli = await runCliInProcessFrom(root, "lint", "--format", "json", path);
      const expected = (JSON.parse(cli.stdout) as { diagnostics: Finding[] }).diagnostics.map((finding) => `${finding.file} ${finding.ruleId}`);
      expect(expected.length, path).toBeGreaterThan(0);
      const answered = structured<Lint>(await session.call("lint", { path }));
      expect(answered.diagnostics.map((finding) => `${finding.file} ${finding.ruleId}`), path).toEqual(expected);
    }
  });

  it("serves a file of the output folder that is not UTF-8 text as its bytes, in base64", async () => {
    const root = await embeddedDefault();
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe, 0x80]);
    writeFileSync(join(root, "dist", "logo.png"), bytes);
    const session = await startMcp(root);
    const [contents] = (await session.client.readResource({ uri: "gamma-prompt://project/dist/logo.png" })).contents;
    expect(contents).toEqual({ uri: "gamma-prompt://project/dist/logo.png", mimeType: "application/octet-stream", blob: bytes.toString("base64") });
    const [text] = (await session.client.readResource({ uri: "gamma-prompt://project/dist/manifest.json" })).contents;
    expect(text).toMatchObject({ mimeType: "application/json", text: readFileSync(join(root, "dist", "manifest.json"), "utf8") });
  });
});

describe("gamma-prompt mcp's lint_text and what a draft brings onto other files", () => {
  it("reports on the draft a finding lint would put on another file once it is written, such as a requirement cycle it closes", async () => {
    const root = await embeddedDefault();
    const path = "skills/gml-authoring/SKILL.md";
    const draft = readFileSync(join(root, path), "utf8").replace(/^metadata:\n/m, "metadata:\n  gamma-requires-skills: import\n");
    const session = await startMcp(root);
    const answered = structured<Lint & { path: string }>(await session.call("lint_text", { text: draft, path }));
    writeFileSync(join(root, path), draft);
    const written = await lint({ root, checklists: false });
    // The skill rules' errors (lint_text checks skills; the project's own checks follow from them).
    const errors = written.diagnostics.filter((finding) => finding.severity === "error" && finding.ruleId.startsWith("skill/"));
    expect(errors.map((finding) => finding.ruleId)).toContain("skill/requires-cycle");
    // Every one lint reports once the draft is written, the draft's answer names: on the draft, or as where lint reports it.
    for (const error of errors) {
      const named = answered.diagnostics.some((finding) => finding.ruleId === error.ruleId && (finding.file === error.file || (finding as { related?: { file: string } }).related?.file === error.file));
      expect(named, `${error.file} ${error.ruleId}`).toBe(true);
    }
    expect(answered.errorCount).toBeGreaterThan(0);
  });
});

describe("gamma-prompt mcp's check_cache without an output folder", () => {
  it("names the missing folder as check does: from the project root", async () => {
    const root = await embeddedDefault();
    rmSync(join(root, "dist"), { recursive: true, force: true });
    const session = await startMcp(root);
    const answered = structured<{ diagnostics: Finding[] }>(await session.call("check_cache"));
    const missing = answered.diagnostics.find((finding) => finding.ruleId === "dist/missing");
    const cli = await runCliInProcessFrom(root, "check", "--format", "json");
    const expected = (JSON.parse(cli.stdout) as { diagnostics: Finding[] }).diagnostics.find((finding) => finding.ruleId === "dist/missing");
    expect(missing?.message).toBe(expected?.message);
    expect(missing?.message).toContain("missing output folder dist/,");
  });
});
