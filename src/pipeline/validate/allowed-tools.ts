import type { Range } from "../../diagnostics/diagnostic.js";
import type { YamlProblem } from "../parse/yaml-tree.js";

/**
 * `allowed-tools` is one space-separated string in the Agent Skills
 * specification ("Read Bash(git:*)"). A YAML list or a comma-separated
 * string is the usual mistake; the message carries the string to write.
 */
export function allowedToolsProblem(value: unknown, range: Range): YamlProblem | undefined {
  const fixed = fixedAllowedTools(value);
  if (fixed === undefined) return undefined;
  const what = Array.isArray(value) ? "list for" : "comma-separated";
  return { ruleId: "skill/allowed-tools-format", range, message: `Unexpected ${what} "allowed-tools", expected one space-separated string: allowed-tools: ${quoteIfNeeded(fixed)}` };
}

/** The space-separated string a list of tool strings or a comma-separated string stands for; undefined for anything else. */
export function fixedAllowedTools(value: unknown): string | undefined {
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
    return (value as string[]).map((item) => item.trim()).filter((item) => item !== "").join(" ");
  }
  if (typeof value === "string") return splitCommaSeparated(value)?.join(" ");
  return undefined;
}

/**
 * The tools of a string that separates them with commas outside
 * parentheses (`Read, Bash(git add:*, git commit:*)`), or undefined when no
 * such comma is there. Commas inside a tool's parentheses belong to it.
 */
export function splitCommaSeparated(value: string): string[] | undefined {
  return firstSeparatingComma(value) === undefined ? undefined : splitAtCommas(value);
}

/** The code point index of the first comma outside parentheses, or undefined when there is none. */
export function firstSeparatingComma(value: string): number | undefined {
  let depth = 0;
  let position = 0;
  for (const character of value) {
    if (character === "(") depth++;
    else if (character === ")") depth = Math.max(0, depth - 1);
    else if (character === "," && depth === 0) return position;
    position++;
  }
  return undefined;
}

function splitAtCommas(value: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const character of value) {
    if (character === "(") depth++;
    else if (character === ")") depth = Math.max(0, depth - 1);
    if (character === "," && depth === 0) {
      parts.push(current);
      current = "";
      continue;
    }
    current += character;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== "");
}

/** The fixed value as YAML: plain when that reads back the same, else double-quoted. */
export function quoteIfNeeded(text: string): string {
  return /^[A-Za-z][\w .()*:/@~-]*$/.test(text) && !/: |\s#|:$/.test(text) ? text : JSON.stringify(text);
}
