// Lints every collection in a folder of skill collections (each a project
// root with skills/) under the agentskills profile and prints the Markdown
// table the README shows: skills checked, errors, warnings, notes and the findings
// by rule. Run `npm run build:ts` first.
//
//   node scripts/corpus-table.mjs path/to/collections
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { lint } from "../lib/index.js";

const folder = process.argv[2];
if (!folder) {
  process.stderr.write("usage: node scripts/corpus-table.mjs FOLDER   (a folder of collections, each with skills/)\n");
  process.exit(2);
}
const root = resolve(folder);
const collections = readdirSync(root)
  .filter((name) => !name.startsWith(".") && statSync(join(root, name)).isDirectory())
  .sort();
const rows = [];
const totals = { skills: 0, errors: 0, warnings: 0, notes: 0 };
for (const name of collections) {
  const result = await lint({ root: join(root, name), profile: "agentskills" });
  const byRule = new Map();
  for (const diagnostic of result.diagnostics) byRule.set(diagnostic.ruleId, (byRule.get(diagnostic.ruleId) ?? 0) + 1);
  const findings = [...byRule].sort(([a], [b]) => (a < b ? -1 : 1)).map(([rule, count]) => `${count} \`${rule}\``).join(", ");
  rows.push(`| ${name} | ${result.skillFileCount} | ${result.errorCount} | ${result.warningCount} | ${result.noteCount} | ${findings || "none"} |`);
  totals.skills += result.skillFileCount;
  totals.errors += result.errorCount;
  totals.warnings += result.warningCount;
  totals.notes += result.noteCount;
}
process.stdout.write(
  [
    "| collection | skills | errors | warnings | notes | findings |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
    ...rows,
    `| **all** | ${totals.skills} | ${totals.errors} | ${totals.warnings} | ${totals.notes} | |`,
  ].join("\n") + "\n",
);
