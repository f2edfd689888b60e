/**
 * `gamma-prompt audit` audits a session against the build it ran on, and a
 * pass says what it checked: a project made by `init`, a session on its
 * draft-outline workflow that fails the runtime's own completion audit,
 * audited from the project as a user would, without --dist.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { init } from "../../src/init.js";
import { FileSessionLog } from "../../src/runtime/audit/recorder.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { createGammaAgent, createGammaSession } from "../../src/runtime/pi-adapter.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { repoDist, tempDir } from "../runtime/helpers/dist.js";
import { fauxToolCall, recordingExecutors, toolUse } from "../runtime/helpers/pi.js";
import { fauxPerTest, fauxSessionSetup } from "../runtime/helpers/session.js";

const pi = fauxPerTest();
const repoKey = (loadArtifacts({ distDir: repoDist }).manifest.staticPrefix.cacheKey).slice(0, 12);

/** A project made by init and built, and a session log of a draft-outline run that yields without doing a step. */
async function failedSession(): Promise<{ project: string; key: string }> {
  const project = join(tempDir("gamma-audit-project-"), "my-agent");
  expect((await init({ dir: project })).ok).toBe(true);
  expect((await build({ root: project, persistentCache: false })).ok).toBe(true);
  const artifacts = loadArtifacts({ distDir: join(project, "dist") });
  const faux = pi.faux();
  const gamma = pi.disposeAfterTest(
    createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: recordingExecutors([], ["read", "write", "edit", "bash"]), sessionLog: new FileSessionLog(join(project, "s1.jsonl")) }),
  );
  faux.setResponses([toolUse(fauxToolCall("skill", { name: "draft-outline" })), toolUse(fauxToolCall("message_user", { message: "Here is your outline.", blockOnUser: true }))]);
  await gamma.agent.prompt(gamma.controller.buildTurnMessages({ text: "Outline a talk about tide pools" }));
  return { project, key: artifacts.manifest.staticPrefix.cacheKey.slice(0, 12) };
}

describe("gamma-prompt audit and the build a session ran on", () => {
  it("audits a session of a project made by init against that project's dist/ without --dist, from the project and from a folder inside it", async () => {
    const { project, key } = await failedSession();
    const here = await runCliInProcessFrom(project, "audit", "s1.jsonl", "--format", "json");
    expect(here.code).toBe(1);
    const findings = (JSON.parse(here.stdout) as { diagnostics: Array<{ ruleId: string }> }).diagnostics.map((finding) => finding.ruleId);
    // Steps 1 to 4 and 6 required, 5 a verification step: none done.
    expect(findings.sort()).toEqual(["audit/required-step", "audit/required-step", "audit/required-step", "audit/required-step", "audit/required-step", "audit/verification-step"]);
    expect(here.stderr).toBe(`audited 1 transcript: 1 yield, 1 workflow (draft-outline), on dist/ (cache key ${key})\n`);
    const inside = await runCliInProcessFrom(join(project, "skills"), "audit", "../s1.jsonl");
    expect(inside.code).toBe(1);
    expect(inside.stderr).toBe("gamma-prompt audit: using the project in ../ (its gamma-prompt.config.json)\n");
    expect(inside.stdout).toContain("6 problems (6 errors, 0 warnings)");
    expect(inside.stdout.endsWith(`audited 1 transcript: 1 yield, 1 workflow (draft-outline), on ../dist/ (cache key ${key})\n`)).toBe(true);
  });

  it("refuses to audit a session log against a dist/ it did not run on, naming both builds", async () => {
    const { project, key } = await failedSession();
    const other = await runCliInProcessFrom(project, "audit", "s1.jsonl", "--dist", repoDist, "--format", "json");
    expect(other.code).toBe(1);
    const document = JSON.parse(other.stdout) as { diagnostics: Array<{ line: number; ruleId: string; message: string }> };
    expect(document.diagnostics).toHaveLength(1);
    expect(document.diagnostics[0]).toMatchObject({
      line: 1,
      ruleId: "audit/dist-mismatch",
      message: `Unexpected session log of the build with cache key ${key}, audited against ${repoDist.replace(/\/$/, "")}/ (cache key ${repoKey}), expected the dist/ the session ran on: pass --dist with that build`,
    });
  });

  it("refuses a Gamma AgentSession's Pi session file the same way: its gamma.session entry names the build", async () => {
    const { project } = await failedSession();
    const faux = pi.faux();
    const setup = await fauxSessionSetup(faux);
    const sessionDir = join(setup.cwd, "sessions");
    mkdirSync(sessionDir);
    const { session } = pi.disposeAfterTest(
      await createGammaSession({ ...setup, sessionManager: SessionManager.create(setup.cwd, sessionDir), artifacts: loadArtifacts({ distDir: repoDist }), variant: "base", executors: recordingExecutors() }),
    );
    faux.setResponses([toolUse(fauxToolCall("message_user", { message: "Hello.", blockOnUser: true }))]);
    await session.prompt("Hi");
    const [name] = readdirSync(sessionDir);
    const run = await runCliInProcessFrom(project, "audit", join(sessionDir, name ?? ""), "--format", "json");
    expect(run.code).toBe(1);
    const [finding, ...rest] = (JSON.parse(run.stdout) as { diagnostics: Array<{ ruleId: string; message: string }> }).diagnostics;
    expect(rest).toEqual([]);
    expect(finding?.ruleId).toBe("audit/dist-mismatch");
    expect(finding?.message).toContain(`Unexpected Pi session file of the build with cache key ${repoKey}, audited against dist/`);

    // A gamma.session entry whose variant is no string is a damaged entry, told as such, not a file that records none.
    const file = join(sessionDir, name ?? "");
    const damaged = readFileSync(file, "utf8")
      .split("\n")
      .map((text) => (text.includes('"gamma.session"') ? JSON.stringify({ ...JSON.parse(text), data: { ...JSON.parse(text).data, variant: 7 } }) : text))
      .join("\n");
    writeFileSync(file, damaged);
    const told = await runCliInProcessFrom(project, "audit", file, "--format", "json");
    expect(told.stdout).toContain("entry whose variant is no string, expected the variant and cache key the session wrote");
  });

  it("reports a skill or a variant the session used that the dist/ does not know, when the log names no build", async () => {
    const dir = tempDir("gamma-audit-unknown-");
    // A log as an older runtime wrote it: no cache key on its first line.
    writeFileSync(
      join(dir, "old.jsonl"),
      [
        { type: "session", variant: "outline", preloadedSkills: [] },
        { type: "skills_loaded", names: ["draft-outline", "style-guide"] },
        { type: "yield", message: "Here is your outline.", toolCallId: "c2" },
      ].map((entry) => `${JSON.stringify(entry)}\n`).join(""),
    );
    const run = await runCliInProcessFrom(dir, "audit", "old.jsonl", "--dist", repoDist, "--format", "json");
    expect(run.code).toBe(1);
    expect((JSON.parse(run.stdout) as { diagnostics: Array<{ line: number; ruleId: string; message: string }> }).diagnostics.map((finding) => [finding.line, finding.ruleId, finding.message.split(",")[0]])).toEqual([
      [1, "audit/dist-mismatch", 'Unexpected variant "outline" that the dist/ does not define'],
      [2, "audit/unknown-skill", 'Unexpected skill "draft-outline" that the dist/ does not define'],
      [2, "audit/unknown-skill", 'Unexpected skill "style-guide" that the dist/ does not define'],
    ]);
  });

  it("says what a pass checked, so a pass and a check of nothing never look the same", async () => {
    const dir = tempDir("gamma-audit-pass-");
    mkdirSync(join(dir, "logs"));
    writeFileSync(join(dir, "logs", "empty.jsonl"), `${JSON.stringify({ type: "session", variant: "base", preloadedSkills: [] })}\n`);
    const nothing = await runCliInProcessFrom(dir, "audit", "logs/empty.jsonl", "--dist", repoDist);
    expect(nothing.code).toBe(0);
    expect(nothing.stdout).toBe(`✔ audited 1 transcript: 0 yields, no workflow, on ${repoDist.replace(/\/$/, "")}/ (cache key ${repoKey})\n`);
    const noProject = await runCliInProcessFrom(dir, "audit", "logs/empty.jsonl");
    expect(noProject.code).toBe(2);
    expect(noProject.stderr).toBe("gamma-prompt audit: no dist/ to audit against: no project in the working folder or above it (a folder with gamma-prompt.config.json or skills/); pass --dist with the dist/ the sessions ran on\n");
    expect(readFileSync(join(dir, "logs", "empty.jsonl"), "utf8")).toContain('"type":"session"');
    // At a monorepo's root it names the projects below, as every command does.
    mkdirSync(join(dir, "packages", "agent", "skills"), { recursive: true });
    const atRoot = await runCliInProcessFrom(dir, "audit", "logs/empty.jsonl");
    expect(atRoot.code).toBe(2);
    expect(atRoot.stderr).toBe(
      "gamma-prompt audit: no dist/ to audit against: no project in the working folder or above it (a folder with gamma-prompt.config.json or skills/); projects below it: packages/agent; pass --root with the project's folder, or --dist with the dist/ the sessions ran on\n",
    );
  });
});
