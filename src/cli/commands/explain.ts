import type { Command } from "commander";
import { EXIT_OK, EXIT_USAGE } from "../../diagnostics/exit-code.js";
import { commandHelpFooter } from "../options.js";
import { escapeControls } from "../../diagnostics/printable.js";

export function registerExplainCommand(program: Command, result: { exitCode: number }): void {
  program
    .command("explain")
    .description("Explain a rule: what it checks, why, a bad and a good example (without RULE: list every rule).")
    .argument("[rule]", "a rule id, e.g. skill/description-trigger")
    .addHelpText(
      "after",
      commandHelpFooter({
        about: "Each diagnostic ends with its rule id. The same text is docs/rules/<rule>.md in the package and each rule's help in SARIF output; the URL printed last is the rule's row in the README's rule table, which is `url` in JSON output and helpUri in SARIF.",
        exitCodes: "0 explained, 2 unknown rule.",
        examples: ["gamma-prompt explain skill/description-trigger", "gamma-prompt explain"],
      }),
    )
    .action(async (rule: string | undefined) => {
      const [{ explainRule, formatExplanation, isRuleId, ruleIds, ruleSuggestion }, { ruleRegistry }] = await Promise.all([
        import("../../diagnostics/rules/explain.js"),
        import("../../diagnostics/rules/index.js"),
      ]);
      const ids = ruleIds();
      if (rule === undefined) {
        const width = Math.max(...ids.map((id) => id.length));
        process.stdout.write(ids.map((id) => `${id.padEnd(width)}  ${ruleRegistry[id].severity.padEnd(7)}  ${ruleRegistry[id].description}\n`).join(""));
        result.exitCode = EXIT_OK;
        return;
      }
      if (!isRuleId(rule)) {
        process.stderr.write(`gamma-prompt explain: unknown rule "${escapeControls(rule)}"${ruleSuggestion(rule)}; run \`gamma-prompt explain\` for the list\n`);
        result.exitCode = EXIT_USAGE;
        return;
      }
      process.stdout.write(formatExplanation(explainRule(rule)));
      result.exitCode = EXIT_OK;
    });
}
