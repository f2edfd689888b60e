import { ruleDoc } from "./docs.js";
import { ruleRegistry, type RuleId } from "./index.js";

/** docs/rules/<id>.md for every rule: the page a diagnostic's helpUri names. */
export function renderRulePages(): Map<string, string> {
  const pages = new Map<string, string>();
  for (const id of (Object.keys(ruleRegistry) as RuleId[]).sort()) {
    const { severity, description } = ruleRegistry[id];
    const doc = ruleDoc(id);
    pages.set(`${id}.md`, `# ${id}\n\nSeverity: ${severity}. ${description}\n\n${doc.text}\n\nBad:\n\n\`\`\`\n${doc.bad}\n\`\`\`\n\nGood:\n\n\`\`\`\n${doc.good}\n\`\`\`\n\nRun \`gamma-prompt explain ${id}\` for the same text.\n`);
  }
  return pages;
}
