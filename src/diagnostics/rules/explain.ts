import { expectObject, shownValue } from "../../protocol/arguments.js";
import { didYouMean, suggest } from "../../protocol/suggest.js";
import { ruleDoc } from "./docs.js";
import { ruleDocUrl, ruleRegistry, type RuleId } from "./index.js";
import type { Severity } from "./rule.js";

/**
 * A rule explained, as data: what `gamma-prompt explain RULE` prints and the
 * MCP server's `explain_rule` tool returns. The page docs/rules/<id>.md in
 * the package holds the same text.
 */
export interface RuleExplanation {
  id: RuleId;
  severity: Severity;
  /** One line: what the rule checks. */
  description: string;
  /** Why, in a paragraph. */
  text: string;
  bad: string;
  good: string;
  url: string;
  /** The page in the installed package. */
  docPath: string;
}

export function isRuleId(id: string): id is RuleId {
  return Object.prototype.hasOwnProperty.call(ruleRegistry, id);
}

/** Every rule id, sorted. */
export function ruleIds(): RuleId[] {
  return (Object.keys(ruleRegistry) as RuleId[]).sort();
}

/** Any string is taken (a rule id read from a finding, a flag or a file), the known ids offered as completions; an unknown one is a RangeError. */
export function explainRule(ruleId: RuleId | (string & {})): RuleExplanation {
  const given: unknown = ruleId;
  if (typeof given !== "string" || !isRuleId(given)) {
    const hint = typeof given === "string" && given.length <= 100 ? didYouMean(given, ruleIds()) : "";
    const message = `Unexpected rule ${shownValue(given)}, expected a rule id such as skill/description-trigger (every finding names its rule)${hint}`;
    throw typeof given === "string" ? new RangeError(message) : new TypeError(message);
  }
  const id: RuleId = given;
  const doc = ruleDoc(id);
  return { id, severity: ruleRegistry[id].severity, description: ruleRegistry[id].description, text: doc.text, bad: doc.bad, good: doc.good, url: ruleDocUrl(id), docPath: `docs/rules/${id}.md` };
}

export function formatExplanation(explanation: RuleExplanation): string {
  expectObject(explanation, "explanation", "what explainRule returns, such as explainRule(\"skill/description-trigger\")");
  const indent = (text: string): string => text.split("\n").map((line) => `  ${line}`.trimEnd()).join("\n");
  const { id, severity, description, text, bad, good, url, docPath } = explanation;
  return `${id} (${severity})\n\n${description}\n\n${text}\n\nBad:\n${indent(bad)}\n\nGood:\n${indent(good)}\n\n${url}\n${docPath} in the package\n`;
}

/**
 * `; did you mean "skill/type-value"?` for a rule named without its category (`type-value`), as a message's
 * tail or a rule page's file name shows it; every category's rule of that name when several have it; else
 * the nearest id; "" when nothing is near.
 */
export function ruleSuggestion(rule: string): string {
  const ids = ruleIds();
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
