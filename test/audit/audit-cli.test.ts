import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { audit } from "../../src/audit.js";
import { build } from "../../src/build.js";
import { init } from "../../src/init.js";
import { FileSessionLog } from "../../src/runtime/audit/recorder.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { createGammaAgent, createGammaSession } from "../../src/runtime/pi-adapter.js";
import { runCliInProcess, runCliInProcessFrom } from "../helpers/cli.js";
import { docPage } from "../helpers/docs.js";
import { deckTasks, FINISHED_DECK, SKIPPED_OPTIONAL } from "../runtime/helpers/checklist.js";
import { prepareDist, tempDir } from "../runtime/helpers/dist.js";
import { fauxToolCall, recordingExecutors, toolUse } from "../runtime/helpers/pi.js";
import { fauxPerTest, fauxSessionSetup } from "../runtime/helpers/session.js";

const pi = fauxPerTest();
const distDir = prepareDist();
const artifacts = loadArtifacts({ distDir });
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** Step 8 ("Render and inspect") never planned: the agent skipped a required verification step. */
const SKIPPED_RENDER = deckTasks(SKIPPED_OPTIONAL).filter((task) => task.step !== "deck-generation#8");
/** The embedded default hints its knowledge notes each turn: the agent reads one, then plans and presents. */
const script = (tasks: unknown) => [
  toolUse(fauxToolCall("read_workspace_rule", { knowledgeId: "brand-images" })),
  toolUse(fauxToolCall("todo", { tasks })),
  toolUse(fauxToolCall("message_user", { message: "Your deck is ready.", blockOnUser: true })),
];

async function sessionLogRun(tasks: unknown): Promise<string> {
  const file = join(tempDir("gamma-audit-"), "session.jsonl");
  const faux = pi.faux();
  const gamma = pi.disposeAfterTest(createGammaAgent({ artifacts, variant: "deck-generation", model: faux.getModel(), executors: recordingExecutors(), sessionLog: new FileSessionLog(file) }));
  faux.setResponses(script(tasks));
  await gamma.agent.prompt("Make a deck about tide pools");
  return file;
}

describe("gamma-prompt audit: the completion audit over recorded transcripts", () => {
  it("finds the skipped step in the runtime's session log, at the line of the task list", async () => {
    const file = await sessionLogRun(SKIPPED_RENDER);
    const result = await audit({ files: [file], distDir, cwd: "/" });
    expect(result.errorCount).toBe(1);
    expect(result.diagnostics).toEqual([
      {
        file: file.slice(1),
        line: 5,
        column: 1,
        endLine: 5,
        endColumn: 1,
        severity: "error",
        ruleId: "audit/verification-step",
        url: expect.stringContaining("#rule-audit-verification-step"),
        message: 'Unexpected verification step 8 "Render and inspect" of deck-generation not done (no task names it), expected it complete before the final message (audit of the yield at line 7)',
      },
    ]);
    expect(result.transcripts[0]?.reports.map((report) => report.outcome)).toEqual(["fail"]);
  });

  it("reads Pi's session file the same way (the variant comes from the session's gamma.session entry)", async () => {
    const faux = pi.faux();
    const setup = await fauxSessionSetup(faux);
    const sessionDir = join(setup.cwd, "sessions");
    mkdirSync(sessionDir);
    const { session } = pi.disposeAfterTest(
      await createGammaSession({ ...setup, sessionManager: SessionManager.create(setup.cwd, sessionDir), artifacts, variant: "deck-generation", executors: recordingExecutors() }),
    );
    faux.setResponses(script(SKIPPED_RENDER));
    await session.prompt("Make a deck about tide pools");
    const [name] = readdirSync(sessionDir);
    const file = join(sessionDir, name ?? "");
    const result = await audit({ files: [file], distDir, cwd: sessionDir });
    expect(result.diagnostics.map((diagnostic) => [diagnostic.file, diagnostic.ruleId, diagnostic.message.slice(0, 44)])).toEqual([[name, "audit/verification-step", 'Unexpected verification step 8 "Render and i']]);
  });

  it("the CLI exits 1 on a failed audit, 0 on a passing one, in every format", async () => {
    const failing = await sessionLogRun(SKIPPED_RENDER);
    const passing = await sessionLogRun(FINISHED_DECK);
    const ok = await runCliInProcess("audit", passing, "--dist", distDir);
    expect(ok).toEqual({ code: 0, stdout: `✔ audited 1 transcript: 1 yield, 1 workflow (deck-generation), on ${distDir}/ (cache key ${artifacts.manifest.staticPrefix.cacheKey.slice(0, 12)})\n`, stderr: "" });
    const json = await runCliInProcess("audit", failing, passing, "--dist", distDir, "--format", "json");
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ errorCount: 1, warningCount: 0, diagnostics: [{ line: 5, ruleId: "audit/verification-step" }] });
    const sarif = JSON.parse((await runCliInProcess("audit", failing, "--dist", distDir, "--format", "sarif")).stdout) as { version: string; runs: Array<{ tool: { driver: { rules: Array<{ id: string }> } }; results: Array<{ ruleId: string; level: string; locations: Array<{ physicalLocation: { region: { startLine: number } } }> }> }> };
    expect(sarif.version).toBe("2.1.0");
    expect(sarif.runs[0]?.tool.driver.rules.map((rule) => rule.id)).toEqual(["audit/verification-step"]);
    expect(sarif.runs[0]?.results[0]).toMatchObject({ ruleId: "audit/verification-step", level: "error", locations: [{ physicalLocation: { region: { startLine: 5 } } }] });
    expect((await runCliInProcess("audit", failing, "--dist", distDir, "--format", "github")).stdout).toMatch(/^::error file=.*session\.jsonl,line=5,col=1,endLine=5,endColumn=1,title=audit\/verification-step::/);
  });

  it("names transcripts from the repository's root (GITHUB_WORKSPACE) in github and sarif, as lint does, when run in a package's folder", async () => {
    const failing = await sessionLogRun(SKIPPED_RENDER);
    const repository = tempDir("gamma-audit-repo-");
    const pkg = join(repository, "packages", "agent");
    mkdirSync(join(pkg, "sessions"), { recursive: true });
    cpSync(failing, join(pkg, "sessions", "s.jsonl"));
    const saved = process.env["GITHUB_WORKSPACE"];
    process.env["GITHUB_WORKSPACE"] = repository;
    try {
      const github = await runCliInProcessFrom(pkg, "audit", "sessions/s.jsonl", "--dist", distDir, "--format", "github");
      expect(github.stdout).toMatch(/^::error file=packages\/agent\/sessions\/s\.jsonl,line=5,/);
      const sarif = JSON.parse((await runCliInProcessFrom(pkg, "audit", "sessions/s.jsonl", "--dist", distDir, "--format", "sarif")).stdout) as { runs: Array<{ results: Array<{ locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }> }> }> };
      expect(sarif.runs[0]?.results[0]?.locations[0]?.physicalLocation.artifactLocation.uri).toBe("packages/agent/sessions/s.jsonl");
      // The other formats name it as given.
      expect(JSON.parse((await runCliInProcessFrom(pkg, "audit", "sessions/s.jsonl", "--dist", distDir, "--format", "json")).stdout)).toMatchObject({ diagnostics: [{ file: "sessions/s.jsonl" }] });
    } finally {
      if (saved === undefined) delete process.env["GITHUB_WORKSPACE"];
      else process.env["GITHUB_WORKSPACE"] = saved;
    }
  });

  it("reports a file that is not a transcript, and refuses a dist/ that fails verification", async () => {
    const dir = tempDir("gamma-audit-");
    writeFileSync(join(dir, "notes.jsonl"), "hello\n");
    const bad = await runCliInProcess("audit", join(dir, "notes.jsonl"), "--dist", distDir, "--format", "json");
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ diagnostics: [{ ruleId: "audit/transcript-format", line: 1 }] });
    const missing = await runCliInProcess("audit", join(dir, "nope.jsonl"), "--dist", distDir, "--format", "json");
    expect(JSON.parse(missing.stdout)).toMatchObject({ diagnostics: [{ ruleId: "audit/transcript-format", message: expect.stringContaining("ENOENT") }] });
    // A folder given as a transcript, the working folder itself too, is a finding that names it.
    const folder = await audit({ files: ["."], distDir, cwd: dir });
    expect(folder.diagnostics).toMatchObject([{ ruleId: "audit/transcript-format", file: ".", message: "Unexpected folder where a transcript belongs, expected a readable JSONL file" }]);
    const unbuilt = await runCliInProcess("audit", join(dir, "notes.jsonl"), "--dist", dir);
    expect(unbuilt.code).toBe(2);
    // An absolute --dist is named as given.
    expect(unbuilt.stderr).toBe(`gamma-prompt audit: no build in ${dir}/ (it holds no manifest.json): pass --dist with the built dist/ the sessions ran on\n`);
    const tampered = join(dir, "tampered");
    cpSync(distDir, tampered, { recursive: true });
    appendFileSync(join(tampered, "catalog.xml"), "\n");
    const refused = await runCliInProcess("audit", join(dir, "notes.jsonl"), "--dist", tampered);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("gamma-prompt audit: dist/ failed verification");
  });

  it("refuses a --variant the dist/ does not define as a usage error naming its variants (exit 2), auditing nothing", async () => {
    const dir = tempDir("gamma-audit-");
    const file = join(dir, "pi.jsonl");
    writeFileSync(file, `${JSON.stringify({ type: "session", id: "x", version: 3, timestamp: "2026-01-01T00:00:00Z", cwd: "/tmp" })}\n`);
    const refused = await runCliInProcessFrom(dir, "audit", "pi.jsonl", "--dist", distDir, "--variant", "nope");
    const variants = Object.keys(artifacts.manifest.variants).join(", ");
    expect(refused).toEqual({ code: 2, stdout: "", stderr: `gamma-prompt audit: Unexpected --variant "nope", expected one of the variants ${distDir}/ defines: ${variants}\n` });
    const known = await runCliInProcessFrom(dir, "audit", "pi.jsonl", "--dist", distDir, "--variant", "deck-generation");
    expect(known.code).not.toBe(2);
  });

  it("takes the dist/'s only variant for a Pi session file that records none, and with several asks for --variant (exit 2), never blaming the build", async () => {
    const root = tempDir("gamma-audit-variants-");
    await init({ dir: root, template: "agent" });
    const file = join(root, "pi.jsonl");
    writeFileSync(file, `${JSON.stringify({ type: "session", id: "x", version: 3, timestamp: "2026-01-01T00:00:00Z", cwd: "/tmp" })}\n`);
    const variants = async (yaml: string): Promise<void> => {
      writeFileSync(join(root, "prompts/variants.yaml"), yaml);
      expect((await build({ root })).errorCount).toBe(0);
    };
    // One variant, not named base: the session can only have run on it.
    await variants("variants:\n  general:\n    preload: []\n");
    const single = await runCliInProcessFrom(root, "audit", "pi.jsonl");
    expect(single.code).toBe(0);
    expect(single.stdout).toMatch(/^✔ audited 1 transcript: 0 yields, no workflow, on dist\/ /);
    // Several, none named base: which one it ran on is not known, so nothing is audited.
    await variants("variants:\n  general:\n    preload: []\n  outline:\n    preload: [draft-outline]\n");
    const several = await runCliInProcessFrom(root, "audit", "pi.jsonl");
    expect(several).toEqual({ code: 2, stdout: "", stderr: "gamma-prompt audit: Unexpected Pi session file pi.jsonl that records no variant, expected --variant with the one it ran on, one of the variants dist/ defines: general, outline\n" });
    expect(several.stderr).not.toContain("--dist");
    expect((await runCliInProcessFrom(root, "audit", "pi.jsonl", "--variant", "outline")).code).toBe(0);
    // Several with a base among them: still the user's to name.
    await variants("variants:\n  base:\n    preload: []\n  outline:\n    preload: [draft-outline]\n");
    expect((await runCliInProcessFrom(root, "audit", "pi.jsonl")).stderr).toContain("records no variant, expected --variant with the one it ran on, one of the variants dist/ defines: base, outline\n");
  });

  it("prints the evaluations guide's audit transcript exactly, for the scripted session it describes", async () => {
    // bash before the deck workflow is loaded, step 8 never planned, none of the hinted knowledge read.
    const dir = tempDir("gamma-audit-readme-");
    mkdirSync(join(dir, "sessions"));
    // The project's own dist/, as audit finds it by default.
    cpSync(distDir, join(dir, "dist"), { recursive: true });
    const faux = pi.faux();
    const gamma = pi.disposeAfterTest(
      createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: recordingExecutors(), sessionLog: new FileSessionLog(join(dir, "sessions", "s_123.jsonl")) }),
    );
    faux.setResponses([
      toolUse(fauxToolCall("bash", { command: "ls uploads/" })),
      toolUse(fauxToolCall("skill", { name: "deck-generation" })),
      toolUse(fauxToolCall("todo", { tasks: SKIPPED_RENDER })),
      toolUse(fauxToolCall("message_user", { message: "Your deck is ready.", blockOnUser: true })),
    ]);
    await gamma.agent.prompt(gamma.controller.buildTurnMessages({ text: "Make a deck about tide pools with photos and short card titles" }));
    const printed = await runCliInProcessFrom(dir, "audit", "sessions/s_123.jsonl");
    expect(printed.code).toBe(1);
    expect(docPage("docs/guide/evaluations-and-audits.md").text).toContain(`\n\`\`\`\n$ gamma-prompt audit sessions/s_123.jsonl\n${printed.stdout}\`\`\`\n`);
  });

  it("runs as a real process (the contract CI relies on)", async () => {
    const failing = await sessionLogRun(SKIPPED_RENDER);
    const child = spawnSync(process.execPath, [join(repoRoot, "lib/cli/index.js"), "audit", failing, "--dist", distDir], { encoding: "utf8" });
    expect(child.status).toBe(1);
    expect(child.stdout).toContain("audit/verification-step");
  });

  it("reads a record whose fields have other types as an unreadable line, never as empty: a failing session cannot pass", async () => {
    const log = await sessionLogRun(SKIPPED_RENDER);
    const rows = readFileSync(log, "utf8").split("\n");
    // A list turned into a string (a hand edit, a log written by another tool) was read as "no skill preloaded":
    // with no workflow to hold the session to, the audit passed it.
    const session = JSON.parse(rows[0] ?? "") as Record<string, unknown>;
    rows[0] = JSON.stringify({ ...session, preloadedSkills: "deck-generation" });
    writeFileSync(log, rows.join("\n"));
    const result = await audit({ files: [log], distDir, cwd: "/" });
    expect(result.diagnostics.filter((d) => d.ruleId === "audit/transcript-format").map((d) => [d.line, d.message])).toEqual([
      [1, 'Unexpected "session" record whose "preloadedSkills" is the string "deck-generation", expected a list of strings'],
    ]);
    expect(result.errorCount).toBeGreaterThan(0);
    const printed = await runCliInProcess("audit", log, "--dist", distDir);
    expect(printed.code).toBe(1);
    // The same for every field the audit reads.
    const cases: Array<[object, string]> = [
      [{ type: "tool_call", id: 7, name: "todo", arguments: {} }, '"id" is the number 7, expected a string'],
      [{ type: "tool_call", id: "c1", name: "todo", arguments: "{}" }, '"arguments" is the string "{}", expected a JSON object'],
      [{ type: "tasks", revision: 1, tasks: { id: "t" } }, "Unexpected `tasks` that is not a list, expected the complete task list"],
      [{ type: "tasks", revision: -1, tasks: [] }, '"revision" is the number -1, expected a whole number from 0'],
      [{ type: "knowledge_hints", ids: null }, '"ids" is null, expected a list of strings'],
      [{ type: "skills_required", names: ["a", 2], scope: "turn" }, '"names" is a list holding something else, expected a list of strings'],
      [{ type: "skills_loaded", names: "deck-generation" }, '"names" is the string "deck-generation", expected a list of strings'],
    ];
    for (const [entry, problem] of cases) {
      const damaged = await sessionLogRun(FINISHED_DECK);
      appendFileSync(damaged, `${JSON.stringify(entry)}\n`);
      const found = (await audit({ files: [damaged], distDir, cwd: "/" })).diagnostics.filter((d) => d.ruleId === "audit/transcript-format");
      expect(found.map((d) => d.message), JSON.stringify(entry)).toEqual([expect.stringContaining(problem)]);
    }
  });

  it("reads a Pi session file's skill result whose details are damaged as an unreadable line, not a crash", async () => {
    const file = join(tempDir("gamma-audit-pi-"), "session.jsonl");
    const entries = [
      { type: "session", id: "s1", version: 3, timestamp: "2026-01-01T00:00:00Z", cwd: "/tmp" },
      { type: "custom", customType: "gamma.session", data: { variant: "base" } },
      { type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "skill", arguments: { name: "deck-generation" } }] } },
      { type: "message", message: { role: "toolResult", toolCallId: "c1", content: [{ type: "text", text: "activated" }], details: { activated: "deck-generation" } } },
      { type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: 2, name: "todo", arguments: {} }] } },
    ];
    writeFileSync(file, `${entries.map((entry) => JSON.stringify(entry)).join("\n")}\n`);
    const result = await audit({ files: [file], distDir, cwd: "/" });
    expect(result.diagnostics.filter((d) => d.ruleId === "audit/transcript-format").map((d) => [d.line, d.message])).toEqual([
      [4, 'Unexpected "skill" tool result whose details.activated is no list of {name} objects, expected the skills the call activated'],
      [5, 'Unexpected "toolCall" record whose "id" is the number 2, expected a string'],
    ]);
    const printed = await runCliInProcess("audit", file, "--dist", distDir);
    expect(printed.code).toBe(1);
    expect(printed.stderr).not.toContain("internal error");
  });

  it("reads a session log saved with a byte order mark as the same log", async () => {
    const log = await sessionLogRun(SKIPPED_RENDER);
    const plain = await audit({ files: [log], distDir, cwd: "/" });
    writeFileSync(log, `\uFEFF${readFileSync(log, "utf8")}`);
    const marked = await audit({ files: [log], distDir, cwd: "/" });
    expect(marked.diagnostics).toEqual(plain.diagnostics);
    expect(marked.diagnostics.map((d) => d.ruleId)).toEqual(["audit/verification-step"]);
  });

  it("reports each line it cannot read at that line: an error, or a warning for a torn last line", async () => {
    const log = await sessionLogRun(FINISHED_DECK);
    const lines = readFileSync(log, "utf8").split("\n").length - 1;
    appendFileSync(log, 'not json\n[1, 2]\n{"type":"tool_cal","name":"todo"}\n{"name":"todo"}\n{"type":"yield","message":"Your deck');
    const result = await audit({ files: [log], distDir, cwd: "/" });
    expect(result.diagnostics.map((d) => [d.line - lines, d.ruleId, d.severity, d.message.slice(0, 41)])) .toEqual([
      [1, "audit/transcript-format", "error", "Unexpected line that is not JSON, expecte"],
      [2, "audit/transcript-format", "error", "Unexpected array line, expected a JSON ob"],
      [3, "audit/transcript-format", "error", 'Unexpected record of type "tool_cal", exp'],
      [4, "audit/transcript-format", "error", "Unexpected record without a type, expecte"],
      [5, "audit/transcript-torn-line", "warning", "Unexpected last line cut off before its e"],
    ]);
    // The passing session before the damage is still audited: only the unreadable lines are findings.
    expect(result.transcripts[0]?.reports.map((report) => report.outcome)).toEqual(["pass"]);
    const torn = await sessionLogRun(FINISHED_DECK);
    appendFileSync(torn, '{"type":"yield","message":"Your deck');
    const printed = await runCliInProcess("audit", torn, "--dist", distDir);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain("audit/transcript-torn-line");
  });
});
