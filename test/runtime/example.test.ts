import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { docPage, expectExcerptOf } from "../helpers/docs.js";
import { prepareDist } from "./helpers/dist.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

describe("examples/deck-request.mjs", () => {
  it.skipIf(!existsSync(`${root}lib/runtime/index.js`))("drives a deck request on the faux model that keeps its own contract (the audit passes), then a run whose skipped step the audit catches", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, GAMMA_DIST: prepareDist() };
    delete env["OPENAI_API_KEY"];
    const run = spawnSync(process.execPath, ["examples/deck-request.mjs"], { cwd: root, env, encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const [first = "", second = ""] = run.stdout.split(/^run 2: /m);
    // Run 1 follows the workflow: skill first, the hinted notes read, one task per step, every step accounted for.
    expect(first).toContain('call     skill({"name":"deck-generation"})');
    expect(first).toMatch(/^ {2}progress +\{"message":"On it: planning a five-card deck on tide pools\."\}$/m);
    expect(first).toContain('call     read_workspace_rule({"knowledgeId":"brand-images"})');
    expect(first).toContain('call     read_workspace_rule({"knowledgeId":"deck-typography"})');
    expect(first).toContain("result   todo: revision 7: 14 complete, 0 in progress, 0 pending");
    expect(first).toMatch(/^ {2}audit +\{"report":\{"outcome":"pass"/m);
    expect(first).toContain("\ncompletion audit: PASSED\n  deck-generation: all 14 steps accounted for, 12 complete and 2 optional skipped with a reason\n");
    expect(first).toContain("run ended by   yield (message_user blockOnUser: true)");
    // Run 2 never plans step 8: the audit names it.
    expect(second).toContain('\ncompletion audit: FAILED, 1 problem\n  ✗ audit/verification-step: Unexpected verification step 8 "Render and inspect" of deck-generation not done (no task names it)');
    // The runtime guide shows these runs, with `...` lines for what it leaves out.
    expectExcerptOf(docPage("docs/guide/runtime.md").blockStartingWith("run 1: the agent follows the deck workflow\n"), run.stdout);
  });
});
