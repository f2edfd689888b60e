import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { brokenLinkDiagnostics } from "../../src/pipeline/validate/links.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

/**
 * Where lint looked for a link's file is a path it resolved, not text the
 * author wrote: the message shows it whole up to 1,024 code points (plugin
 * marketplaces nest skills far past 80), with control characters escaped,
 * and cuts only a longer one. The link as written is quoted, and cut past 80
 * code points like any other value.
 */

afterAll(removeTempDirs);

let root = "";
beforeAll(async () => {
  root = await tempDir("gamma-link-message-paths");
});

function messages(body: string, path = "skills/s/SKILL.md"): string[] {
  return brokenLinkDiagnostics({ root, path, body: `${body}\n`, bodyStartLine: 5 }).map((diagnostic) => diagnostic.message);
}

/** A link target under references/ that resolves in skills/s/ to `length` code points, in folders of 99 letters (no name too long to look up). */
function targetOfLength(length: number): string {
  const rest = length - "skills/s/references/".length - ".md".length;
  const folders = Math.floor((rest - 1) / 100);
  return `references/${`${"é".repeat(99)}/`.repeat(folders)}${"é".repeat(rest - folders * 100)}.md`;
}

const escaped = (text: string): string => text.replace(/[.()\\]/g, "\\$&");

describe("the path a link resolves to, in its message", () => {
  it("is whole past 80 code points", () => {
    const skill = "plugins/quant-research/skills/adaptive-walk-forward-epoch/SKILL.md";
    expect(messages("See [formulas](../rangebar-eval-metrics/references/sharpe-formulas.md).", skill)).toEqual([
      'Unexpected link to "../rangebar-eval-metrics/references/sharpe-formulas.md", which does not exist, expected a file at plugins/quant-research/skills/rangebar-eval-metrics/references/sharpe-formulas.md',
    ]);
  });

  it("is whole at 1,024 code points", () => {
    const target = targetOfLength(1024);
    expect([...`skills/s/${target}`]).toHaveLength(1024);
    expect(messages(`[a](${target})`)[0]).toMatch(new RegExp(`, expected a file at skills/s/${escaped(target)}$`, "u"));
  });

  it("is cut past 1,024 code points, quoted with its length", () => {
    const resolved = [...`skills/s/${targetOfLength(1100)}`];
    expect(resolved).toHaveLength(1100);
    expect(messages(`[a](${targetOfLength(1100)})`)[0]).toMatch(new RegExp(`, expected a file at ${escaped(JSON.stringify(resolved.slice(0, 1024).join("")))}… \\(1100 code points\\)$`, "u"));
  });

  it("shows a control character as its escape", () => {
    // A link's destination cannot hold one (GFM reads no link then); a folder's name can.
    expect(messages("[a](references/a.md)", "skills/s\u001b/SKILL.md")).toEqual(['Unexpected link to "references/a.md", which does not exist, expected a file at skills/s\\u001b/references/a.md']);
  });
});
