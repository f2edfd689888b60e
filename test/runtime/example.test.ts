import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { docPage, expectExcerptOf } from "../helpers/docs.js";
import { prepareDist } from "./helpers/dist.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

describe("examples/deck-request.mjs", () => {
  it.skipIf(!existsSync(`${root}lib/runtime/index.js`))("drives a deck request on the faux model: skill load, tasks, progress, yield", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, GAMMA_DIST: prepareDist() };
    delete env["OPENAI_API_KEY"];
    const run = spawnSync(process.execPath, ["examples/deck-request.mjs"], { cwd: root, env, encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('call     skill({"name":"deck-generation"})');
    expect(run.stdout).toMatch(/^ {2}progress +\{"message":"On it: planning a five-card deck on tide pools\."\}$/m);
    expect(run.stdout).toContain("result   todo: revision 4: t1 complete, t2 complete, t3 complete, t4 complete");
    expect(run.stdout).toMatch(/^ {2}yield +\{"message":"Your tide pools deck is ready/m);
    expect(run.stdout).toContain("run ended by   yield (message_user blockOnUser: true)");
    // The runtime guide shows this run, with `...` lines for what it leaves out.
    expectExcerptOf(docPage("docs/guide/runtime.md").blockStartingWith("model      faux/faux-1"), run.stdout);
  });
});
