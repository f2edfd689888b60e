import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { brokenLinkDiagnostics } from "../../src/pipeline/validate/links.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

/**
 * Path mentions in prose (`skill/unresolved-path`) that follow an example
 * word on their line ("e.g.", "for example", "such as", "for instance") are
 * not checked; those before it are. The answer is the same wherever the words
 * and paths sit on the line, and a line naming thousands of paths is read in
 * one pass, not once per path.
 */

afterAll(removeTempDirs);

let root = "";
beforeAll(async () => {
  // A project without the named files: every checked mention is a finding.
  root = await tempDir("gamma-path-mentions");
});

function reported(line: string): string[] {
  const diagnostics = brokenLinkDiagnostics({ root, path: "skills/s/SKILL.md", body: `${line}\n`, bodyStartLine: 5 });
  return diagnostics.map((diagnostic) => `${diagnostic.ruleId} ${line.slice(diagnostic.column - 1, diagnostic.endColumn - 1)}`);
}

describe("example words on the line of a path", () => {
  const cases: Array<[string, string[]]> = [
    ["Read `references/a.md` and `references/b.md`.", ["references/a.md", "references/b.md"]],
    ["Read `references/a.md`, e.g. `references/b.md`.", ["references/a.md"]],
    ["For example references/a.md or references/b.md", []],
    ["Read references/a.md, then examples such as references/b.md and references/c.md", ["references/a.md"]],
    ["Read references/a.md for instance references/b.md", ["references/a.md"]],
    ["Read references/a.md Such As references/b.md", ["references/a.md"]],
    ["A counterexample: references/a.md, an exampled references/b.md", ["references/a.md", "references/b.md"]],
    ["example-based references/a.md", []],
    ["e.g.references/a.md and e.g. references/b.md", []],
    ["see [the guide](references/g.md) e.g. references/a.md", ["references/g.md"]],
    ["references/a.md examples references/b.md example references/c.md", ["references/a.md"]],
  ];
  for (const [line, paths] of cases) {
    it(line, () => {
      const expected = paths.map((path) => (line.includes(`](${path})`) ? `skill/broken-link ${path}` : `skill/unresolved-path ${path}`));
      expect(reported(line)).toEqual(expected);
    });
  }
});

describe("a line naming many paths is read once", () => {
  /** Characters the regular expressions step over while the body is checked: from where each search starts to where its match ends, or to the end of the text when nothing matches. */
  function charactersSearched(body: string): number {
    const original = RegExp.prototype.exec;
    let searched = 0;
    RegExp.prototype.exec = function (this: RegExp, input: string): RegExpExecArray | null {
      const from = this.global || this.sticky ? this.lastIndex : 0;
      const match = original.call(this, input);
      searched += (match ? match.index + match[0].length : String(input).length) - from;
      return match;
    };
    try {
      brokenLinkDiagnostics({ root, path: "skills/s/SKILL.md", body, bodyStartLine: 5 });
    } finally {
      RegExp.prototype.exec = original;
    }
    return searched;
  }

  it("the search grows with the line's length, not with its square", () => {
    const perCharacter = (count: number): number => {
      const line = Array.from({ length: count }, () => "see `references/x.md`").join(" ");
      return charactersSearched(`${line}\n`) / line.length;
    };
    // Twenty times as many paths on a line twenty times as long: the same searching per character.
    const few = perCharacter(100);
    const many = perCharacter(2_000);
    expect(many).toBeLessThan(1.2 * few);
  });
});
