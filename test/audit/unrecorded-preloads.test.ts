/**
 * A session log whose first line does not record the variant's preloaded skills (an older or hand-made log)
 * is judged with the skills the audited build's variant preloads: a workflow the variant preloads is audited,
 * never passed as "no workflow".
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { repoDist, tempDir } from "../runtime/helpers/dist.js";

const manifest = loadArtifacts({ distDir: repoDist }).manifest;

function logWith(first: Record<string, unknown>): string {
  const folder = tempDir("gamma-audit-preloads-");
  const lines = [
    first,
    { type: "tool_call", id: "c1", name: "message_user", arguments: { message: "Your deck is ready.", blockOnUser: true } },
    { type: "yield", message: "Your deck is ready.", toolCallId: "c1" },
  ];
  writeFileSync(join(folder, "s.jsonl"), lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
  return folder;
}

describe("a session log without its preloaded skills", () => {
  it("is judged on the workflow the build's variant preloads: the steps left undone fail the audit", async () => {
    expect(manifest.variants["deck-generation"]?.preloadedSkills).toContain("deck-generation");
    const session = { type: "session", variant: "deck-generation", cacheKey: manifest.staticPrefix.cacheKey };
    const unrecorded = await runCliInProcessFrom(logWith(session), "audit", "s.jsonl", "--dist", repoDist, "--format", "json");
    const recorded = await runCliInProcessFrom(logWith({ ...session, preloadedSkills: manifest.variants["deck-generation"]?.preloadedSkills }), "audit", "s.jsonl", "--dist", repoDist, "--format", "json");
    expect(unrecorded.code).toBe(1);
    const rules = (run: { stdout: string }) => (JSON.parse(run.stdout) as { diagnostics: Array<{ ruleId: string; message: string }> }).diagnostics.map((finding) => `${finding.ruleId} ${finding.message}`);
    expect(rules(unrecorded).some((finding) => finding.startsWith("audit/required-step"))).toBe(true);
    // The same findings as the log that records them.
    expect(rules(unrecorded)).toEqual(rules(recorded));
    expect(unrecorded.stderr).toContain("1 workflow (deck-generation)");
  });
});
