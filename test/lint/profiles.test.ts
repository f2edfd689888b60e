import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { runCli } from "../../src/cli/program.js";
import { RULE_DOCS } from "../../src/diagnostics/rules/docs.js";
import { ruleRegistry } from "../../src/diagnostics/rules/index.js";
import { renderRulePages } from "../../src/diagnostics/rules/pages.js";
import { ConfigFileError, lint } from "../../src/lint.js";
import { fixturesDir } from "./helpers.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

async function run(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  const previous = process.cwd();
  process.chdir(cwd);
  try {
    return { code: await runCli(["node", "gamma-prompt", ...args]), stdout, stderr };
  } finally {
    process.chdir(previous);
    out.mockRestore();
    err.mockRestore();
  }
}

describe("profiles", () => {
  it("detects gamma for a project with an agent's prompts/prefix.hbs and agentskills for any other folder; the config's profile wins", async () => {
    expect((await lint({ root: join(fixturesDir, "profile-gamma") })).profile).toBe("gamma");
    expect((await lint({ root: join(fixturesDir, "profile-agentskills") })).profile).toBe("agentskills");
    // A collection's own prompt files in prompts/ do not make it an agent.
    expect((await lint({ root: join(fixturesDir, "profile-agentskills-prompts-folder") })).profile).toBe("agentskills");
    expect((await lint({ root: join(fixturesDir, "config-profile") })).profile).toBe("agentskills");
  });

  it("names the profile in the summary line, and --profile overrides the detected one", async () => {
    const plain = await run(join(fixturesDir, "profile-gamma"), "lint", "--profile", "agentskills");
    expect(plain).toMatchObject({ code: 0, stdout: "✔ no problems · 1 skill, profile agentskills\n" });
    const gamma = await run(join(fixturesDir, "profile-gamma"), "lint");
    expect(gamma.code).toBe(1);
    // An agent is checked whole: its missing variant, variants and tool order too.
    expect(gamma.stdout).toContain("✖ 4 problems (4 errors, 0 warnings) · 1 skill, profile gamma\n");
  });

  it("lists as known keys what the profile reads at the top level: under agentskills the design's fields belong under metadata", async () => {
    const root = await tempDir("unknown-key-profile");
    const skill = join(root, "skills", "odd");
    mkdirSync(skill, { recursive: true });
    writeFileSync(join(skill, "SKILL.md"), "---\nname: odd\ndescription: Use when testing the key list.\nzzzq: 1\n---\n\n# Odd\n");
    const messageUnder = async (profile: "gamma" | "agentskills") => (await lint({ root, profile })).diagnostics.find((d) => d.ruleId === "skill/unknown-key")?.message ?? "";
    expect(await messageUnder("agentskills")).toMatch(/^Unexpected key "zzzq", expected one of the known keys \(name, description, /);
    expect(await messageUnder("agentskills")).not.toMatch(/\b(?:type|requiresSkills|conflictsWith|toolNamespaces)\b/);
    expect(await messageUnder("gamma")).toMatch(/\btype\b.*\brequiresSkills\b/);
  });
});

describe("skills and ignore in the config", () => {
  it("lints plugins/*/skills/* and skills/.curated/* in one run and leaves ignored folders out", async () => {
    const result = await lint({ root: join(fixturesDir, "config-layout") });
    expect(result.diagnostics).toEqual([]);
    expect(result.skillFileCount).toBe(3);
  });

  it("reads --config instead of the root's config: globs stay relative to the root, findings name the file from the working folder", async () => {
    const outside = await tempDir("lint config");
    const config = join(outside, "collections.json");
    writeFileSync(config, JSON.stringify({ profile: "gamma", skills: ["plugins/*/skills/*"], rules: { "skill/descripton-trigger": "off" } }));
    const root = join(fixturesDir, "config-layout");
    const result = await lint({ root, config });
    expect(result.profile).toBe("gamma");
    expect(result.skillFileCount).toBe(2);
    const { code, stdout } = await run(outside, "lint", "--root", root, "--config", "collections.json", "--format", "json");
    expect(code).toBe(1);
    const files = (JSON.parse(stdout) as { diagnostics: Array<{ file: string; ruleId: string }> }).diagnostics.filter((diagnostic) => diagnostic.ruleId === "config/invalid").map((diagnostic) => diagnostic.file);
    expect(files).toEqual(["collections.json"]);
    const missing = await run(outside, "lint", "--root", root, "--config", "nowhere.json");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no config file at nowhere.json");
  });

  it("names the config in use where a finding asks for a change to it: the --config file (root-relative inside the project), not the root's own", async () => {
    const root = await tempDir("lint config nested");
    cpSync(join(fixturesDir, "missing-skill-file-nested"), root, { recursive: true });
    const outside = await tempDir("lint config outside");
    const config = join(outside, "collections.json");
    const settings = JSON.stringify({ profile: "gamma", ignore: ["skills/drafts/old"] });
    writeFileSync(config, settings);
    mkdirSync(join(root, "configs"));
    writeFileSync(join(root, "configs", "strict.json"), settings);
    const nestedMessage = async (given?: string): Promise<string | undefined> =>
      (await lint({ root, ...(given === undefined ? {} : { config: given }) })).diagnostics.find((diagnostic) => diagnostic.file === "skills/group")?.message;
    const advice = (file: string): string => `move them up, or add "skills/group/*" to "skills" in ${file}`;
    expect(await nestedMessage()).toContain(advice("gamma-prompt.config.json"));
    expect(await nestedMessage(config)).toContain(advice(config));
    expect(await nestedMessage(join(root, "configs", "strict.json"))).toContain(advice("configs/strict.json"));
    const { stdout } = await run(outside, "lint", "--root", root, "--config", "collections.json");
    expect(stdout).toContain(advice(config));
  });

  it("refuses a --config that names a folder or nothing with one line and exit 2, before looking for the project", async () => {
    const root = join(fixturesDir, "config-layout");
    const folder = await run(join(root, "plugins"), "lint", "--config", tmpdir());
    expect(folder).toEqual({ code: 2, stdout: "", stderr: `gamma-prompt lint: --config ${tmpdir()} is a folder, expected a config file; pass --config with the path of an existing file\n` });
    const empty = await run(join(root, "plugins"), "lint", "--config", "");
    expect(empty).toEqual({ code: 2, stdout: "", stderr: "gamma-prompt lint: --config names no file (an empty name); pass --config with the path of an existing file\n" });
    await expect(lint({ root, config: tmpdir() })).rejects.toThrow(ConfigFileError);
  });
});

describe("gamma-prompt explain and the rule pages", () => {
  it("explains a rule with its doc, examples and page, and suggests the id meant for a typo", async () => {
    const explained = await run(repoRoot, "explain", "skill/broken-link");
    expect(explained.code).toBe(0);
    for (const text of ["skill/broken-link (error)", "Bad:", "Good:", "docs/rules/skill/broken-link.md"]) expect(explained.stdout).toContain(text);
    const typo = await run(repoRoot, "explain", "skill/description-triger");
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('did you mean "skill/description-trigger"?');
    // A rule named without its category, as a message's tail or a doc page's file name gives it.
    const bare = await run(repoRoot, "explain", "type-value");
    expect(bare.code).toBe(2);
    expect(bare.stderr).toBe('gamma-prompt explain: unknown rule "type-value"; did you mean "skill/type-value"?; run `gamma-prompt explain` for the list\n');
    // A terminal escape typed or pasted as the rule is shown escaped, never sent to the terminal.
    const escaped = await run(repoRoot, "explain", "x\u001b[31m");
    expect(escaped.stderr).toBe('gamma-prompt explain: unknown rule "x\\u001b[31m"; run `gamma-prompt explain` for the list\n');
    const several = await run(repoRoot, "explain", "invalid");
    expect(several.stderr).toContain('did you mean one of "config/invalid", "injection/invalid", "namespace/invalid", "tool/invalid", "variant/invalid"?');
    const list = await run(repoRoot, "explain");
    expect(list.stdout.split("\n").filter(Boolean)).toHaveLength(Object.keys(renderRulePages()).length || renderRulePages().size);
  });

  it("has its own doc, with a bad and a good example, for every skill rule", () => {
    const missing = Object.keys(ruleRegistry).filter((id) => id.startsWith("skill/") && RULE_DOCS[id as keyof typeof RULE_DOCS] === undefined);
    expect(missing).toEqual([]);
  });

  it("has its own doc for every registered rule: a what-and-why paragraph, a bad and a good example", () => {
    const incomplete = Object.keys(ruleRegistry)
      .sort()
      .filter((id) => {
        const doc = RULE_DOCS[id as keyof typeof RULE_DOCS];
        if (doc === undefined) return true;
        const filled = (part: string): boolean => part.trim() !== "" && !part.includes("no example written yet");
        return !filled(doc.text) || !filled(doc.bad) || !filled(doc.good) || doc.bad.trim() === doc.good.trim();
      });
    expect(incomplete).toEqual([]);
    for (const page of renderRulePages().values()) expect(page).not.toContain("no example written yet");
  });

  it("keeps docs/rules/ in step with the rule table (regenerate with node scripts/rule-docs.mjs)", () => {
    const pages = renderRulePages();
    const onDisk = readdirSync(join(repoRoot, "docs", "rules"), { recursive: true })
      .map(String)
      .filter((name) => name.endsWith(".md"))
      .map((name) => name.split("\\").join("/"))
      .sort();
    expect(onDisk).toEqual([...pages.keys()].sort());
    for (const [path, text] of pages) expect(readFileSync(join(repoRoot, "docs", "rules", path), "utf8"), path).toBe(text);
  });
});
