import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lint } from "../../src/lint.js";
import { checkSkillFile } from "../../src/pipeline/lint-skills/checked-skill.js";
import { firstInvalidUtf8Offset, MAX_SOURCE_BYTES } from "../../src/pipeline/discover/read-source.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { lintFixture } from "./helpers.js";

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project(files: Record<string, string | Buffer>): string {
  const root = mkdtempSync(join(tmpdir(), "gamma-prompt-lint-"));
  temps.push(root);
  mkdirSync(join(root, "skills"));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

describe("hostile input is ordinary input", () => {
  it("stops a billion-laughs frontmatter at the alias budget", async () => {
    const result = await lintFixture("yaml-alias-limit");
    expect(result.diagnostics.map((diagnostic) => diagnostic.ruleId)).toEqual(["skill/yaml-alias-limit"]);
  });

  it("keeps a __proto__ key an ordinary (unknown) key and pollutes nothing", async () => {
    const result = await lintFixture("unknown-key");
    expect(result.diagnostics.some((diagnostic) => diagnostic.message.includes('"__proto__"'))).toBe(true);
    expect(Object.prototype).not.toHaveProperty("polluted");
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it.each(["stylish", "github", "json", "sarif"])("never writes a control character of a key or a link target to a terminal or a CI log (--format %s)", async (format) => {
    const root = project({ "skills/ansi/SKILL.md": '---\nname: ansi\ntype: reference\ndescription: Use when testing keys.\n"k\\e[31mRED": 1\n---\n\n# Reference\n\n- Term: meaning.\n' });
    // A skill folder that is a link to a target named with an escape: no host can load it, and the message names the target.
    symlinkSync("gone\u001b[2J", join(root, "skills/cleared"));
    const run = await runCliInProcessFrom(root, "lint", "--format", format);
    const output = run.stdout + run.stderr;
    expect(output).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(output).toContain(format === "json" || format === "sarif" ? "k\\\\u001b[31mRED" : "k\\u001b[31mRED");
    expect(output).toContain(format === "json" || format === "sarif" ? "gone\\\\u001b[2J" : "gone\\u001b[2J");
  });

  it("reports CRLF and BOM files at the positions an editor shows for the LF twin", async () => {
    const crlf = await lintFixture("crlf-bom");
    const lf = await lintFixture("crlf-bom-twin");
    expect(crlf.diagnostics.length).toBeGreaterThan(0);
    expect(crlf.diagnostics).toEqual(lf.diagnostics);
  });

  it("refuses a file over the size limit without reading it", async () => {
    const root = project({ "skills/huge/SKILL.md": `---\nname: huge\n---\n${"x".repeat(MAX_SOURCE_BYTES)}` });
    const result = await lint({ root });
    expect(result.diagnostics.map((diagnostic) => [diagnostic.file, diagnostic.ruleId])).toEqual([["skills/huge/SKILL.md", "skill/file-too-large"]]);
  });

  it("reports an unreadable file and still checks the others", async () => {
    const body = "---\nname: NAME\ndescription: Use when testing.\nmetadata:\n  gamma-type: reference\n---\n\n# Notes\n";
    const root = project({ "skills/locked/SKILL.md": body.replace("NAME", "locked"), "skills/open/SKILL.md": body.replace("NAME", "open") });
    // A directory where the file should be cannot be read by anyone, root included.
    rmSync(join(root, "skills/locked/SKILL.md"));
    mkdirSync(join(root, "skills/locked/SKILL.md"));
    const result = await lint({ root });
    expect(result.diagnostics.map((diagnostic) => [diagnostic.file, diagnostic.ruleId])).toEqual([["skills/locked/SKILL.md", "skill/unreadable-file"]]);
    expect(result.skills.map((skill) => skill.name)).toEqual(["open"]);
  });

  it("finds the first bad byte of invalid UTF-8", () => {
    expect(firstInvalidUtf8Offset(Buffer.from("abc"))).toBe(3);
    expect(firstInvalidUtf8Offset(Buffer.from([0x61, 0xc3, 0xa9, 0xff]))).toBe(3);
    expect(firstInvalidUtf8Offset(Buffer.from([0xed, 0xa0, 0x80]))).toBe(0); // an encoded surrogate
    expect(firstInvalidUtf8Offset(Buffer.from([0xc0, 0xaf]))).toBe(0); // overlong
    expect(firstInvalidUtf8Offset(Buffer.from([0xf0, 0x9f, 0x8e]))).toBe(0); // truncated
  });

  it("checks every other skill when one file is broken", async () => {
    const result = await lintFixture("side-by-side");
    expect(result.skills.map((skill) => skill.name)).toEqual(["good"]);
    expect(result.diagnostics.every((diagnostic) => diagnostic.file === "skills/bad/SKILL.md")).toBe(true);
  });
});

describe("limits that keep lint fast on crafted bodies", () => {
  it("refuses 20,000 nested block quotes and bullets without parsing them", async () => {
    const deep = `${"> ".repeat(20_000)}1. verify\n${"- ".repeat(20_000)}1. x\n`;
    const root = project({ "skills/deep/SKILL.md": `---\nname: deep\ndescription: TRIGGER when deep.\nmetadata:\n  gamma-type: workflow\n---\n\n${deep}` });
    const result = await lint({ root });
    expect(result.diagnostics.map((diagnostic) => [diagnostic.line, diagnostic.ruleId])).toEqual([[8, "skill/body-too-deep"]]);
  });

  /** A skill whose body holds `line`, filled to the size limit with `unit`, then a broken link two lines below. */
  function filledSkill(type: "reference" | "workflow", before: string, unit: string, after: string): { root: string; brokenLine: number } {
    const head = `---\nname: probe\ndescription: Use when probing the linter.\nmetadata:\n  gamma-type: ${type}\n---\n\n# Probe\n\nSee [a](references/a.md).\n\n${before}`;
    const tail = `${after}\n\nSee [b](references/missing.md).\n`;
    const room = MAX_SOURCE_BYTES - head.length - tail.length;
    const root = project({ "skills/probe/SKILL.md": head + unit.repeat(Math.floor(room / unit.length)) + tail, "skills/probe/references/a.md": "x\n" });
    return { root, brokenLine: head.split("\n").length + after.split("\n").length + 1 };
  }

  // Each `[` of a line used to be read to the line's end in search of its `]`: a 1 MiB line took hours.
  it.each(["[", "![", "*_[`", "[](<", "[](a ("])("reads a 1 MiB line of %j as any other line and still finds the links around it", async (unit) => {
    const { root, brokenLine } = filledSkill("reference", "", unit, "");
    const result = await lint({ root });
    expect(result.diagnostics.map((diagnostic) => [diagnostic.ruleId, diagnostic.line, diagnostic.column])).toEqual([["skill/broken-link", brokenLine, 9]]);
  });

  it("reports each of 140,000 broken links in one file under the size limit, and checks the other skills, never overflowing the stack", async () => {
    const root = project({
      "skills/links/SKILL.md": `---\nname: links\ndescription: Use when a page lists many links.\n---\n\n${"[a](b)\n".repeat(140_000)}`,
      "skills/other/SKILL.md": "---\nname: other\ndescription: Use when checking the skill beside it.\nunknownKey: 1\n---\n\n# Other\n",
    });
    const result = await lint({ root });
    expect(result.diagnostics.filter((diagnostic) => diagnostic.ruleId === "skill/broken-link")).toHaveLength(140_000);
    expect(result.diagnostics.filter((diagnostic) => diagnostic.file === "skills/other/SKILL.md").map((diagnostic) => diagnostic.ruleId)).toEqual(["skill/unknown-key"]);
  }, 60_000);

  it("finds the link after 100,000 unclosed brackets on the same line, where GFM does", async () => {
    const root = project({ "skills/probe/SKILL.md": `---\nname: probe\ndescription: Use when probing the linter.\nmetadata:\n  gamma-type: reference\n---\n\n# Probe\n\n${"[".repeat(100_000)}[b](references/missing.md)\n` });
    const result = await lint({ root });
    expect(result.diagnostics.map((diagnostic) => [diagnostic.ruleId, diagnostic.line, diagnostic.column])).toEqual([["skill/broken-link", 10, 100_005]]);
  });

  // A workflow step's title drops link targets and emphasis markers; each unclosed one used to be read to the line's end.
  it.each(["[", "[](", "*a ", "_a "])("reads a 1 MiB workflow step of %j as any other step", async (unit) => {
    const { root, brokenLine } = filledSkill("workflow", "## Steps\n\n1. ", unit, "\n2. Check the result.\n3. Verify the output.");
    const result = await lint({ root });
    expect(result.diagnostics.map((diagnostic) => [diagnostic.ruleId, diagnostic.line])).toEqual([["skill/broken-link", brokenLine]]);
  });

  it("turns a failure inside the parser into a diagnostic on that file", async () => {
    const source = { path: "skills/x/SKILL.md", contentHash: "0", get text(): string { throw new RangeError("Maximum call stack size exceeded"); } };
    const parsed = await checkSkillFile(source);
    expect(parsed.diagnostics.map((diagnostic) => [diagnostic.ruleId, diagnostic.message])).toEqual([
      ["skill/parse-failure", "Unexpected failure while checking this file (RangeError: Maximum call stack size exceeded), expected a file gamma-prompt can check"],
    ]);
  });
});

describe("every value type in every frontmatter key", () => {
  const keys = ["name", "type", "description", "requiresSkills", "conflictsWith", "license", "compatibility", "metadata", "allowed-tools"];
  /** Keys for which the value type is valid, so no finding is due. */
  const valid: Record<string, string[]> = { "huge-string": ["license", "allowed-tools"] };

  for (const kind of ["null", "mapping", "list", "number", "boolean", "huge-string"]) {
    it(`gives each key's own rule, never a parse failure: ${kind} (fixture value-types-${kind})`, async () => {
      const result = await lintFixture(`value-types-${kind}`);
      expect(result.diagnostics.filter((diagnostic) => diagnostic.ruleId === "skill/parse-failure")).toEqual([]);
      for (const key of keys) {
        const findings = result.diagnostics.filter((diagnostic) => diagnostic.file === `skills/${key.toLowerCase()}/SKILL.md` && diagnostic.severity === "error");
        if ((valid[kind] ?? []).includes(key)) expect(findings).toEqual([]);
        else expect(findings.length, `${key}: ${kind}`).toBeGreaterThan(0);
      }
      // A long value is shown by its start and length: one finding stays one readable line.
      expect(Math.max(...result.diagnostics.map((diagnostic) => diagnostic.message.length))).toBeLessThan(300);
    });
  }

  it("words a mapping for type under skill/type-value (a null-prototype object has no string form)", async () => {
    const result = await lintFixture("value-types-mapping");
    const type = result.diagnostics.filter((diagnostic) => diagnostic.file === "skills/type/SKILL.md");
    expect(type.map((diagnostic) => [diagnostic.ruleId, diagnostic.message])).toEqual([["skill/type-value", 'Unexpected mapping for type, expected "workflow" or "reference"']]);
  });
});
