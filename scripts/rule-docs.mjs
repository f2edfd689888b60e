// Writes docs/rules/<rule id>.md, one page per rule, from the rule registry
// and its docs (src/diagnostics/rules/docs.ts). Run after `npm run build:ts`;
// test/lint/rule-docs.test.ts fails when the pages and the table disagree.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { renderRulePages } from "../lib/diagnostics/rules/pages.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "docs", "rules");
rmSync(out, { recursive: true, force: true });
for (const [path, text] of renderRulePages()) {
  mkdirSync(dirname(join(out, path)), { recursive: true });
  writeFileSync(join(out, path), text);
}
process.stdout.write(`wrote ${readdirSync(out, { recursive: true }).filter((name) => String(name).endsWith(".md")).length} rule pages to docs/rules/\n`);
