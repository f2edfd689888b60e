// The runtime API reference's example store that waits runs as written
// (against the compiled runtime) and prints what the page shows.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { docPage } from "../helpers/docs.js";
import { tempDir } from "./helpers/dist.js";
import { repoRoot } from "../build/helpers.js";

const page = docPage("docs/reference/runtime-api.md");

describe("the example store in the runtime API reference", () => {
  it("opens a session on a store that waits, changes it, reopens it from the store and prints the page's output", () => {
    const sample = page.blockStartingWith('import { loadArtifacts, replayState, SessionProtocolController, StateConflictError } from "gamma-prompt/runtime";', "js");
    const output = page.blockStartingWith("$ node kv-store.mjs\n");
    const file = join(tempDir("gamma-kv-store-"), "kv-store.mjs");
    writeFileSync(file, sample.replace('"gamma-prompt/runtime"', JSON.stringify(pathToFileURL(join(repoRoot, "lib/runtime/index.js")).href)));
    const printed = execFileSync(process.execPath, [file], { encoding: "utf8" });
    expect(`$ node kv-store.mjs\n${printed}`).toBe(output);
  });
});
