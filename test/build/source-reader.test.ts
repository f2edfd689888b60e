import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { lint } from "../../src/lint.js";
import { MAX_SOURCE_BYTES } from "../../src/pipeline/discover/read-source.js";
import { copyProject, removeTempDirs } from "./helpers.js";

afterAll(removeTempDirs);

/** `héllo ` is 7 bytes but 6 UTF-16 units: the bad byte sits at column 7 in an editor. */
const BYTES = Buffer.concat([Buffer.from("héllo ", "utf8"), Buffer.from([0xff])]);

describe("the one source reader", () => {
  it("places a byte that is not UTF-8 at the same UTF-16 column in a skill and in a prompt source", async () => {
    const root = await copyProject("basic");
    await mkdir(join(root, "skills/latin"), { recursive: true });
    await writeFile(join(root, "skills/latin/SKILL.md"), BYTES);
    await writeFile(join(root, "prompts/partials/latin.hbs"), BYTES);
    const result = await build({ root, persistentCache: false });
    const positions = result.diagnostics.filter((d) => d.ruleId === "source/invalid-utf8").map((d) => [d.file, d.line, d.column, d.endLine, d.endColumn]);
    expect(positions).toEqual([
      ["prompts/partials/latin.hbs", 1, 7, 1, 8],
      ["skills/latin/SKILL.md", 1, 7, 1, 8],
    ]);
    // lint checks the agent project whole: the same findings at the same positions.
    expect((await lint({ root })).diagnostics.filter((d) => d.ruleId === "source/invalid-utf8").map((d) => [d.file, d.line, d.column, d.endLine, d.endColumn])).toEqual(positions);
  });

  it("refuses a prompt source larger than 1 MiB unread", async () => {
    const root = await copyProject("basic");
    await writeFile(join(root, "prompts/partials/huge.hbs"), "x".repeat(MAX_SOURCE_BYTES + 1));
    const result = await build({ root, persistentCache: false });
    expect(result.diagnostics.filter((d) => d.file === "prompts/partials/huge.hbs").map((d) => d.ruleId)).toEqual(["source/file-too-large"]);
  });

  it("refuses a knowledge note larger than 1 MiB unread, under the note rule", async () => {
    const root = await copyProject("basic");
    await mkdir(join(root, "knowledge"), { recursive: true });
    await writeFile(join(root, "knowledge/huge.md"), `---\nid: huge\nname: Huge\nscope: Use when anything.\nsource: user\n---\n\n${"x".repeat(MAX_SOURCE_BYTES)}\n`);
    const result = await build({ root, persistentCache: false });
    expect(result.diagnostics.filter((d) => d.file === "knowledge/huge.md").map((d) => [d.ruleId, d.line, d.column])).toEqual([["knowledge/file-too-large", 1, 1]]);
    expect((await lint({ root })).diagnostics.filter((d) => d.file === "knowledge/huge.md").map((d) => d.ruleId)).toEqual(["knowledge/file-too-large"]);
  });

  it("reports a prompt source that cannot be read as unreadable, not as missing", async () => {
    const root = await copyProject("basic");
    await rm(join(root, "prompts/variants.yaml"));
    await mkdir(join(root, "prompts/variants.yaml"));
    const result = await build({ root, persistentCache: false });
    expect(result.diagnostics.filter((d) => d.file === "prompts/variants.yaml").map((d) => [d.ruleId, d.message])).toEqual([
      ["source/unreadable-file", "Unexpected read failure (EISDIR), expected a readable file"],
    ]);
  });
});
