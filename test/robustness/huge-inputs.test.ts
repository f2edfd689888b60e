/**
 * A file named on the command line that is larger than any string V8 can
 * hold (a transcript, a traffic profile, evaluation results) is refused
 * unread: a finding for `audit`, one line on stderr and exit 2 for `report`
 * and `cost`, never `internal error` with the decoder's stack trace. The
 * files are sparse: their size is real to fstat, and they take no disk.
 */
import { truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { init } from "../../src/init.js";
import { build } from "../../src/build.js";
import { MAX_TEXT_FILE_BYTES } from "../../src/protocol/regular-file.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

let project = "";
const SIZE = MAX_TEXT_FILE_BYTES + 1;

beforeAll(async () => {
  project = await tempDir("gamma huge inputs");
  await init({ dir: project, template: "agent" });
  expect((await build({ root: project })).ok).toBe(true);
  writeFileSync(join(project, "huge.json"), "");
  truncateSync(join(project, "huge.json"), SIZE);
  writeFileSync(join(project, "results.json"), "{}");
}, 120_000);

afterAll(removeTempDirs);

describe("a file too large to hold as text", () => {
  it("is an audit finding that names its size, at the file's first line", async () => {
    const audited = await runCliInProcessFrom(project, "audit", "huge.json", "--format", "json");
    expect(audited.code).toBe(1);
    expect(JSON.parse(audited.stdout)).toMatchObject({
      diagnostics: [{ file: "huge.json", line: 1, ruleId: "audit/transcript-format", message: `Unexpected transcript of ${SIZE} bytes, more than the ${MAX_TEXT_FILE_BYTES} a text can hold, expected a readable JSONL file` }],
    });
  });

  for (const [args, what] of [
    [["report", "--profile", "huge.json"], "traffic profile"],
    [["report", "--evals", "huge.json"], "evaluation results"],
    [["cost", "--profile", "huge.json"], "traffic profile"],
  ] as const) {
    it(`is one line on stderr and exit 2 for ${args.join(" ")}`, async () => {
      const run = await runCliInProcessFrom(project, ...args);
      expect(run).toMatchObject({ code: 2, stdout: "" });
      expect(run.stderr).toBe(`gamma-prompt ${args[0]}: cannot read the ${what} huge.json: ${SIZE} bytes, more than the ${MAX_TEXT_FILE_BYTES} a text can hold\n`);
    });
  }
});
