import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseOrderedLists } from "../../src/pipeline/parse/body-remark.js";
import { scanOrderedLists } from "../../src/pipeline/parse/body-scan.js";
import { mayContainOrderedList, verifies } from "../../src/pipeline/parse/body-shape.js";

/**
 * The line scanner is a shortcut: for every body it either answers exactly
 * as the full remark parse does, or declines. These bodies cover the usual
 * shapes (which it must handle) and the awkward ones (where it may decline).
 */
const FRONTMATTER = "---\nname: x\ntype: workflow\ndescription: TRIGGER when x.\n---\n\n";
const BODY_START = FRONTMATTER.split("\n").length;

const USUAL: Record<string, string> = {
  simple: "# Steps\n\n1. Draft.\n2. Verify the deck.\n",
  "paren delimiter": "1) Draft.\n2) Check it.\n",
  "continuation lines": "1. Draft the deck\n   with care.\n2. Render.\n   Inspect each card.\n",
  "lazy continuation": "1. Draft the deck\nwith a lazy line that mentions review.\n2. Publish.\n",
  "loose list": "1. Draft.\n\n2. Render.\n\n   More about rendering.\n\n3. Confirm.\n",
  "fence in item": "1. Run:\n   ```sh\n   gml check deck.gml\n   ```\n2. Publish.\n",
  "fence at top level": "```md\n1. Not a list.\n```\n\n1. A list. Verify.\n",
  "tilde fence": "~~~\n1. no\n~~~\n1. yes\n",
  "nested bullets": "1. Draft:\n   - outline\n   - cards\n2. Verify:\n   - every card\n",
  "bullets then ordered": "- a\n- b\n\n1. Validate.\n2. Ship.\n",
  "ordered interrupts paragraph at 1": "Do this:\n1. First.\n2. Second.\n",
  "ordered does not interrupt paragraph at 2": "Do this:\n2. First.\n3. Second.\n",
  "two lists split by heading": "1. A.\n2. B.\n\n## Next\n\n1. C, then review.\n",
  "thematic break ends list": "1. A.\n2. B.\n\n---\n\n3. C.\n",
  "thematic after item": "1. A.\n***\n2. B.\n",
  "big numbers": "9. Nine.\n10. Ten, tested.\n11. Eleven.\n",
  "indented markers": " 1. One.\n  2. Two.\n   3. Three.\n",
  "indented code at top": "Intro.\n\n    1. code, not a list\n\nText.\n",
  "word boundaries": "1. Write testimonials.\n2. Fetch the latest data.\n3. Recheck nothing.\n",
  "emphasis and code": "1. **Verify** the `deck`.\n2. _Inspect_ the cards.\n",
  "links": "1. Open [the guide](https://example.com/check).\n2. See [verify](#anchor).\n",
  "code spans with brackets": "1. Write `<card id=\"a\">`.\n2. Check `a > b`.\n",
  "table": "| a | b |\n|---|---|\n| 1. x | y |\n\n1. Real list.\n",
  "deeply indented continuation": "1. Step\n\n       indented code in the item, check\n2. Next.\n",
  "bullet with star and plus": "* a\n+ b\n\n1. c\n",
  "heading inside item": "1. A\n   # heading check\n2. B\n",
  "item after blank and text": "1. A.\n\nParagraph.\n\n2. B.\n",
  "unicode": "1. Überprüfen: verify the Zoë deck ✓\n2. Publish 🎉\n",
};

const AWKWARD: Record<string, string> = {
  "html block": "<div>\n\n1. inside html?\n</div>\n\n1. after\n",
  "block quote": "> 1. quoted list\n> 2. verify\n",
  "nested ordered": "1. A\n   1. A.1 verify\n   2. A.2\n2. B\n",
  "ordered in bullet": "- a\n  1. verify\n  2. b\n",
  "tabs": "1.\tA\n2.\tVerify\n",
  "setext heading": "Title\n---\n\n1. A.\n",
  "setext in item": "1. A\n   ---\n2. B\n",
  "empty item": "1.\n2. Verify\n",
  "delimiter change": "1. a\n2) b\n",
  entities: "1. &#118;erify it\n2. next\n",
  "reference link": "1. [check][ref]\n\n[ref]: https://example.com\n",
  "fence in nested bullet": "1. A\n   - b\n\n         ```\n         1. x\n         ```\n2. C\n",
  "unclosed fence": "1. A\n   ```\n   code\n2. B\n",
  "bullet empty": "-\n1. a\n",
  "hard break": "1. foo  \n   check\n2. bar\\\n   baz\n",
};

const defaultSkillsDir = fileURLToPath(new URL("../../skills", import.meta.url));

function realBodies(): Record<string, string> {
  const bodies: Record<string, string> = {};
  for (const name of readdirSync(defaultSkillsDir).sort()) {
    const text = readFileSync(join(defaultSkillsDir, name, "SKILL.md"), "utf8");
    const end = text.indexOf("\n---\n", 4);
    if (end !== -1) bodies[`skills/${name}`] = text.slice(end + 5).replace(/^\n+/, "");
  }
  return bodies;
}

async function bothWays(body: string) {
  const scanned = scanOrderedLists(body.split("\n"), BODY_START);
  const parsed = await parseOrderedLists(FRONTMATTER + body, BODY_START);
  return { scanned, parsed };
}

describe("line scanner agrees with the full parse", () => {
  for (const [name, body] of Object.entries({ ...USUAL, ...realBodies() })) {
    it(`handles ${name}`, async () => {
      const { scanned, parsed } = await bothWays(body);
      expect(scanned).toEqual(parsed);
    });
  }
  for (const [name, body] of Object.entries(AWKWARD)) {
    it(`declines or agrees on ${name}`, async () => {
      const { scanned, parsed } = await bothWays(body);
      if (scanned !== undefined) expect(scanned).toEqual(parsed);
    });
  }
  it("declines the constructs it does not model", async () => {
    const declined = Object.entries(AWKWARD).filter(([, body]) => scanOrderedLists(body.split("\n"), BODY_START) === undefined);
    expect(declined.map(([name]) => name)).toEqual(expect.arrayContaining(["html block", "block quote", "nested ordered", "tabs", "entities"]));
  });
});

describe("prefilter", () => {
  it("never rules out a body in which the full parse finds an ordered list", async () => {
    for (const body of Object.values({ ...USUAL, ...AWKWARD, ...realBodies() })) {
      const parsed = await parseOrderedLists(FRONTMATTER + body, BODY_START);
      if (parsed.length > 0) expect(mayContainOrderedList(body)).toBe(true);
    }
  });
  it("rules out bodies without a numbered line", () => {
    expect(mayContainOrderedList("# Title\n\n- a\n- b\n\nVersion 2.0 is out.\n")).toBe(false);
    expect(mayContainOrderedList("> 1. quoted\n")).toBe(true);
    expect(mayContainOrderedList("- 1. nested\n")).toBe(true);
  });
});

describe("verification words", () => {
  it("matches whole words in their common forms", () => {
    for (const text of ["Verify the deck", "re-check", "Inspection of cards", "confirmed", "REVIEW", "validate", "ensure it", "run the tests", "assert"]) {
      expect(verifies(text), text).toBe(true);
    }
  });
  it("does not match inside other words", () => {
    for (const text of ["testimonials", "latest", "unverifiable", "precheck", "checkout", "reviewer"]) {
      expect(verifies(text), text).toBe(false);
    }
  });
});

describe("line scanner on generated bodies", () => {
  /** Line shapes that meet at every boundary the scanner reasons about. */
  const POOL = [
    "", "", "1. Verify it.", "2. Draft.", "3) Check.", "10. Ten.", "   continued", "    four-space", "       seven-space", "lazy text",
    "- bullet", "   - nested bullet", "* star", "---", "***", "# Heading", "```", "   ```", "~~~", "Paragraph with review.",
    "   1. nested", "1.", "> quote", "<div>", "=====", "  2. two-space", "- [x] done", "\tTabbed", "   text after item",
    "10) ten", "+ plus", "   * star nested", "    - four bullet", "        eight", "  - two bullet", "     five", "1. ```", "   ~~~",
    "- ---", "1. # h", "3. Three.", " 2. one-space", "- a", "   check", "      six", "  ```", "- 1. x", "1. - x",
  ];
  let seed = 20_260_101;
  const random = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  it("declines or agrees on 1,000 bodies", async () => {
    let handled = 0;
    for (let round = 0; round < 1000; round++) {
      const length = 2 + Math.floor(random() * 10);
      const body = `${Array.from({ length }, () => POOL[Math.floor(random() * POOL.length)]).join("\n")}\n`;
      const { scanned, parsed } = await bothWays(body);
      if (scanned === undefined) continue;
      handled++;
      expect(scanned, JSON.stringify(body)).toEqual(parsed);
    }
    // The shortcut must still take most of these, or it saves nothing.
    expect(handled).toBeGreaterThan(200);
  });
});
