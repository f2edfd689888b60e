import type { Range } from "../../diagnostics/diagnostic.js";
import type { YamlProblem } from "../parse/yaml-tree.js";

/**
 * `allowed-tools` is one space-separated string in the Agent Skills
 * specification ("Read Bash(git:*)"). A YAML list or a comma-separated
 * string is the usual way to write it otherwise; hosts such as Claude Code
 * accept both, so it is a warning about portability, not an error. The
 * message carries the string to write, unless a tool's pattern holds a
 * space (`Bash(npx expo *)`): one space-separated string cannot keep that
 * tool whole, so nothing is suggested and `--fix` leaves it.
 */
export function allowedToolsProblem(value: unknown, range: Range): YamlProblem | undefined {
  const tools = toolsOf(value);
  if (tools === undefined) return undefined;
  const what = Array.isArray(value) ? "list for" : "comma-separated";
  const spaced = tools.find((tool) => /\s/.test(tool));
  const expected =
    spaced === undefined
      ? `one space-separated string: allowed-tools: ${quoteIfNeeded(tools.join(" "))}`
      : `one space-separated string, which cannot keep ${JSON.stringify(spaced)} whole (its pattern holds a space): check how the skill's host reads it`;
  return { ruleId: "skill/allowed-tools-format", range, message: `Unexpected ${what} "allowed-tools", expected ${expected}` };
}

/**
 * skill/yaml-portable's advice for a flow-style list written as
 * `allowed-tools`: the space-separated string skill/allowed-tools-format asks
 * for (that string is portable YAML too), so following either finding settles
 * both. Undefined when a tool's pattern holds a space: no string keeps it
 * whole, and a block list at least reads everywhere.
 */
export function portableAllowedTools(value: unknown): string | undefined {
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) return `one space-separated string such as "Read Bash(git:*)"`;
  const fixed = fixedAllowedTools(value);
  return fixed === undefined || fixed === "" ? undefined : `one space-separated string: allowed-tools: ${quoteIfNeeded(fixed)}`;
}

/** The space-separated string a list of tool strings or a comma-separated string stands for; undefined for anything else, or when a tool holds a space. */
export function fixedAllowedTools(value: unknown): string | undefined {
  const tools = toolsOf(value);
  return tools === undefined || tools.some((tool) => /\s/.test(tool)) ? undefined : tools.join(" ");
}

/** The tools of a list of tool strings or of a comma-separated string; undefined for anything else. */
function toolsOf(value: unknown): string[] | undefined {
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
    return (value as string[]).map((item) => item.trim()).filter((item) => item !== "");
  }
  if (typeof value === "string") return splitCommaSeparated(value);
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
