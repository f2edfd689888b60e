/**
 * Hover on a rule id reads only the run of id characters around the cursor:
 * a pattern over the whole line took time in the square of a long run of
 * letters (13 s at 200,000), and every request waited behind the hover.
 */
import { describe, expect, it } from "vitest";
import { ruleHover } from "../../src/lsp/hover.js";

const shown = (line: string, character: number): string | undefined => {
  const hover = ruleHover(line, character);
  return hover === undefined ? undefined : (hover.contents as { value: string }).value.split("\n")[0];
};

describe("hover on a rule id", () => {
  it("documents the rule under the cursor wherever the id is written", () => {
    const comment = "# gamma-prompt-disable-next-line skill/broken-link";
    expect(shown(comment, comment.indexOf("broken"))).toBe("**skill/broken-link** (error)");
    expect(shown(comment, comment.length)).toBe("**skill/broken-link** (error)");
    const config = '    "skill/description-trigger": "off",';
    expect(shown(config, 8)).toBe("**skill/description-trigger** (warning)");
    // Inside a path: the two parts the cursor is in.
    const path = "see docs/rules/skill/broken-link.md for more";
    expect(shown(path, path.indexOf("broken"))).toBe("**skill/broken-link** (error)");
    expect(shown(path, path.indexOf("docs"))).toBeUndefined();
    expect(shown("skill/no-such-rule", 3)).toBeUndefined();
    expect(shown("plain words", 3)).toBeUndefined();
  });

  it("answers at once on a line of a million letters, and next to one", () => {
    const letters = "a".repeat(1_000_000);
    expect(shown(letters, 500_000)).toBeUndefined();
    const beside = `${letters} skill/broken-link`;
    expect(shown(beside, beside.length - 3)).toBe("**skill/broken-link** (error)");
    expect(shown(`${letters}/skill`, 10)).toBeUndefined();
  });
});
