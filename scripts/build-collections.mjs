#!/usr/bin/env node
/**
 * Builds each Agent Skills collection under a folder as an agent and proves
 * that every supporting file reaches dist/ as read (byte for byte, but a text
 * file's CRLF line endings as LF, as the build writes them), that `check`
 * passes and that the runtime's `loadArtifacts` verifies and serves the same bytes.
 *
 *   node scripts/build-collections.mjs PATH [--json] [--strict]
 *
 * PATH holds collections (`<collection>/skills/<skill>/SKILL.md`) or is one
 * collection itself. Nothing is written under PATH: each collection is copied
 * into a temporary agent project made by `gamma-prompt init`.
 *
 * A plain Agent Skills SKILL.md has no `type`, which an agent project
 * requires; such a skill is built as a reference skill (lookup material, no
 * checklist contract) by adding `type: reference` to the copy's frontmatter.
 * A skill whose folder differs from its `name` is copied into a folder named
 * after it. Supporting files are never touched.
 *
 * What this proves is the copy, not the skills' quality (`corpus-table.mjs`
 * lints them): the project's config lowers the findings about a skill's own
 * text that do not touch its artifacts (a broken link, a description over
 * 1,024 characters or with `<`/`>`, which the catalog escapes) to warnings, so every skill is built and every one of its
 * files is checked; the report names each skill built with such a finding.
 * A skill that still has errors is left out and named, with the rule. With
 * `--strict` nothing is lowered. Exit 1 when any copied file differs, 2 on
 * bad usage.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build, check, init } from "../lib/index.js";
import { loadArtifacts } from "../lib/runtime/index.js";
import { withLfLineEndings } from "../lib/protocol/line-endings.js";

const args = process.argv.slice(2);
const json = args.includes("--json");
const strict = args.includes("--strict");
/** Findings about a skill's own text that leave its artifacts intact: lowered to warnings unless --strict. */
const LOWERED = ["skill/broken-link", "skill/description-angle-bracket", "skill/description-length"];
const target = args.find((arg) => !arg.startsWith("--"));
if (target === undefined || !existsSync(target)) {
  process.stderr.write("usage: node scripts/build-collections.mjs PATH [--json] [--strict]   (PATH holds <collection>/skills/<skill>/SKILL.md)\n");
  process.exit(2);
}

const root = resolve(target);
const collections = existsSync(join(root, "skills")) ? [root] : readdirSync(root).sort().map((name) => join(root, name)).filter((dir) => existsSync(join(dir, "skills")));
const rows = [];
for (const collection of collections) rows.push(await buildCollection(collection));

if (json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
else printTable(rows);
process.exit(rows.every((row) => row.identical && row.checkOk && row.loadOk) ? 0 : 1);

async function buildCollection(collection) {
  const project = mkdtempSync(join(tmpdir(), "gamma-collection-"));
  try {
    await init({ dir: project });
    rmSync(join(project, "skills"), { recursive: true, force: true });
    if (!strict) {
      const configPath = join(project, "gamma-prompt.config.json");
      const config = JSON.parse(readFileSync(configPath, "utf8"));
      writeFileSync(configPath, JSON.stringify({ ...config, rules: Object.fromEntries(LOWERED.map((rule) => [rule, "warn"])) }, null, 2));
    }
    const sources = new Map(); // skill name → source folder
    for (const folder of readdirSync(join(collection, "skills")).sort()) {
      const source = join(collection, "skills", folder);
      if (folder.startsWith(".") || !existsSync(join(source, "SKILL.md"))) continue;
      const text = readFileSync(join(source, "SKILL.md"), "utf8");
      const name = /^name:\s*["']?([^"'\n]+?)["']?\s*$/m.exec(frontmatter(text))?.[1] ?? folder;
      const copy = join(project, "skills", name);
      cpSync(source, copy, { recursive: true, verbatimSymlinks: true });
      if (!/^type:/m.test(frontmatter(text))) writeFileSync(join(copy, "SKILL.md"), text.replace(/^(\uFEFF?---\r?\n)/, "$1type: reference\n"));
      sources.set(name, source);
    }
    let built = await build({ root: project, persistentCache: false });
    const excluded = [];
    if (!built.ok) {
      // Leave out each skill that has errors of its own, then build the rest.
      const failing = new Map();
      for (const diagnostic of built.diagnostics) {
        const name = /^skills\/([^/]+)\//.exec(diagnostic.file)?.[1];
        if (diagnostic.severity === "error" && name !== undefined) failing.set(name, [...(failing.get(name) ?? []), diagnostic.ruleId]);
      }
      for (const [name, rules] of failing) {
        rmSync(join(project, "skills", name), { recursive: true, force: true });
        sources.delete(name);
        excluded.push(`${name} (${[...new Set(rules)].join(", ")})`);
      }
      built = await build({ root: project, persistentCache: false });
    }
    if (!built.ok) throw new Error(`${collection}: build failed: ${built.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.file} ${d.ruleId}`).join("; ")}`);
    const lowered = new Map();
    for (const diagnostic of built.diagnostics) {
      const name = /^skills\/([^/]+)\//.exec(diagnostic.file)?.[1];
      if (LOWERED.includes(diagnostic.ruleId) && name !== undefined) lowered.set(name, [...new Set([...(lowered.get(name) ?? []), diagnostic.ruleId])]);
    }

    let files = 0;
    let bytes = 0;
    const mismatches = [];
    const artifacts = loadArtifacts({ distDir: join(project, "dist") });
    for (const [name, source] of sources) {
      const served = artifacts.skills.get(name)?.files ?? new Map();
      const expected = supportingFiles(source);
      if (served.size !== expected.length) mismatches.push(`${name}: ${served.size} files served, ${expected.length} in the source`);
      for (const path of expected) {
        const original = withLfLineEndings(readFileSync(join(source, path)));
        const copied = readFileSync(join(project, "dist/skills", name, path));
        if (!original.equals(copied)) mismatches.push(`${name}/${path}: dist/ differs from the source`);
        if (!original.equals(served.get(path) ?? Buffer.alloc(0))) mismatches.push(`${name}/${path}: loadArtifacts serves other bytes`);
        files++;
        bytes += original.length;
      }
    }
    const checked = await check({ root: project });
    return {
      collection: collection.slice(root.length + 1) || collection,
      skills: sources.size + excluded.length,
      built: sources.size,
      excluded,
      lowered: [...lowered].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, rules]) => `${name} (${rules.join(", ")})`),
      supportingFiles: files,
      bytes,
      identical: mismatches.length === 0,
      mismatches,
      checkOk: checked.ok,
      loadOk: true,
    };
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

/** Every regular file below a skill folder but its SKILL.md, dotfiles skipped, as POSIX paths. */
function supportingFiles(folder, rel = "") {
  const out = [];
  for (const name of readdirSync(join(folder, rel)).sort()) {
    if (name.startsWith(".")) continue;
    const path = rel === "" ? name : `${rel}/${name}`;
    const stats = statSync(join(folder, path));
    if (stats.isDirectory()) out.push(...supportingFiles(folder, path));
    else if (stats.isFile() && path !== "SKILL.md") out.push(path);
  }
  return out;
}

function frontmatter(text) {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  return match?.[1] ?? "";
}

function printTable(results) {
  const header = ["collection", "skills", "built", "supporting files", "bytes", "byte-identical", "check", "loadArtifacts"];
  const lines = results.map((row) => [row.collection, row.skills, row.built, row.supportingFiles, row.bytes, row.identical ? "yes" : "NO", row.checkOk ? "ok" : "FAIL", row.loadOk ? "ok" : "FAIL"].map(String));
  const widths = header.map((title, index) => Math.max(title.length, ...lines.map((line) => line[index].length)));
  const format = (cells) => cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index]) : cell.padStart(widths[index]))).join("  ");
  process.stdout.write(`${format(header)}\n${lines.map(format).join("\n")}\n`);
  for (const row of results) {
    for (const skill of row.excluded) process.stdout.write(`${row.collection}: left out ${skill}\n`);
    for (const skill of row.lowered) process.stdout.write(`${row.collection}: built with a warning for ${skill}\n`);
    for (const mismatch of row.mismatches) process.stdout.write(`${row.collection}: ${mismatch}\n`);
  }
}
