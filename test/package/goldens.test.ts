/**
 * Golden files change only on request: UPDATE_GOLDEN=1 is the one switch
 * (test/helpers/golden.ts), and a missing golden fails instead of being
 * recorded from whatever the code produced on its first run.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { MissingGoldenError, readGolden, UPDATE_GOLDEN } from "../helpers/golden.js";

const testDir = fileURLToPath(new URL("../", import.meta.url));
const helper = join("helpers", "golden.ts");

describe("golden files", () => {
  it.skipIf(UPDATE_GOLDEN)("a missing golden fails and is not created", () => {
    const path = join(mkdtempSync(join(tmpdir(), "gamma-golden-")), "case", "expected.txt");
    expect(() => readGolden(path, "whatever the code produced\n")).toThrow(MissingGoldenError);
    expect(existsSync(path)).toBe(false);
  });

  it("no test file but the golden helper reads an update switch from the environment", () => {
    const readers = readdirSync(testDir, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts") && file !== helper)
      .filter((file) => /process\.env\[?["'.]?\w*UPDATE/.test(readFileSync(join(testDir, file), "utf8")));
    expect(readers).toEqual([]);
  });
});
