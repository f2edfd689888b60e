import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { copyParts, tempDir } from "../helpers/temp-project.js";
import { copyEmbeddedDefault, repoRoot } from "../lsp/client.js";
import { closeSessionsAndFolders, embeddedDefault, startMcp, structured, toolError } from "./client.js";

/**
 * The MCP server's promises at their edges: paths that lead out of the
 * project or spell its root another way, answers too large to send, the
 * compiler's view of an agent whose lint profile is agentskills, the end of
 * stdin, paths lint reads nothing in, and drafts checked before they exist.
 */

const PLAIN = join(repoRoot, "test", "fixtures", "mcp", "plain-collection");
const IMPORT = "skills/import/SKILL.md";

interface Finding {
  file: string;
  line: number;
  column: number;
  ruleId: string;
  message: string;
  related?: { file: string; line: number; column: number };
}
interface Lint {
  path: string;
  scope: string;
  errorCount: number;
  diagnostics: Finding[];
}

afterEach(closeSessionsAndFolders);


const sha256 = (path: string): string => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("gamma-prompt mcp and paths that lead out of the project or spell its root another way", () => {
  it("refuses lint_text for a SKILL.md not written yet whose folder is a link out of the root, as lint refuses the folder", async () => {
    const root = await copyParts(PLAIN, ["skills"], await tempDir("gamma mcp link out"));
    const outside = await tempDir("gamma mcp outside");
    writeFileSync(join(outside, "notes.md"), "private\n");
    symlinkSync(outside, join(root, "skills", "drafts"));
    // A link to a folder that does not exist yet leads out as well.
    symlinkSync(join(outside, "later"), join(root, "skills", "later"));
    const session = await startMcp(root);
    const draft = (name: string): string => `---\nname: ${name}\ndescription: Use when the user asks for drafts of a document.\n---\n\n# Drafts\n\n[a](notes.md) [b](other.md)\n`;
    const out = (path: string): string => `Unexpected path "${path}": it leads outside the project root ${root} (through a symbolic link); expected the path of a SKILL.md inside it`;
    expect(toolError(await session.call("lint_text", { path: "skills/drafts/SKILL.md", text: draft("drafts") }))).toBe(out("skills/drafts/SKILL.md"));
    // Without `path`, the same place from its name.
    expect(toolError(await session.call("lint_text", { text: draft("drafts") }))).toBe(out("skills/drafts/SKILL.md"));
    expect(toolError(await session.call("lint_text", { text: draft("later") }))).toBe(out("skills/later/SKILL.md"));
    expect(toolError(await session.call("lint", { path: "skills/drafts" }))).toBe(`Unexpected path "skills/drafts": it leads outside the project root ${root} (through a symbolic link); expected a skill folder or file inside it`);
  });

  it("takes an absolute path in either spelling of a root reached through a link, and still refuses one outside it", async () => {
    const real = await copyParts(PLAIN, ["skills"], await tempDir("gamma mcp spelled"));
    const linked = `${real}-link`;
    symlinkSync(real, linked);
    try {
      // Started in the link: the working folder is the real path.
      const inLink = await startMcp(linked);
      for (const path of [join(linked, "skills", "release-notes"), join(real, "skills", "release-notes")]) {
        expect(structured<Lint>(await inLink.call("lint", { path })), path).toMatchObject({ scope: "skills/release-notes", errorCount: 0 });
      }
      expect(structured<Lint>(await inLink.call("lint_text", { path: join(linked, "skills", "new-one", "SKILL.md"), text: "---\nname: new-one\ndescription: Use when a new one is wanted.\n---\n\n# New\n" }))).toMatchObject({ path: "skills/new-one/SKILL.md", errorCount: 0 });
      // Started with --root naming the link: the root keeps that spelling, and the real one is taken too.
      const byRoot = await startMcp(await tempDir("gamma mcp elsewhere"), ["--root", linked]);
      for (const path of [join(real, "skills", "release-notes", "SKILL.md"), join(linked, "skills", "release-notes", "SKILL.md")]) {
        expect(structured<Lint>(await byRoot.call("lint", { path })), path).toMatchObject({ scope: "skills/release-notes/SKILL.md" });
      }
      expect(toolError(await byRoot.call("lint", { path: join(real, "..") }))).toBe(`Unexpected path ${JSON.stringify(join(real, ".."))}: outside the project root ${linked}; expected a skill folder or file inside it`);
    } finally {
      rmSync(linked);
    }
  });
});

describe("gamma-prompt mcp and answers too large to send", () => {
  /** A SKILL.md with two safe fixes and 12,000 broken links: its findings are past the 8 MiB bound as JSON. */
  async function hugeProject(): Promise<string> {
    const root = await tempDir("gamma mcp huge");
    mkdirSync(join(root, "skills", "big"), { recursive: true });
    writeFileSync(join(root, "gamma-prompt.config.json"), '{ "profile": "gamma" }\n');
    let text = '---\nname: big\ndescription: "  Use when writing any text a user reads.  "\n---\n\n# Links\n\n';
    for (let i = 0; i < 12000; i++) text += `[a](n${i}.md)\n`;
    writeFileSync(join(root, "skills", "big", "SKILL.md"), text);
    return root;
  }

  it("writes no fix whose answer could not be sent, says so with what it holds, and says how many findings a lint holds and how to get fewer", async () => {
    const root = await hugeProject();
    const file = join(root, "skills", "big", "SKILL.md");
    const before = sha256(file);
    const session = await startMcp(root);
    const held = "skills/big/SKILL.md has 2 safe fixes (skill/missing-key 1, skill/description-whitespace 1), and after them 12001 findings (12000 errors, 1 warning, 0 notes) in 1 file; by rule: skill/broken-link 12000, skill/body-too-long 1";
    expect(toolError(await session.call("fix_file", { path: "skills/big/SKILL.md", write: true }))).toMatch(
      new RegExp(`^Unexpected result of \\d+ bytes as JSON from fix_file, expected at most 8387584: a client's stdio reader drops a larger message, so it is not sent, and nothing was written: ${escape(held)}; run \`gamma-prompt lint --fix\` on the command line to make the fixes, or fix the findings left first$`),
    );
    expect(sha256(file)).toBe(before);
    expect(toolError(await session.call("fix_file", { path: "skills/big/SKILL.md" }))).toContain(`so it is not sent: ${held}; run \`gamma-prompt lint --fix\``);
    const lint = toolError(await session.call("lint"));
    expect(lint).toMatch(/^Unexpected result of \d+ bytes as JSON from lint, expected at most 8387584: a client's stdio reader drops a larger message, so it is not sent; it held 12003 findings \(12001 errors, 2 warnings, 0 notes\) in 1 file; by rule: skill\/broken-link 12000, /);
    expect(lint).toMatch(/: fix those of the rule with the most first \(explain_rule says how\), or run `gamma-prompt lint` on the command line, which lists them all$/);
    // Findings in more than one file: `path` narrows the call.
    mkdirSync(join(root, "skills", "small"));
    writeFileSync(join(root, "skills", "small", "SKILL.md"), "---\nname: small\ndescription: Use when a small thing is wanted.\n---\n\n# Small\n\n[a](gone.md)\n");
    expect(toolError(await session.call("lint"))).toMatch(/in 2 files; by rule: .*: pass `path` \(one skill folder or file\) to get part of them, or run `gamma-prompt lint` on the command line, which lists them all$/);
    expect(structured<Lint>(await session.call("lint", { path: "skills/small" })).diagnostics.map((finding) => finding.ruleId)).toContain("skill/broken-link");
    expect(toolError(await session.call("lint_text", { path: "skills/big/SKILL.md", text: readFileSync(file, "utf8") }))).toMatch(/from lint_text, .*, or write the file and run `gamma-prompt lint` on the command line, which lists them all$/);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("gamma-prompt mcp in an agent whose config gives lint the agentskills profile", () => {
  /** The embedded default with `"profile": "agentskills"`: lint applies those rules, build still compiles the prompts. */
  async function agentskillsAgent(): Promise<string> {
    const root = await embeddedDefault();
    writeFileSync(join(root, "gamma-prompt.config.json"), '{ "profile": "agentskills" }\n');
    return root;
  }

  it("shows a variant and the preloads built from the sources as they are, not the last build", async () => {
    const root = await agentskillsAgent();
    const partial = join(root, "prompts", "partials", "identity.hbs");
    writeFileSync(partial, `${readFileSync(partial, "utf8")}One more sentence in the static prefix.\n`);
    const session = await startMcp(root);
    const shown = structured<{ from: string; text: string }>(await session.call("show_variant", { variant: "base" }));
    expect(shown.from).toBe("sources");
    expect(shown.text).toContain("One more sentence in the static prefix.");
    expect(structured(await session.call("skill_graph", { skill: "import" }))).toMatchObject({ preloadedBy: ["import"], preloadedFrom: "sources" });
  });

  it("never says the sources have errors when they have none and nothing was built", async () => {
    const root = await agentskillsAgent();
    rmSync(join(root, "dist"), { recursive: true });
    const session = await startMcp(root);
    expect(structured<{ from: string }>(await session.call("show_variant", { variant: "base" })).from).toBe("sources");
    expect(structured(await session.call("skill_graph", { skill: "import" }))).toMatchObject({ preloadedBy: ["import"], preloadedFrom: "sources" });
    // While they do have errors, the message says where the build's errors are listed.
    writeFileSync(join(root, IMPORT), readFileSync(join(root, IMPORT), "utf8").replace("gamma-type: workflow", "gamma-type: workflw"));
    expect(toolError(await session.call("show_variant", { variant: "base" }))).toMatch(
      /^Unexpected variant "base": the sources have errors \([1-9]\d*; check_cache lists them, as `gamma-prompt build` does\) and the output folder dist\/ holds no build$/,
    );
  });
});

describe("gamma-prompt mcp check_cache on a project never built", () => {
  it("says the output folder holds no build, not that the sources have errors", async () => {
    const root = await copyEmbeddedDefault();
    const session = await startMcp(root);
    const impact = structured<{ diagnostics: Finding[]; comparisonProblem: string }>(await session.call("check_cache"));
    expect(impact.diagnostics.filter((finding) => finding.ruleId !== "dist/missing").every((finding) => (finding as unknown as { severity: string }).severity !== "error")).toBe(true);
    expect(impact.comparisonProblem).toMatch(/^the output folder holds no build to compare with \(dist\/missing: Unexpected missing output folder .*\)$/);
    // Sources with an error: that count, and only that.
    writeFileSync(join(root, IMPORT), readFileSync(join(root, IMPORT), "utf8").replace("type: workflow", "type: workflw"));
    const broken = structured<{ errorCount: number; diagnostics: Finding[]; comparisonProblem: string }>(await session.call("check_cache"));
    expect(broken.diagnostics.map((finding) => finding.ruleId)).not.toContain("dist/missing");
    expect(broken.comparisonProblem).toBe(`the sources have errors (${broken.errorCount}), so there is no build to compare with the output folder`);
  });
});

describe("gamma-prompt mcp at the end of its input", () => {
  it("answers every request it read before stdin ended, writes a fix only with its answer, then exits 0", async () => {
    const root = await embeddedDefault();
    const original = readFileSync(join(root, IMPORT), "utf8");
    writeFileSync(join(root, IMPORT), original.replace("  gamma-type: workflow\n", ""));
    const child = spawn(process.execPath, [join(repoRoot, "lib", "cli", "index.js"), "mcp"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
    const answers: Array<{ id: number; result?: { isError?: boolean; structuredContent?: Record<string, unknown> } }> = [];
    createInterface({ input: child.stdout }).on("line", (line) => answers.push(JSON.parse(line) as (typeof answers)[number]));
    const call = (id: number, name: string, args: Record<string, unknown>): string => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
    child.stdin.end(
      [
        JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "sh", version: "1" } } }),
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
        call(1, "lint", {}),
        call(2, "check_cache", {}),
        call(3, "fix_file", { path: IMPORT, write: true }),
        "",
      ].join("\n"),
    );
    expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(0);
    expect(answers.map((answer) => answer.id)).toEqual([0, 1, 2, 3]);
    expect(answers[3]?.result?.structuredContent).toMatchObject({ written: true, remaining: [] });
    expect(readFileSync(join(root, IMPORT), "utf8")).toBe(original);
  });
});

describe("gamma-prompt mcp when its input ends without a line feed", () => {
  it("answers the last request too (`printf '…\\n{…}' | gamma-prompt mcp`)", async () => {
    const root = await embeddedDefault();
    const child = spawn(process.execPath, [join(repoRoot, "lib", "cli", "index.js"), "mcp"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
    const answers: Array<{ id: number }> = [];
    createInterface({ input: child.stdout }).on("line", (line) => answers.push(JSON.parse(line) as (typeof answers)[number]));
    child.stdin.end(
      [
        JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "sh", version: "1" } } }),
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "explain_rule", arguments: { rule: "skill/name-format" } } }),
      ].join("\n"),
    );
    expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(0);
    expect(answers.map((answer) => answer.id)).toEqual([0, 1]);
  });
});

describe("gamma-prompt mcp once its standard output is gone", () => {
  it("exits 0 though stdin stays open, and never writes a fix still waiting for its turn", async () => {
    const root = await embeddedDefault();
    const broken = readFileSync(join(root, IMPORT), "utf8").replace("  gamma-type: workflow\n", "");
    writeFileSync(join(root, IMPORT), broken);
    const child = spawn(process.execPath, [join(repoRoot, "lib", "cli", "index.js"), "mcp"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const send = (message: object): boolean => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "sh", version: "1" } } });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await new Promise((resolve) => child.stdout.once("data", resolve));
    // The client stops reading: the first answer written after this finds no reader.
    child.stdout.destroy();
    const exited = new Promise((resolve) => child.once("exit", resolve));
    for (const [id, name, args] of [
      [1, "check_cache", {}],
      [2, "check_cache", {}],
      [3, "fix_file", { path: IMPORT, write: true }],
    ] as const) {
      send({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
    }
    expect(await exited).toBe(0);
    expect(readFileSync(join(root, IMPORT), "utf8")).toBe(broken);
    expect(stderr).toBe("");
    child.stdin.destroy();
  });
});

describe("gamma-prompt mcp and a client that closes while a fix is on its way", () => {
  it("answers the fix_file it had read before the client closed its end, so a write is never made unanswered", async () => {
    const root = await embeddedDefault();
    const original = readFileSync(join(root, IMPORT), "utf8");
    writeFileSync(join(root, IMPORT), original.replace("  gamma-type: workflow\n", ""));
    const session = await startMcp(root);
    // The SDK's client closes by ending the server's stdin, then waits for it to exit.
    const fix = session.client.callTool({ name: "fix_file", arguments: { path: IMPORT, write: true } });
    const code = session.close();
    expect((await fix).structuredContent).toMatchObject({ written: true });
    expect(readFileSync(join(root, IMPORT), "utf8")).toBe(original);
    expect(await code).toBe(0);
  });
});

describe("gamma-prompt mcp lint of a path lint reads nothing in", () => {
  it("answers a folder no skills glob reaches, the output folder and a template with a tool error that says what lint covers, never a clean result", async () => {
    const root = await embeddedDefault();
    mkdirSync(join(root, ".claude", "skills", "my-skill"), { recursive: true });
    writeFileSync(join(root, ".claude", "skills", "my-skill", "SKILL.md"), "---\nname: my-skill\ndescription: bad\n---\n\n# X\n[a](nope.md)\n");
    mkdirSync(join(root, "notskills"));
    writeFileSync(join(root, "notskills", "notes.md"), "notes\n");
    const partial = join(root, "prompts", "partials", "identity.hbs");
    writeFileSync(partial, `${readFileSync(partial, "utf8")}{{#if broken}}\n`);
    const session = await startMcp(root);
    const nothing = (path: string): string =>
      `Unexpected path "${path}": lint reads no file there (it reads the skill folders the project's \`skills\` globs name (skills/*), the config and the project's sources other than templates (prompts/*.yaml, schemas/, knowledge/)), so it would find nothing; expected a skill folder or file, or no path for the whole project`;
    for (const path of [".claude/skills", ".claude", "notskills", "notskills/notes.md"]) {
      expect(toolError(await session.call("lint", { path })), path).toBe(nothing(path));
    }
    for (const path of ["dist", "dist/variants/base.md"]) {
      expect(toolError(await session.call("lint", { path })), path).toBe(`Unexpected path "${path}": in the output folder dist/, which lint does not check; expected a skill folder or file (check_cache compares the output folder with the sources)`);
    }
    const template = (path: string, what: string): string =>
      `Unexpected path "${path}": ${what}, which lint does not render, so it would find nothing there; expected a skill folder or file (check_cache builds the sources as \`gamma-prompt build\` does and reports the templates' findings)`;
    expect(toolError(await session.call("lint", { path: "prompts/partials/identity.hbs" }))).toBe(template("prompts/partials/identity.hbs", "a template"));
    expect(toolError(await session.call("lint", { path: "prompts/partials" }))).toBe(template("prompts/partials", "a folder of templates"));
    // What check_cache reports on that template.
    expect(structured<{ diagnostics: Finding[] }>(await session.call("check_cache")).diagnostics.some((finding) => finding.file === "prompts/partials/identity.hbs")).toBe(true);
    // What lint does read: the folder above the skills, a file in a skill folder, the variants file.
    expect(structured<Lint>(await session.call("lint", { path: "skills" }))).toMatchObject({ scope: "skills", errorCount: 0 });
    expect(structured<Lint>(await session.call("lint", { path: "prompts/variants.yaml" }))).toMatchObject({ scope: "prompts/variants.yaml", errorCount: 0 });
    expect(structured<Lint>(await session.call("lint", { path: "prompts" }))).toMatchObject({ scope: "prompts", errorCount: 0 });
  });

  it("in a plain collection, reads the skill folders and the config only", async () => {
    const root = await copyParts(PLAIN, ["skills"], await tempDir("gamma mcp plain scope"));
    mkdirSync(join(root, "docs"));
    writeFileSync(join(root, "docs", "readme.md"), "notes\n");
    const session = await startMcp(root);
    expect(toolError(await session.call("lint", { path: "docs" }))).toBe(
      `Unexpected path "docs": lint reads no file there (it reads the skill folders the project's \`skills\` globs name (skills/*) and the config), so it would find nothing; expected a skill folder or file, or no path for the whole project`,
    );
    expect(structured<Lint>(await session.call("lint", { path: "skills/pdf-forms/references/fields.md" }))).toMatchObject({ scope: "skills/pdf-forms/references/fields.md" });
  });
});

describe("gamma-prompt mcp lint_text and the project on disk", () => {
  it("reports on the draft a duplicate name that lint would report on the skill already there", async () => {
    const root = await tempDir("gamma mcp duplicate");
    mkdirSync(join(root, "skills", "deck-review"), { recursive: true });
    writeFileSync(join(root, "gamma-prompt.config.json"), '{ "profile": "agentskills", "skills": ["skills/*", ".claude/skills/*"] }\n');
    writeFileSync(join(root, "skills", "deck-review", "SKILL.md"), "---\nname: deck-review\ndescription: Use when reviewing a deck.\n---\n\n# R\n");
    const session = await startMcp(root);
    const draft = "---\nname: deck-review\ndescription: Use when reviewing a deck again.\n---\n\n# R2\n";
    const checked = structured<Lint>(await session.call("lint_text", { path: ".claude/skills/deck-review/SKILL.md", text: draft }));
    expect(checked.errorCount).toBe(1);
    expect(checked.diagnostics).toEqual([
      expect.objectContaining({
        file: ".claude/skills/deck-review/SKILL.md",
        line: 2,
        column: 7,
        ruleId: "skill/name-duplicate",
        message: 'Unexpected second skill named "deck-review", expected unique names (lint reports it on skills/deck-review/SKILL.md:2:7 once this file is written)',
        related: expect.objectContaining({ file: "skills/deck-review/SKILL.md", line: 2, column: 7 }),
      }),
    ]);
    // Written there, lint reports it on the other file, as the draft's answer said.
    mkdirSync(join(root, ".claude", "skills", "deck-review"), { recursive: true });
    writeFileSync(join(root, ".claude", "skills", "deck-review", "SKILL.md"), draft);
    expect(structured<Lint>(await session.call("lint")).diagnostics.map((finding) => [finding.file, finding.line, finding.column, finding.ruleId])).toEqual([["skills/deck-review/SKILL.md", 2, 7, "skill/name-duplicate"]]);
  });

  it("without `path`, files the draft under the name its frontmatter gives, as YAML reads it", async () => {
    const root = await copyParts(PLAIN, ["skills"], await tempDir("gamma mcp draft name"));
    const session = await startMcp(root);
    const body = "description: Use when the user asks for x in a document.\n---\n\n# X\n";
    const cases: Array<[string, string]> = [
      [`---\nname: my-skill # the name\n${body}`, "skills/my-skill/SKILL.md"],
      [`---\nname: >-\n  my-skill\n${body}`, "skills/my-skill/SKILL.md"],
      [`---\nname: "my-skill"\n${body}`, "skills/my-skill/SKILL.md"],
      [`\uFEFF---\r\nname: my-skill\r\n${body.replace(/\n/g, "\r\n")}`, "skills/my-skill/SKILL.md"],
    ];
    for (const [text, path] of cases) {
      const checked = structured<Lint>(await session.call("lint_text", { text }));
      expect(checked.path, text).toBe(path);
      expect(checked.diagnostics.map((finding) => finding.ruleId), text).not.toContain("skill/name-mismatch");
    }
    // A `name:` line in the body is no name.
    expect(toolError(await session.call("lint_text", { text: "---\ndescription: Use when the user asks for x.\n---\n\nname: body-name\n" }))).toBe(
      "Unexpected text without a usable `name:` line, expected `path` (where the SKILL.md will live) or a `name:` in the frontmatter",
    );
  });
});

describe("gamma-prompt mcp and a skill folder the config's `ignore` leaves out", () => {
  it("names the ignore entry, not the skills globs", async () => {
    const root = await copyParts(PLAIN, ["skills"], await tempDir("gamma mcp ignore"));
    writeFileSync(join(root, "gamma-prompt.config.json"), '{ "ignore": ["skills/release-*"] }\n');
    const session = await startMcp(root);
    const message =
      'Unexpected path "skills/release-notes/SKILL.md": its skill folder is left out by the entry "skills/release-*" of the project\'s `ignore` in gamma-prompt.config.json, so lint and build never read it; expected a SKILL.md in a folder it does not leave out, or that entry removed';
    expect(toolError(await session.call("lint", { path: "skills/release-notes" }))).toBe(message);
    expect(toolError(await session.call("fix_file", { path: "skills/release-notes/SKILL.md" }))).toBe(message);
    expect(toolError(await session.call("lint_text", { path: "skills/release-notes/SKILL.md", text: "---\nname: release-notes\n---\n" }))).toBe(message);
  });
});

describe("gamma-prompt mcp resource URIs", () => {
  it("lists an output folder's files under percent-encoded URIs that read back, and answers a bad encoding of either scheme with invalid params", async () => {
    const root = await copyEmbeddedDefault();
    const out = "out%41 #1";
    cpSync(join(repoRoot, "dist"), join(root, out), { recursive: true });
    const session = await startMcp(root, ["--out", out]);
    const { resources } = await session.client.listResources();
    const project = resources.filter((resource) => resource.uri.startsWith("gamma-prompt://project/"));
    expect(project[0]?.uri).toBe("gamma-prompt://project/out%2541%20%231/manifest.json");
    expect(project[0]?.name).toBe(`${out}/manifest.json`);
    for (const resource of project) {
      const [content] = (await session.client.readResource({ uri: resource.uri })).contents;
      expect(content && "text" in content ? content.text : undefined, resource.uri).toBe(readFileSync(join(root, decodeURIComponent(resource.uri.slice("gamma-prompt://project/".length))), "utf8"));
    }
    await expect(session.client.readResource({ uri: "gamma-prompt://rules/skill%2" })).rejects.toMatchObject({ code: -32602, message: "MCP error -32602: Unexpected resource gamma-prompt://rules/skill%2: its rule is not valid percent-encoding" });
    await expect(session.client.readResource({ uri: "gamma-prompt://project/dist%2" })).rejects.toMatchObject({ code: -32602 });
    // No path at all names the project root, which the answer says by name.
    await expect(session.client.readResource({ uri: "gamma-prompt://project/" })).rejects.toMatchObject({
      code: -32602,
      message: `MCP error -32602: Unexpected resource gamma-prompt://project/: the project root is not in the output folder ${out}/, expected a file there (the sources are the agent's own files to read)`,
    });
  });
});
