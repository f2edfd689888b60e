import type { Command } from "commander";
import { EXIT_OK, EXIT_USAGE } from "../../diagnostics/exit-code.js";
import { commandHelpFooter } from "../options.js";

export function registerExplainCommand(program: Command, result: { exitCode: number }): void {
  program
    .command("explain")
    .description("Explain a rule: what it checks, why, a bad and a good example (without RULE: list every rule).")
    .argument("[rule]", "a rule id, e.g. skill/description-trigger")
    .addHelpText(
      "after",
      commandHelpFooter({
        about: "Each diagnostic ends with its rule id; SARIF output links the same text as helpUri.",
        exitCodes: "0 explained, 2 unknown rule.",
        examples: ["gamma-prompt explain skill/description-trigger", "gamma-prompt explain"],
      }),
    )
    .action(async (rule: string | undefined) => {
      const [{ ruleRegistry, ruleDocUrl }, { ruleDoc }, { suggest }] = await Promise.all([
        import("../../diagnostics/rules/index.js"),
        import("../../diagnostics/rules/docs.js"),
        import("../../pipeline/validate/suggest.js"),
      ]);
      const ids = Object.keys(ruleRegistry).sort() as Array<keyof typeof ruleRegistry>;
      if (rule === undefined) {
        const width = Math.max(...ids.map((id) => id.length));
        process.stdout.write(ids.map((id) => `${id.padEnd(width)}  ${ruleRegistry[id].severity.padEnd(7)}  ${ruleRegistry[id].description}\n`).join(""));
        result.exitCode = EXIT_OK;
        return;
      }
      if (!Object.prototype.hasOwnProperty.call(ruleRegistry, rule)) {
        process.stderr.write(`gamma-prompt explain: unknown rule "${rule}"${ruleSuggestion(rule, ids, suggest)}; run \`gamma-prompt explain\` for the list\n`);
        result.exitCode = EXIT_USAGE;
        return;
      }
      const id = rule as (typeof ids)[number];
      process.stdout.write(formatExplanation(id, ruleRegistry[id], ruleDoc(id), ruleDocUrl(id)));
      result.exitCode = EXIT_OK;
    });
}

export function formatExplanation(id: string, definition: { severity: string; description: string }, doc: { text: string; bad: string; good: string }, url: string): string {
  const indent = (text: string): string => text.split("\n").map((line) => `  ${line}`.trimEnd()).join("\n");
  return `${id} (${definition.severity})\n\n${definition.description}\n\n${doc.text}\n\nBad:\n${indent(doc.bad)}\n\nGood:\n${indent(doc.good)}\n\n${url}\ndocs/rules/${id}.md in the package\n`;
}

/**
 * `; did you mean "skill/type-value"?` for a rule named without its category (`type-value`), as a message's
 * tail or a rule page's file name shows it; every category's rule of that name when several have it; else
 * the nearest id.
 */
function ruleSuggestion(rule: string, ids: readonly string[], suggest: (input: string, candidates: readonly string[]) => string | undefined): string {
  const quoted = (names: readonly string[]): string => names.map((id) => `"${id}"`).join(", ");
  if (!rule.includes("/")) {
    const tail = (id: string): string => id.slice(id.indexOf("/") + 1);
    const near = suggest(rule, [...new Set(ids.map(tail))]);
    const named = near === undefined ? [] : ids.filter((id) => tail(id) === near);
    if (named.length === 1) return `; did you mean ${quoted(named)}?`;
    if (named.length > 1) return `; did you mean one of ${quoted(named)}?`;
  }
  const near = suggest(rule, ids);
  return near === undefined ? "" : `; did you mean ${quoted([near])}?`;
}
