// The labelled corpus: lints every collection of corpus/ under the
// agentskills profile, matches each finding with its label in
// corpus/labels.tsv (true or false, with a one-line reason), and prints the
// per-rule precision table. Exits 1 when a finding has no label, when a label
// is still "?", or when a label's finding is gone. Run `npm run build:ts` first.
//
//   node scripts/corpus-precision.mjs              (check, then print the table)
//   node scripts/corpus-precision.mjs --collections  (print the table of collections the corpus README shows)
//   node scripts/corpus-precision.mjs --add-unlabelled
//                                                  (append each unlabelled finding as "?", to be read and labelled)
//   node scripts/corpus-precision.mjs --drop-stale  (remove the labels whose finding is gone)
//
// A label is keyed by rule id, file and a hash of the text the finding flags
// (its range; for a finding about a whole file, the related file and the
// line), never by line number: a moved line keeps its label, and a changed
// flagged text asks for a new one.
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const CORPUS = join(here, "..", "corpus");
export const LABELS_FILE = join(CORPUS, "labels.tsv");
const HEADER = "# rule\tfile\tkey\tlabel\treason\tflagged text (for the reader)";

/** The collections corpus/collections.json lists, in its order. */
export function corpusCollections(corpus = CORPUS) {
  return JSON.parse(readFileSync(join(corpus, "collections.json"), "utf8")).collections;
}

/** Every finding on every collection, each with its corpus-relative file; `skillCounts` by collection. */
export async function lintCorpus(lint, corpus = CORPUS) {
  const findings = [];
  const skillCounts = new Map();
  for (const { name } of corpusCollections(corpus)) {
    const result = await lint({ root: join(corpus, name), profile: "agentskills" });
    skillCounts.set(name, result.skillFileCount);
    for (const diagnostic of result.diagnostics) findings.push({ ...diagnostic, file: `${name}/${diagnostic.file}` });
  }
  return Object.assign(findings, { skillCounts });
}

/** The corpus README's table of collections: where each comes from, its licence and how many skills it holds. */
export function collectionTable(skillCounts, corpus = CORPUS) {
  const lines = ["| collection | upstream repository | commit | licence | skills |", "| --- | --- | --- | --- | ---: |"];
  let total = 0;
  for (const { name, repository, commit, licence } of corpusCollections(corpus)) {
    const count = skillCounts.get(name) ?? 0;
    total += count;
    lines.push(`| ${name} | [${repository}](https://github.com/${repository}) | \`${commit.slice(0, 12)}\` | ${licence} | ${count} |`);
  }
  lines.push(`| **${corpusCollections(corpus).length} collections** | | | | **${total}** |`);
  return `${lines.join("\n")}\n`;
}

/** The text a finding flags, read from the corpus: its range, or for a point, the related file and the line. */
export function flaggedText(finding, corpus = CORPUS) {
  const lines = readLines(join(corpus, finding.file));
  const startLine = lines[finding.line - 1] ?? "";
  if (finding.endLine > finding.line || finding.endColumn > finding.column) {
    const parts = [];
    for (let line = finding.line; line <= finding.endLine; line++) {
      const text = lines[line - 1] ?? "";
      const from = line === finding.line ? finding.column - 1 : 0;
      const to = line === finding.endLine ? finding.endColumn - 1 : text.length;
      parts.push(text.slice(from, to));
    }
    return parts.join("\n");
  }
  const related = finding.related ? `${finding.related.file}\n` : "";
  return `${related}${startLine}`;
}

const fileCache = new Map();
function readLines(path) {
  if (!fileCache.has(path)) fileCache.set(path, existsSync(path) ? readFileSync(path, "utf8").replace(/^\uFEFF/, "").split(/\r\n|\r|\n/) : []);
  return fileCache.get(path);
}

/** Each finding with its label key; equal keys in one file are told apart by their order (`#2`, `#3`). */
export function keyFindings(findings, corpus = CORPUS) {
  const seen = new Map();
  return findings.map((finding) => {
    const flagged = flaggedText(finding, corpus);
    const hash = createHash("sha256").update(flagged).digest("hex").slice(0, 12);
    const base = `${finding.ruleId}\t${finding.file}\t${hash}`;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return { finding, rule: finding.ruleId, file: finding.file, key: count === 1 ? hash : `${hash}#${count}`, flagged };
  });
}

/** corpus/labels.tsv as a map from "rule, file, key" to its label and reason. */
export function readLabels(path = LABELS_FILE) {
  const labels = new Map();
  if (!existsSync(path)) return labels;
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((line, index) => {
      if (line === "" || line.startsWith("#")) return;
      const [rule, file, key, label, reason = ""] = line.split("\t");
      if (!rule || !file || !key || !label) throw new Error(`${path}:${index + 1}: expected rule, file, key, label and reason separated by tabs`);
      if (!["true", "false", "?"].includes(label)) throw new Error(`${path}:${index + 1}: expected the label true, false or ?, found "${label}"`);
      const id = `${rule}\t${file}\t${key}`;
      if (labels.has(id)) throw new Error(`${path}:${index + 1}: a second label for ${rule} ${file} ${key}`);
      labels.set(id, { rule, file, key, label, reason, line: index + 1 });
    });
  return labels;
}

/** Which findings are labelled (and how), which are not, and which labels lost their finding. */
export function matchLabels(keyed, labels) {
  const used = new Set();
  const labelled = [];
  const unlabelled = [];
  for (const item of keyed) {
    const id = `${item.rule}\t${item.file}\t${item.key}`;
    const label = labels.get(id);
    if (label === undefined || label.label === "?") unlabelled.push(item);
    else labelled.push({ ...item, label: label.label === "true", reason: label.reason });
    if (label !== undefined) used.add(id);
  }
  const stale = [...labels.values()].filter((label) => !used.has(`${label.rule}\t${label.file}\t${label.key}`));
  return { labelled, unlabelled, stale };
}

/**
 * One row per rule that has findings and per severity its findings have on the corpus (the agentskills profile
 * lowers some, such as skill/type-value on a top-level type): counts and precision. A finding without a
 * severity counts at its rule's default.
 */
export function precisionRows(labelled, registry) {
  const rows = new Map();
  for (const item of labelled) {
    const severity = item.finding.severity ?? registry[item.rule]?.severity ?? "?";
    const id = `${item.rule}\t${severity}`;
    const row = rows.get(id) ?? { rule: item.rule, severity, findings: 0, true: 0, false: 0 };
    row.findings++;
    if (item.label) row.true++;
    else row.false++;
    rows.set(id, row);
  }
  const order = { error: 0, warning: 1, note: 2 };
  return [...rows.values()].sort((a, b) => (order[a.severity] ?? 3) - (order[b.severity] ?? 3) || (a.rule < b.rule ? -1 : 1));
}

/** "100%" or "87.5%": one decimal where it is not whole, so 99.96% never shows as 100%. */
export function formatPrecision(row) {
  const percent = (row.true / row.findings) * 100;
  const rounded = Math.floor(percent * 10) / 10;
  return `${Number.isInteger(rounded) ? rounded.toFixed(0) : rounded.toFixed(1)}%`;
}

/** Each rule's findings at every severity in one row, by rule: what the README's rule table shows per rule. */
export function precisionByRule(rows) {
  const byRule = new Map();
  for (const row of rows) {
    const merged = byRule.get(row.rule);
    if (merged === undefined) byRule.set(row.rule, { ...row });
    else {
      merged.severity = `${merged.severity}, ${row.severity}`;
      merged.findings += row.findings;
      merged.true += row.true;
      merged.false += row.false;
    }
  }
  return byRule;
}

/** A rule's cell in the README's rule table: its precision with its counts, or that the corpus gave it nothing to judge. */
export function precisionCell(row) {
  return row === undefined ? "no finding" : `${formatPrecision(row)} (${row.true} of ${row.findings})`;
}

export function formatTable(rows) {
  const lines = ["| rule | severity | findings | true | false | precision |", "| --- | --- | ---: | ---: | ---: | ---: |"];
  for (const row of rows) lines.push(`| \`${row.rule}\` | ${row.severity} | ${row.findings} | ${row.true} | ${row.false} | ${formatPrecision(row)} |`);
  for (const severity of ["error", "warning", "note"]) {
    const group = rows.filter((row) => row.severity === severity);
    if (group.length === 0) continue;
    const total = { findings: 0, true: 0, false: 0 };
    for (const row of group) (total.findings += row.findings), (total.true += row.true), (total.false += row.false);
    lines.push(`| **all ${severity}s** | | ${total.findings} | ${total.true} | ${total.false} | ${formatPrecision(total)} |`);
  }
  return `${lines.join("\n")}\n`;
}

function labelLine(item, label = "?", reason = "") {
  const shown = item.flagged.replace(/\s+/g, " ").trim();
  return [item.rule, item.file, item.key, label, reason, shown.length > 80 ? `${shown.slice(0, 79)}…` : shown].join("\t");
}

async function main() {
  const { lint } = await import("../lib/index.js");
  const { ruleRegistry } = await import("../lib/diagnostics/rules/index.js");
  const findings = await lintCorpus(lint);
  if (process.argv.includes("--collections")) {
    process.stdout.write(collectionTable(findings.skillCounts));
    return;
  }
  const keyed = keyFindings(findings);
  const { labelled, unlabelled, stale } = matchLabels(keyed, readLabels());
  if (process.argv.includes("--drop-stale")) {
    const gone = new Set(stale.map((label) => label.line));
    const kept = readFileSync(LABELS_FILE, "utf8").split("\n").filter((_, index) => !gone.has(index + 1));
    writeFileSync(LABELS_FILE, kept.join("\n"));
    process.stderr.write(`${gone.size} labels without a finding removed from corpus/labels.tsv\n`);
    return;
  }
  if (process.argv.includes("--add-unlabelled")) {
    const fresh = unlabelled.filter((item) => !readLabels().has(`${item.rule}\t${item.file}\t${item.key}`));
    if (!existsSync(LABELS_FILE)) appendFileSync(LABELS_FILE, `${HEADER}\n`);
    if (fresh.length > 0) appendFileSync(LABELS_FILE, `${fresh.map((item) => labelLine(item)).join("\n")}\n`);
    process.stderr.write(`${fresh.length} unlabelled findings appended to corpus/labels.tsv with the label "?"\n`);
    return;
  }
  for (const item of unlabelled) process.stderr.write(`unlabelled: ${item.file}:${item.finding.line}:${item.finding.column} ${item.rule} ${item.key} ${item.finding.message}\n`);
  for (const label of stale) process.stderr.write(`corpus/labels.tsv:${label.line}: no finding has this label any more: ${label.rule} ${label.file} ${label.key}\n`);
  process.stdout.write(formatTable(precisionRows(labelled, ruleRegistry)));
  if (unlabelled.length > 0 || stale.length > 0) {
    process.stderr.write(`${unlabelled.length} findings without a label, ${stale.length} labels without a finding\n`);
    process.exitCode = 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
