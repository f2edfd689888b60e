import { ruleDoc } from "./docs.js";
import { ruleRegistry, type RuleId } from "./index.js";

/** docs/rules/<id>.md for every rule, shipped in the package: the text `explain` prints (a diagnostic's url and SARIF's helpUri name the rule's row in the README's rule table). */
export function renderRulePages(): Map<string, string> {
  const pages = new Map<string, string>();
  for (const id of (Object.keys(ruleRegistry) as RuleId[]).sort()) {
    const { severity, description } = ruleRegistry[id];
    const doc = ruleDoc(id);
    pages.set(`${id}.md`, `# ${id}\n\nSeverity: ${severity}. ${description}\n\n${doc.text}\n\nBad:\n\n\`\`\`\n${doc.bad}\n\`\`\`\n\nGood:\n\n\`\`\`\n${doc.good}\n\`\`\`\n\nRun \`gamma-prompt explain ${id}\` for the same text.\n`);
  }
  return pages;
}
