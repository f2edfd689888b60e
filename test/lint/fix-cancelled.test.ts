/**
 * `lint` with `fix: "write"` and an AbortSignal: once the signal is aborted,
 * nothing is written (a host that cancelled the call was told it failed).
 */
import { cp, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { lint } from "../../src/lint.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

const project = fileURLToPath(new URL("../fixtures/fix/insert-type/project", import.meta.url));

afterAll(removeTempDirs);

describe("lint --fix with a cancelled signal", () => {
  it("writes nothing and rejects with the signal's reason", async () => {
    const root = await tempDir("fix cancelled");
    await cp(project, root, { recursive: true });
    const before = await readFile(join(root, "skills", "release", "SKILL.md"), "utf8");
    const cancelled = new AbortController();
    cancelled.abort(new Error("the host cancelled the call"));
    await expect(lint({ root, fix: "write", signal: cancelled.signal })).rejects.toThrow("the host cancelled the call");
    expect(await readFile(join(root, "skills", "release", "SKILL.md"), "utf8")).toBe(before);
    // The same run without the signal writes the fix.
    expect((await lint({ root, fix: "write" })).fixes?.length).toBeGreaterThan(0);
    expect(await readFile(join(root, "skills", "release", "SKILL.md"), "utf8")).not.toBe(before);
  });
});
