/**
 * JSON files named on the command line (a traffic profile, evaluation results,
 * a baseline) that do not parse: one line on stderr, exit 2, naming the file
 * at line:column, never the text V8 quotes (a terminal escape or a line feed
 * from the file would reach the terminal).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { evalProject } from "../evals/helpers/project.js";

const HOSTILE = "\u001b]0;pwned\u0007\u001b[31mRED{";
const LINES = '{"a": 1,\n\n  "b": }\n';

describe("a JSON file named on the command line that does not parse", () => {
  it("is one line naming the file at line:column, its control characters escaped, exit 2, for every command that reads one", async () => {
    const root = evalProject({ scenarios: ["blocking-question"], cassettes: true });
    await writeFile(join(root, "hostile.json"), HOSTILE);
    await writeFile(join(root, "lines.json"), LINES);
    await writeFile(join(root, "cut.json"), '{"model": "openai/gpt-5", "runs"');
    const cases: Array<[string[], string]> = [
      [["cost", "--profile", "hostile.json"], "gamma-prompt cost: cannot read the traffic profile hostile.json:1:1: Unexpected token '\\u001b', expected JSON\n"],
      [["cost", "--profile", "lines.json"], "gamma-prompt cost: cannot read the traffic profile lines.json:3:8: Unexpected token '}', expected JSON\n"],
      [["eval", "--replay", "--baseline", "cut.json"], "gamma-prompt eval: cannot read the baseline cut.json:1:33: Expected ':' after property name, expected JSON\n"],
      [["report", "--evals", "lines.json"], "gamma-prompt report: cannot read the evaluation results lines.json:3:8: Unexpected token '}', expected JSON\n"],
    ];
    for (const [args, stderr] of cases) {
      const run = await runCliInProcessFrom(root, ...args);
      expect([run.code, run.stderr], args.join(" ")).toEqual([2, stderr]);
    }
  });
});
