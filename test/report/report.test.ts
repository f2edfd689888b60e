import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cp, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cost } from "../../src/cost/cost.js";
import { invalidationCost } from "../../src/cost/invalidation.js";
import { compareWithBaseline } from "../../src/evals/results.js";
import type { CachePlan } from "../../src/protocol/cache-plan.js";
import { renderHtml } from "../../src/report/html.js";
import { renderMarkdown } from "../../src/report/markdown.js";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { build } from "../../src/build.js";
import { collectReport, type ReportData } from "../../src/report/report.js";
import { repoRoot } from "../build/helpers.js";
import { runCliInProcess, runCliInProcessFrom } from "../helpers/cli.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { reportProject, sampleEvals, type ReportProject } from "./helpers.js";

afterAll(removeTempDirs);

const readPlan = (dist: string): CachePlan => JSON.parse(readFileSync(join(dist, "cache-plan.json"), "utf8")) as CachePlan;

describe("gamma-prompt report of the embedded default", () => {
  let data: ReportData;
  beforeAll(async () => {
    data = await collectReport({ root: repoRoot });
  });

  it("takes every block from dist/cache-plan.json and every price from cost", () => {
    const plan = readPlan(join(repoRoot, "dist"));
    expect(data.layout.map((variant) => variant.name)).toEqual(Object.keys(plan.variants));
    for (const variant of data.layout) expect(variant.blocks).toEqual(plan.variants[variant.name]?.blocks);
    expect(data.cost).toEqual(cost({ root: repoRoot }));
    expect(data.sharedPrefix).toEqual({ blockCount: 2, blocks: ["tools", "static-prefix"], tokens: plan.variants["base"]?.blocks[1]?.cumulativeTokens, variants: ["base", "deck-generation", "import"] });
  });

  it("draws each skill with its type, tokens and checklist, and each variant's preloads without what requirements bring in", () => {
    const deck = data.skills.skills.find((skill) => skill.name === "deck-generation");
    expect(deck).toMatchObject({ type: "workflow", checklistSteps: 14, conflicts: ["import"], preloadedBy: ["deck-generation"] });
    expect(data.skills.variants.find((variant) => variant.name === "deck-generation")?.preloads).toEqual(["deck-generation"]);
    expect(data.skills.lintSkipped).toBeUndefined();
  });

  it("is one page without script or fetched asset, the same bytes every time", async () => {
    const html = renderHtml(data);
    expect(html).toBe(renderHtml(await collectReport({ root: repoRoot })));
    // url() only for the arrow marker defined inside the same drawing.
    expect(html).not.toMatch(/<script|<link|<img|<iframe|\bsrc=|@import|url\((?!#arrow\))/i);
    expect(html).toContain(`default-src 'none'`);
    // Small enough to attach to a CI run.
    expect(Buffer.byteLength(html)).toBeLessThan(150_000);
  });

  it("prints the same through the CLI, as HTML or Markdown, to stdout or a file", async () => {
    const html = await runCliInProcess("report", "--root", repoRoot);
    expect(html.code).toBe(0);
    expect(html.stdout).toBe(renderHtml(data));
    const output = join(await tempDir(), "report.md");
    const markdown = await runCliInProcess("report", "--root", repoRoot, "--format", "markdown", "--output", output);
    expect(markdown).toMatchObject({ code: 0, stderr: "" });
    expect(readFileSync(output, "utf8")).toBe(renderMarkdown(data));
    // With --output, stdout is free to say what was written, so a CI log shows it.
    expect(markdown.stdout).toBe(`wrote ${output} (Markdown, ${Buffer.byteLength(renderMarkdown(data))} bytes)\n`);
  });
});

describe("gamma-prompt report --base", () => {
  let tail: ReportProject;
  beforeAll(async () => {
    tail = await reportProject("tail");
  });

  it("says plainly that every cached block is intact when none changed", async () => {
    const data = await collectReport({ root: tail.root, base: join(tail.root, "dist") });
    expect(data.base).toMatchObject({ intact: true, changes: [], invalidation: [] });
    expect(renderHtml(data)).toContain("Every cached block is intact.");
    expect(renderMarkdown(data)).toContain("**Every cached block is intact**");
  });

  it("names the one block a skill edit invalidates, in the one variant that preloads it, with check's price", async () => {
    const data = await collectReport({ root: tail.root, base: tail.baseDist });
    const base = data.base;
    expect(base?.intact).toBe(false);
    expect(base?.variants.map((variant) => [variant.name, variant.blocks.map((block) => block.state)])).toEqual([
      ["base", ["intact", "intact"]],
      ["outline", ["intact", "intact", "changed"]],
    ]);
    expect(base?.changes.find((change) => change.file === "variants/outline.md")?.invalidates).toEqual([{ variant: "outline", blocks: ["variant-tail"] }]);
    expect(base?.changes.find((change) => change.file === "skills/draft-outline.md")?.invalidates).toEqual([]);
    const prompts = (dist: string): Record<string, string> => Object.fromEntries(["base", "outline"].map((name) => [name, readFileSync(join(dist, `variants/${name}.md`), "utf8")]));
    expect(base?.invalidation).toEqual(invalidationCost(readPlan(tail.baseDist), readPlan(join(tail.root, "dist")), { before: prompts(tail.baseDist), after: prompts(join(tail.root, "dist")) }));
    // The edit is inside the outline's tail: OpenAI's exact-prefix cache keeps the part of the tail before it.
    expect(base?.invalidation[0]?.openaiTokens).toBeLessThan(base?.invalidation[0]?.tokens ?? 0);
    expect(base?.costDelta.map((row) => `${row.model} ${row.variant}`)).toEqual(["claude-sonnet-4-5 base", "claude-sonnet-4-5 outline", "gpt-5 base", "gpt-5 outline"]);
    expect(renderMarkdown(data)).toContain("| `variants/outline.md` | changed | 11,094 → 11,100 | outline: variant tail |");
  });

  it("counts only a new variant's own tail: its tools and static prefix are those some base variant had cached", async () => {
    const project = await reportProject("none");
    await writeFile(join(project.root, "prompts/variants.yaml"), "variants:\n  base:\n    preload: []\n  outline:\n    preload: [draft-outline]\n  steps:\n    preload: [draft-outline]\n  plain:\n    preload: []\n");
    const { build } = await import("../../src/build.js");
    expect((await build({ root: project.root })).errorCount).toBe(0);
    const data = await collectReport({ root: project.root, base: project.baseDist });
    const base = data.base;
    const plan = readPlan(join(project.root, "dist"));
    expect(base?.variants.map((variant) => [variant.name, variant.blocks.map((block) => block.state)])).toEqual([
      ["base", ["intact", "intact"]],
      ["outline", ["intact", "intact", "intact"]],
      ["plain", ["intact", "intact"]],
      ["steps", ["intact", "intact", "new"]],
    ]);
    const steps = plan.variants["steps"]?.blocks ?? [];
    // Anthropic writes the tail only; a variant whose every block the base sent is not listed.
    expect(base?.invalidation.map((entry) => [entry.variant, entry.tokens])).toEqual([["steps", steps.at(-1)?.tokens]]);
    expect(renderMarkdown(data)).toContain("**1 variant must be cached again** against");
    const { check } = await import("../../src/check.js");
    await cp(project.baseDist, join(project.root, "dist"), { recursive: true, force: true });
    expect((await check({ root: project.root })).invalidation).toEqual(base?.invalidation);
  });

  it("follows a static prefix edit through every block after it in every variant", async () => {
    const prefix = await reportProject("prefix");
    const base = (await collectReport({ root: prefix.root, base: prefix.baseDist })).base;
    expect(base?.variants.map((variant) => variant.blocks.map((block) => block.state))).toEqual([
      ["intact", "changed"],
      ["intact", "changed", "invalidated"],
    ]);
    expect(base?.changes.find((change) => change.file === "prefix.md")?.invalidates).toEqual([
      { variant: "base", blocks: ["static-prefix"] },
      { variant: "outline", blocks: ["static-prefix", "variant-tail"] },
    ]);
  });

  it("reads a git ref's committed dist/, the report the same as against a folder with those bytes", async () => {
    const repo = join(await tempDir(), "repo");
    const project = join(repo, "agent");
    await cp(tail.root, project, { recursive: true });
    await rm(join(project, "dist"), { recursive: true });
    await cp(tail.baseDist, join(project, "dist"), { recursive: true });
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd: repo });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "base");
    await rm(join(project, "dist"), { recursive: true });
    await cp(join(tail.root, "dist"), join(project, "dist"), { recursive: true });
    const fromRef = await collectReport({ root: project, base: "HEAD" });
    const fromFolder = await collectReport({ root: project, base: tail.baseDist });
    expect({ ...fromRef.base, label: "" }).toEqual({ ...fromFolder.base, label: "" });
    expect(fromRef.base?.label).toBe("HEAD");
  });

  it("reads a committed dist/ holding a file whose name has a line feed, as git stores any name", async () => {
    const repo = join(await tempDir(), "repo");
    const project = join(repo, "agent");
    await cp(tail.root, project, { recursive: true });
    await writeFile(join(project, "skills/style-guide/a\nb.md"), "notes\n");
    expect((await build({ root: project })).errorCount).toBe(0);
    const baseCopy = join(await tempDir(), "dist");
    await cp(join(project, "dist"), baseCopy, { recursive: true });
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd: repo });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "base");
    await writeFile(join(project, "skills/style-guide/a\nb.md"), "more notes\n");
    expect((await build({ root: project })).errorCount).toBe(0);
    const fromRef = await collectReport({ root: project, base: "HEAD" });
    const fromFolder = await collectReport({ root: project, base: baseCopy });
    expect({ ...fromRef.base, label: "" }).toEqual({ ...fromFolder.base, label: "" });
    expect(fromRef.base?.changes.map((change) => change.file)).toContain("skills/style-guide/a\nb.md");
  });

  it("shows a variant the traffic profile starts no session of with a dash and \"no sessions\", never priced as free", async () => {
    const data = await collectReport({ root: tail.root, base: tail.baseDist, profile: { durationMinutes: 5, sessionsPerMinute: { base: 10 } } });
    // The JSON figures keep their shape: no sessions, so nothing cached and nothing spent.
    expect(data.cost.rows.filter((row) => row.variant === "outline").every((row) => row.sessions === 0)).toBe(true);
    const html = renderHtml(data);
    const rows = [...html.matchAll(/<tr class="[^"]*" data-provider="[^"]*" data-model="[^"]*" data-policy="[^"]*" data-variant="(\w+)">.*?<\/tr>/g)];
    expect(rows.length).toBeGreaterThan(0);
    for (const [row, variant] of rows) {
      if (variant === "outline") {
        expect(row).toContain('<td class="num" data-field="cachedFraction">—</td>');
        expect(row).toContain('<span data-field="inputCostPer1000Sessions">no sessions</span>');
      } else {
        expect(row).toMatch(/data-field="cachedFraction">\d+\.\d%<\/td>/);
        expect(row).toMatch(/data-field="inputCostPer1000Sessions">\$\d+\.\d\d</);
      }
    }
    // The summary's price range is base's alone; the comparison with the base leaves out the variant without sessions.
    const basePrice = (model: string) => data.cost.rows.find((row) => row.isDefault && row.model === model && row.variant === "base")?.inputCostPer1000Sessions ?? Number.NaN;
    expect(html).toContain(`<div class="card-value">$${basePrice("claude-sonnet-4-5").toFixed(2)}</div><div class="card-detail">anthropic/claude-sonnet-4-5, default policy</div>`);
    expect(data.base?.costDelta.map((row) => `${row.model} ${row.variant}`)).toEqual(["claude-sonnet-4-5 base", "gpt-5 base"]);
    const markdown = renderMarkdown(data);
    expect(markdown).toMatch(/\| anthropic\/claude-sonnet-4-5 \| plan's breakpoints, 5m \| outline \| — \| no sessions \|\n/);
    expect(markdown).toMatch(/\| anthropic\/claude-sonnet-4-5 \| plan's breakpoints, 5m \(default\) \| outline \| — \| no sessions \| [\d,]+ \|\n/);
    expect(markdown).not.toMatch(/\| outline \| 0\.0% \|/);
  });

  it("compares costs with a base that lacks a namespace or a variant the traffic profile names, pricing the base with the entries that fit it", async () => {
    // The change under review adds the crm namespace and a variant that sends it; the profile is written for the change.
    const project = await reportProject("none");
    await cp(join(repoRoot, "test/fixtures/build/errors/variant-unknown-namespace/schemas/namespaces/crm"), join(project.root, "schemas/namespaces/crm"), { recursive: true });
    await writeFile(join(project.root, "prompts/prefix.hbs"), `${readFileSync(join(project.root, "prompts/prefix.hbs"), "utf8")}\n{{namespaceCatalog}}\n`);
    await writeFile(join(project.root, "prompts/variants.yaml"), "variants:\n  base:\n    preload: []\n  outline:\n    preload: [draft-outline]\n  crm:\n    preload: []\n    namespaces: [crm]\n");
    const { build } = await import("../../src/build.js");
    expect((await build({ root: project.root })).errorCount).toBe(0);
    const profile = { durationMinutes: 5, sessionsPerMinute: { base: 10, outline: 10, crm: 10 }, namespaceUse: { crm: 0.3 } };
    const data = await collectReport({ root: project.root, base: project.baseDist, profile, lint: false });
    expect(data.base?.costDeltaProblem).toBeUndefined();
    expect(data.base?.costDelta.map((row) => `${row.model} ${row.variant}`)).toEqual(["claude-sonnet-4-5 base", "claude-sonnet-4-5 outline", "gpt-5 base", "gpt-5 outline"]);
    // The base's figures are those of the base priced with the entries that fit it.
    const base = cost({ root: project.baseDist, outDir: ".", profile: { durationMinutes: 5, sessionsPerMinute: { base: 10, outline: 10 } } });
    for (const row of data.base?.costDelta ?? []) {
      expect(row.before).toBe(base.rows.find((entry) => entry.isDefault && entry.model === row.model && entry.variant === row.variant)?.inputCostPer1000Sessions);
    }
    expect(renderMarkdown(data)).toContain("Input cost per 1,000 sessions under the traffic profile (the runtime's default policy):");
    // A profile that starts sessions of the new variant alone leaves nothing to compare, and says so.
    const none = await collectReport({ root: project.root, base: project.baseDist, profile: { durationMinutes: 5, sessionsPerMinute: { crm: 10 } }, lint: false });
    expect(none.base?.costDelta).toEqual([]);
    expect(renderMarkdown(none)).toContain("No cost comparison: the traffic profile starts no session of a variant both builds have.");
    // cost itself stays strict: the profile names a namespace and a variant the base does not have.
    expect(() => cost({ root: project.baseDist, outDir: ".", profile: { namespaceUse: { crm: 0.3 } } })).toThrow('Unexpected namespace "crm" in namespaceUse');
    expect(() => cost({ root: project.baseDist, outDir: ".", profile: { sessionsPerMinute: { crm: 10 } } })).toThrow('Unexpected variant "crm" in sessionsPerMinute');
  });

  it("refuses a base that is neither a dist/ folder nor a git ref, without a stack trace", async () => {
    const run = await runCliInProcess("report", "--root", tail.root, "--base", "no-such-ref-or-folder");
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^gamma-prompt report: Unexpected --base no-such-ref-or-folder: neither a folder nor a git ref/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const empty = await tempDir();
    const folder = await runCliInProcess("report", "--root", tail.root, "--base", empty);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain("a folder without manifest.json");
    const tampered = join(await tempDir(), "dist");
    await cp(tail.baseDist, tampered, { recursive: true });
    await writeFile(join(tampered, "prefix.md"), "changed by hand\n");
    const unverified = await runCliInProcess("report", "--root", tail.root, "--base", tampered);
    expect(unverified.code).toBe(2);
    expect(unverified.stderr).toMatch(/Unexpected --base .*: its dist\/ failed verification/);
    expect(unverified.stderr).not.toContain("gamma-prompt build");
  });
});

describe("gamma-prompt report's cache blocks", () => {
  it("names the variants that share a block byte for byte from the same offset, not only all or none", async () => {
    const project = await reportProject("none");
    const namespace = join(project.root, "schemas/namespaces/crm");
    await cp(join(repoRoot, "test/fixtures/build/errors/variant-unknown-namespace/schemas/namespaces/crm"), namespace, { recursive: true });
    // A project with namespaces lists them in its static prefix.
    await writeFile(join(project.root, "prompts/prefix.hbs"), `${readFileSync(join(project.root, "prompts/prefix.hbs"), "utf8")}\n{{namespaceCatalog}}\n`);
    // plain and outline send no namespace: their tools and static prefix are the same bytes; crm and crm-outline send crm from the start.
    await writeFile(
      join(project.root, "prompts/variants.yaml"),
      "variants:\n  base:\n    preload: []\n  outline:\n    preload: [draft-outline]\n  crm:\n    preload: []\n    namespaces: [crm]\n  crm-outline:\n    preload: [draft-outline]\n    namespaces: [crm]\n",
    );
    const { build } = await import("../../src/build.js");
    expect((await build({ root: project.root })).errorCount).toBe(0);
    const html = renderHtml(await collectReport({ root: project.root }));
    const shared = [...html.matchAll(/<tr data-variant="([\w-]+)" data-block="([\w-]+)">.*?<td(?: data-field="shared")?>([^<]*)<\/td><\/tr>/g)].map(([, variant, block, text]) => `${variant} ${block}: ${text}`);
    expect(shared).toEqual([
      "base tools: all variants",
      "base static-prefix: this variant and outline",
      "crm tools: all variants",
      "crm namespace-tools: this variant and crm-outline",
      "crm static-prefix: this variant and crm-outline",
      "crm-outline tools: all variants",
      "crm-outline namespace-tools: this variant and crm",
      "crm-outline static-prefix: this variant and crm",
      "crm-outline variant-tail: this variant",
      "outline tools: all variants",
      "outline static-prefix: this variant and base",
      "outline variant-tail: this variant",
    ]);
  });
});

describe("gamma-prompt report's skills", () => {
  it("puts each lint finding beside the skill it concerns, on the graph and in the table", async () => {
    const project = await reportProject("none");
    const file = join(project.root, "skills/style-guide/SKILL.md");
    await writeFile(file, `${readFileSync(file, "utf8")}\nSee [the notes](notes.md).\n`);
    const data = await collectReport({ root: project.root });
    const styleGuide = data.skills.skills.find((skill) => skill.name === "style-guide");
    expect(styleGuide?.findings.map((finding) => [finding.ruleId, finding.file])).toEqual([["skill/broken-link", "skills/style-guide/SKILL.md"]]);
    expect(data.skills.skills.find((skill) => skill.name === "draft-outline")?.findings).toEqual([]);
    const html = renderHtml(data);
    expect(html).toMatch(/<g class="badge badge-error">.*?<text[^>]*>1<\/text><\/g>/);
    expect(html).toMatch(/<tr data-skill="style-guide">.*?skill\/broken-link/);
    expect(renderMarkdown(data)).toContain("| style-guide | reference |");
  });

  it("writes a finding's HTML-like text as text in the Markdown table, so a job summary renders it as written", async () => {
    const project = await reportProject("none");
    const file = join(project.root, "skills/style-guide/SKILL.md");
    await writeFile(file, readFileSync(file, "utf8").replace(/^name: /m, 'x|y<b>&z: 1\nname: '));
    const markdown = renderMarkdown(await collectReport({ root: project.root }));
    expect(markdown).toContain("x\\|y&lt;b&gt;&amp;z");
    expect(markdown).not.toContain("<b>");
  });

  it("writes third parties' text in the Markdown as the text it is: no image, no link of their choosing, file names as written", async () => {
    const project = await reportProject("none");
    const file = join(project.root, "skills/style-guide/SKILL.md");
    const image = "![i](https://evil.example/lint.png) [click](https://evil.example/login) *bold* `code` ~~gone~~";
    await writeFile(file, readFileSync(file, "utf8").replace(/^name: /m, `${JSON.stringify(image)}: 1\nname: `));
    // File names with a backtick, an ampersand and angle brackets, changed against the base.
    const references = join(project.root, "skills/style-guide/references");
    await mkdir(references, { recursive: true });
    for (const name of ["a`![x](https:evil.example)`.md", "R&D <draft>.md"]) await writeFile(join(references, name), "notes\n");
    expect((await build({ root: project.root })).errorCount).toBe(0);
    const { results } = sampleEvals("0".repeat(64));
    const evals = { ...results, model: "![m](https://evil.example/model.png)", scenarios: results.scenarios.map((scenario) => ({ ...scenario, name: `[s](https://evil.example/s) ${scenario.name}` })) };
    const markdown = renderMarkdown(await collectReport({ root: project.root, base: project.baseDist, evals }));
    const tree = unified().use(remarkParse).use(remarkGfm).parse(markdown);
    const nodes: Array<{ type: string; url?: string; value?: string; children?: unknown[] }> = [];
    const walk = (node: { type: string; children?: unknown[] }): void => {
      nodes.push(node);
      for (const child of node.children ?? []) walk(child as { type: string; children?: unknown[] });
    };
    walk(tree);
    expect(nodes.filter((node) => node.type === "image" || node.type === "imageReference")).toEqual([]);
    // A bare URL may be autolinked, showing itself; no link shows other text than its address.
    const textOf = (node: { value?: string; children?: unknown[] }): string => node.value ?? (node.children ?? []).map((child) => textOf(child as { value?: string; children?: unknown[] })).join("");
    for (const link of nodes.filter((node) => node.type === "link")) expect(textOf(link)).toBe(link.url);
    expect(nodes.filter((node) => node.type === "emphasis" || node.type === "strong" || node.type === "delete").map(textOf).filter((text) => /bold|gone/.test(text))).toEqual([]);
    const shown = textOf(tree as { children?: unknown[] });
    // The lint message quotes the key (cut after its first words, as every long value is).
    expect(shown).toContain('Unexpected key "![i](https://evil.example/lint.png) [click](https://evil.example/login) *bold* `"… (94 code points)');
    expect(shown).toContain("![m](https://evil.example/model.png)");
    expect(shown).toContain("[s](https://evil.example/s) outline-from-topic");
    const code = nodes.filter((node) => node.type === "inlineCode").map((node) => node.value);
    expect(code).toContain("skills/style-guide/references/a`![x](https:evil.example)`.md");
    expect(code).toContain("skills/style-guide/references/R&D <draft>.md");
  });

  it("leaves lint out, and says so, for a root without skill sources", async () => {
    const root = await tempDir();
    await cp(join(repoRoot, "dist"), join(root, "dist"), { recursive: true });
    const data = await collectReport({ root });
    expect(data.skills.lintSkipped).toMatch(/^no skill sources to lint/);
    // Every skill dist/ ships, from the manifest alone.
    const manifest = JSON.parse(readFileSync(join(repoRoot, "dist", "manifest.json"), "utf8")) as { skills: Record<string, unknown> };
    expect(data.skills.skills).toHaveLength(Object.keys(manifest.skills).length);
    expect(renderHtml(data)).toContain("Lint did not run: no skill sources to lint");
  });

  it("gives the same bytes wherever the project lies when lint is left out, naming no path", async () => {
    const pages: string[] = [];
    for (const place of ["one", join("two", "deeper")]) {
      const root = join(await tempDir(), place);
      await cp(join(repoRoot, "dist"), join(root, "dist"), { recursive: true });
      const html = await runCliInProcessFrom(root, "report");
      const markdown = await runCliInProcessFrom(root, "report", "--format", "markdown", "--root", ".");
      expect(html.code).toBe(0);
      expect(html.stdout).not.toContain(root);
      expect(markdown.stdout).not.toContain(root);
      expect(html.stdout).toContain("Lint did not run: no skill sources to lint (the project has no skills/ folder).");
      expect(markdown.stdout).toContain("Lint did not run: no skill sources to lint (the project has no skills/ folder).");
      pages.push(html.stdout, markdown.stdout);
    }
    expect(pages[2]).toBe(pages[0]);
    expect(pages[3]).toBe(pages[1]);
  });

  it("counts the skills lint read, not those of dist/, and says which skills had no source to lint", async () => {
    const root = await tempDir();
    await cp(join(repoRoot, "dist"), join(root, "dist"), { recursive: true });
    await mkdir(join(root, "skills"));
    const data = await collectReport({ root });
    expect(data.skills.lintSkipped).toBeUndefined();
    expect(data.skills.skillFilesLinted).toBe(0);
    expect(data.skills.skills.length).toBeGreaterThan(0);
    expect(data.skills.skills.every((skill) => !skill.linted)).toBe(true);
    const html = renderHtml(data);
    expect(html).toContain("0 skills checked");
    expect(html).not.toContain('<span class="ok">none</span>');
    expect(html).toContain("no source linted");
    expect(renderMarkdown(data)).toContain("| no source linted |");

    // With the sources, every skill is read and counted.
    const full = await collectReport({ root: repoRoot });
    expect(full.skills.skillFilesLinted).toBe(full.skills.skills.length);
    expect(full.skills.skills.every((skill) => skill.linted)).toBe(true);
    expect(renderHtml(full)).toContain(`${full.skills.skills.length} skills checked`);
  });
});

describe("gamma-prompt report --evals", () => {
  it("shows pass rates with their intervals and the regressions eval's own rule finds against the baseline", async () => {
    const project = await reportProject("none");
    const { results, baseline } = sampleEvals("key");
    await writeFile(join(project.root, "results.json"), JSON.stringify(results));
    await writeFile(join(project.root, "baseline.json"), JSON.stringify(baseline));
    const run = await runCliInProcessFrom(project.root, "report", "--evals", "results.json", "--baseline", "baseline.json", "--format", "markdown");
    expect(run.code).toBe(0);
    const expected = compareWithBaseline(baseline, results.scenarios);
    expect(expected.regressions.map((change) => `${change.scenario} ${change.expectation ?? ""}`)).toEqual(["outline-from-topic ", "outline-from-topic all-steps"]);
    expect(run.stdout).toContain("**2 regressions** against the baseline (95% intervals do not overlap):");
    expect(run.stdout).toContain("- outline-from-topic · all-steps: 95% (76%–99%) → 55% (34%–74%)");
    expect(run.stdout).toContain("| outline-from-topic | 11/20 | 55% | 34%–74% | **fail** |");
  });

  // An evaluation results or baseline file may come from a pull request: its model and scenario names must not add HTML, headings or lines.
  it("writes the model and scenario names of the results and baseline as text in the Markdown summary", async () => {
    const project = await reportProject("none");
    const { results, baseline } = sampleEvals("key");
    const hostile = "outline<b>\n## x|y";
    for (const document of [results, baseline]) {
      const [first] = document.scenarios;
      if (first === undefined) throw new Error("no scenario");
      first.name = hostile;
    }
    results.model = '<img src=x onerror="x">|\r\n## H';
    await writeFile(join(project.root, "results.json"), JSON.stringify(results));
    await writeFile(join(project.root, "baseline.json"), JSON.stringify(baseline));
    const run = await runCliInProcessFrom(project.root, "report", "--evals", "results.json", "--baseline", "baseline.json", "--format", "markdown");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('\nModel &lt;img src=x onerror="x"&gt;\\| ## H · live · 20 runs per scenario');
    expect(run.stdout).toContain("\n- outline&lt;b&gt; ## x\\|y: 95% (76%–99%) → 55% (34%–74%)\n");
    expect(run.stdout).not.toMatch(/<img|<b>|^## [Hx]/m);
  });

  it("warns, on stderr and on the page (HTML and Markdown), when the results were measured on another build, and exits 0", async () => {
    const project = await reportProject("none");
    const buildKey = (JSON.parse(readFileSync(join(project.root, "dist/manifest.json"), "utf8")) as { staticPrefix: { cacheKey: string } }).staticPrefix.cacheKey;
    const otherKey = `c04fd8030885${"0".repeat(52)}`;
    await writeFile(join(project.root, "other.json"), JSON.stringify(sampleEvals(otherKey).results));
    await writeFile(join(project.root, "same.json"), JSON.stringify(sampleEvals(buildKey).results));
    const warning = `gamma-prompt report: warning: the evaluation results other.json were measured on another build (dist c04fd8030885; this build's prefix cache key is ${buildKey.slice(0, 12)})\n`;

    const markdown = await runCliInProcessFrom(project.root, "report", "--evals", "other.json", "--format", "markdown");
    expect([markdown.code, markdown.stderr]).toEqual([0, warning]);
    expect(markdown.stdout).toContain(`Model anthropic/claude-sonnet-4-5 · live · 20 runs per scenario · dist \`c04fd8030885\` · threshold 80%`);
    expect(markdown.stdout).toContain(
      `> **Warning: measured on another build.** These results are of dist \`c04fd8030885\`; this report's build has prefix cache key \`${buildKey.slice(0, 12)}\`. They say how that build behaved, not this one: run \`gamma-prompt eval\` on this build to measure it.\n`,
    );
    const html = await runCliInProcessFrom(project.root, "report", "--evals", "other.json");
    expect([html.code, html.stderr]).toEqual([0, warning]);
    expect(html.stdout).toContain(`<p class="verdict verdict-warn" data-warning="other-build"><strong>Measured on another build.</strong> These results are of dist <code>c04fd8030885</code>; this report's build has prefix cache key <code>${buildKey.slice(0, 12)}</code>.`);

    // Results of this very build: no warning anywhere.
    for (const format of ["markdown", "html"]) {
      const same = await runCliInProcessFrom(project.root, "report", "--evals", "same.json", "--format", format);
      expect([same.code, same.stderr]).toEqual([0, ""]);
      expect(same.stdout).not.toMatch(/another build/i);
    }
  });

  it("shows a scenario with stale runs as failing, naming how many runs were not evaluated", async () => {
    const project = await reportProject("none");
    const { results } = sampleEvals("key");
    const [first] = results.scenarios;
    if (first === undefined) throw new Error("no scenario");
    Object.assign(first, { stale: 2, pass: false });
    await writeFile(join(project.root, "results.json"), JSON.stringify(results));
    const markdown = await runCliInProcessFrom(project.root, "report", "--evals", "results.json", "--format", "markdown");
    expect(markdown.stdout).toContain("| outline-from-topic | 11/20 | 55% | 34%–74% | **fail** (2 stale runs not evaluated) |");
    const html = await runCliInProcessFrom(project.root, "report", "--evals", "results.json");
    expect(html.stdout).toContain('<span class="bad">fail</span> <span class="muted">(2 stale runs not evaluated)</span>');
  });

  it("shows a scenario with no evaluated run as a dash, as eval prints it, never as a 0% pass rate", async () => {
    const project = await reportProject("none");
    const { results } = sampleEvals("key");
    const [first] = results.scenarios;
    if (first === undefined) throw new Error("no scenario");
    const nothing = { passed: 0, runs: 0, rate: 0, interval: [0, 1] as [number, number] };
    Object.assign(first, nothing, { stale: 3, pass: false });
    for (const expectation of first.expectations) Object.assign(expectation, nothing);
    await writeFile(join(project.root, "results.json"), JSON.stringify(results));
    const markdown = await runCliInProcessFrom(project.root, "report", "--evals", "results.json", "--format", "markdown");
    expect(markdown.stdout).toContain("| outline-from-topic | 0/0 | — | — | **fail** (3 stale runs not evaluated) |");
    expect(markdown.stdout).toContain(`| ↳ ${first.expectations[0]?.id} | 0/0 | — | — |  |`);
    expect(markdown.stdout).not.toContain("0%–100%");
    const html = await runCliInProcessFrom(project.root, "report", "--evals", "results.json");
    expect(html.stdout).toContain('<td class="num" data-field="passed">0/0</td><td class="num" data-field="rate">—</td><td class="num" data-field="interval">—</td>');
    expect(html.stdout).toContain('<desc id="rate-0-desc">no run evaluated</desc>');
    expect(html.stdout).not.toContain("0 of 0 runs passed");
  });

  it("refuses a file that is not a results document, and a baseline without results", async () => {
    const project = await reportProject("none");
    await writeFile(join(project.root, "bad.json"), "{}");
    const bad = await runCliInProcessFrom(project.root, "report", "--evals", "bad.json");
    expect(bad).toMatchObject({ code: 2, stdout: "" });
    expect(bad.stderr).toContain('gamma-prompt report: Unexpected evaluation results bad.json: expected "format": "gamma-prompt/eval-results@1"');
    const alone = await runCliInProcessFrom(project.root, "report", "--baseline", "bad.json");
    expect(alone.code).toBe(2);
  });

  it("refuses, in one line, a results document with a field the report reads missing or of another type, in either format", async () => {
    const project = await reportProject("none");
    const { results } = sampleEvals("key");
    const [first] = results.scenarios;
    if (first === undefined) throw new Error("no scenario");
    const broken: Record<string, unknown> = {
      "no-mode.json": { ...results, mode: undefined },
      "no-kind.json": { ...results, scenarios: [{ ...first, expectations: first.expectations.map(({ kind: _kind, ...rest }) => rest) }] },
      "no-variant.json": { ...results, scenarios: [{ ...first, variant: undefined }] },
      "bare-baseline.json": { ...results, baseline: { model: "m" } },
      "no-runs.json": { ...results, runs: undefined, threshold: undefined },
      "text-interval.json": { ...results, scenarios: [{ ...first, interval: ["a", "b"] }] },
    };
    for (const [name, document] of Object.entries(broken)) {
      await writeFile(join(project.root, name), JSON.stringify(document));
      for (const format of ["html", "markdown"]) {
        const run = await runCliInProcessFrom(project.root, "report", "--evals", name, "--format", format);
        expect(run, `${name} ${format}`).toMatchObject({ code: 2, stdout: "" });
        expect(run.stderr, `${name} ${format}`).toMatch(new RegExp(`^gamma-prompt report: Unexpected evaluation results ${name.replace(".", "\\.")}: expected [^\\n]+\\n$`));
      }
      await expect(collectReport({ root: project.root, evals: document as never })).rejects.toThrow(TypeError);
    }
  });
});
