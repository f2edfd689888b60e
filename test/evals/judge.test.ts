/**
 * The expectation judge against a bad agent. Every shipped cassette is a good
 * agent's, so they show the judge can pass; here a scripted agent does the
 * wrong thing for every expectation kind, is recorded and replayed like any
 * model, and each expectation must fail with the exact reason. The judge is
 * also called directly for the branches one recording cannot reach.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { asksAQuestion, judgeRun } from "../../src/evals/expectations.js";
import { runEvals, type ScriptedModel } from "../../src/evals/index.js";
import type { RunTrace, TraceEntry } from "../../src/evals/run.js";
import { EXPECTATION_KINDS, type Expectation, type Scenario } from "../../src/evals/scenario.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import type { AuditFinding, AuditReport } from "../../src/runtime/audit/audit.js";
import type { Task } from "../../src/runtime/execution-state.js";
import { evalProject, repoRoot, withoutNetwork } from "./helpers/project.js";

const SCENARIO = `name: bad-agent
description: A deck request the agent gets wrong in every way the expectations can see.
variant: base
turns:
  - Make a six-card deck about tide pools for my 4th graders.
tools:
  bash:
    - argsContain: { command: "ls" }
      result: ""
expect:
  - id: workflow-first
    skillActivated: { name: deck-generation, beforeFirstTaskAction: true }
  - id: no-editing
    skillNotActivated: { name: gml-editing }
  - id: drive-loaded-by-name
    namespaceLoaded: { name: drive, loadedBy: tool }
  - id: no-drive-for-a-topic
    namespaceNotLoaded: { name: drive }
  - id: every-required-step
    stepsCompleted: { skill: deck-generation, steps: required }
  - id: presents-the-deck
    toolCalled: { name: show_gamma }
  - id: one-listing
    toolCalled: { name: bash, argsContain: { command: "ls" }, max: 1 }
  - id: writes-nothing
    toolNotCalled: { name: write }
  - id: no-publish-before-the-yield
    toolNotCalled: { name: bash, argsContain: { command: "publish" }, beforeFirstYield: true }
  - id: hands-back-the-deck
    yield: { blockOnUser: false, asksQuestion: false, contains: [ready] }
  - id: few-model-calls
    maxModelCalls: 2
  - id: audit-passes
    auditPasses: true
`;

/** Acts before loading the workflow, loads a forbidden skill and the drive tools with it, plans nothing, writes, publishes, and ends on a question. */
const badAgent: ScriptedModel = {
  name: "bad-agent",
  respond({ call }) {
    const turns = [
      [{ name: "bash", arguments: { command: "ls uploads/" } }],
      [{ name: "skill", arguments: { name: "deck-generation" } }, { name: "skill", arguments: { name: "gml-editing" } }, { name: "skill", arguments: { name: "drive-files" } }],
      [{ name: "write", arguments: { path: "deck.gml", content: "<deck/>\n" } }, { name: "bash", arguments: { command: "ls generations/" } }],
      [{ name: "bash", arguments: { command: "gml publish deck.gml --json" } }],
      [{ name: "message_user", arguments: { message: "Which theme do you want?", blockOnUser: true } }],
    ];
    return { toolCalls: turns[call - 1] ?? [{ name: "message_user", arguments: { message: "Which theme do you want?", blockOnUser: true } }] };
  },
};

describe("the judge on traces no recording above reaches", () => {
  const artifacts = loadArtifacts({ distDir: join(repoRoot, "dist") });
  const scenario = (expect: Scenario["expect"]): Scenario => ({ name: "s", variant: "base", turns: ["hi"], expect }) as unknown as Scenario;
  const trace = (overrides: Partial<RunTrace> = {}): RunTrace => ({ entries: [], modelCalls: 1, tasks: [], audits: [], unfixtured: [], ...overrides });
  const passingAudit = { outcome: "pass", findings: [] } as unknown as RunTrace["audits"][number];

  it("auditPasses: false fails when every audit passed; auditPasses: true fails when none ran", () => {
    expect(judgeRun(scenario([{ id: "a", auditPasses: false }]), trace({ audits: [passingAudit] }), artifacts)).toEqual([
      { id: "a", kind: "auditPasses", passed: false, reason: "every completion audit passed, expected one to fail" },
    ]);
    expect(judgeRun(scenario([{ id: "a", auditPasses: true }]), trace(), artifacts)).toEqual([
      { id: "a", kind: "auditPasses", passed: false, reason: "no completion audit ran (no workflow was active at a yield)" },
    ]);
  });

  it("auditPasses in a scenario with audit: off names the setting as the reason no audit ran", () => {
    const off = (expect: Scenario["expect"]): Scenario => ({ ...scenario(expect), audit: "off" }) as Scenario;
    expect(judgeRun(off([{ id: "a", auditPasses: true }]), trace(), artifacts)).toEqual([
      { id: "a", kind: "auditPasses", passed: false, reason: "no completion audit ran (the scenario sets audit: off)" },
    ]);
    expect(judgeRun(off([{ id: "a", auditPasses: false }]), trace(), artifacts)).toEqual([
      { id: "a", kind: "auditPasses", passed: false, reason: "no completion audit ran (the scenario sets audit: off), expected one to fail" },
    ]);
  });

  it("a yield expectation fails when the turn has no message, and every expectation fails on a run that did not finish", () => {
    expect(judgeRun(scenario([{ id: "y", yield: { blockOnUser: true } }]), trace(), artifacts)[0]?.reason).toBe("no message_user call in turn 1");
    const verdicts = judgeRun(scenario([{ id: "n", toolNotCalled: { name: "write" } }, { id: "m", maxModelCalls: 9 }]), trace({ error: "provider down" }), artifacts);
    expect(verdicts.map((verdict) => [verdict.id, verdict.passed, verdict.reason])).toEqual([
      ["n", false, "the run did not finish: provider down"],
      ["m", false, "the run did not finish: provider down"],
    ]);
  });

  it("toolNotCalled with beforeFirstYield ignores calls after the first yield, and passes on a clean trace", () => {
    const entries: RunTrace["entries"] = [
      { type: "message", turn: 1, message: "Ready?", blockOnUser: true },
      { type: "tool_call", turn: 2, name: "write", arguments: { path: "x" }, id: "call-1" },
    ];
    expect(judgeRun(scenario([{ id: "b", toolNotCalled: { name: "write", beforeFirstYield: true } }]), trace({ entries }), artifacts)[0]?.passed).toBe(true);
    expect(judgeRun(scenario([{ id: "b", toolNotCalled: { name: "write" } }]), trace({ entries }), artifacts)[0]?.reason).toBe('write({"path":"x"}) was called');
    expect(judgeRun(scenario([{ id: "b", toolNotCalled: { name: "write" } }]), trace(), artifacts)[0]).toEqual({ id: "b", kind: "toolNotCalled", passed: true });
  });
});

/** An expectation without its id (Omit over each member of the union). */
type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;

describe("the judge, expectation by expectation, on hand-made traces", () => {
  const artifacts = loadArtifacts({ distDir: join(repoRoot, "dist") });
  const call = (turn: number, name: string, args: Record<string, unknown> = {}, refused = false): TraceEntry => ({ type: "tool_call", turn, name, arguments: args, id: `call-${turn}-${name}`, ...(refused ? { refused: true as const } : {}) });
  const activated = (turn: number, ...names: string[]): TraceEntry => ({ type: "skills_activated", turn, names });
  const message = (turn: number, text: string, blockOnUser: boolean): TraceEntry => ({ type: "message", turn, message: text, blockOnUser });
  const task = (step: number, status: Task["status"], note?: string): Task => ({ id: `t${step}`, title: `step ${step}`, status, step: `deck-generation#${step}`, ...(note === undefined ? {} : { note }) });
  const finding = (ruleId: AuditFinding["ruleId"], severity: AuditFinding["severity"], step?: number): AuditFinding => ({ ruleId, severity, message: "", position: 0, ...(step === undefined ? {} : { step }) });
  const audit = (outcome: AuditReport["outcome"], findings: AuditFinding[] = []): AuditReport => ({ outcome, workflows: ["deck-generation"], findings, deviations: [], position: 0 });

  /** The one verdict's reason for `expectation` on a trace (undefined: it passed); `turns` user turns. */
  function reason(expectation: WithoutId<Expectation>, trace: Partial<RunTrace> = {}, turns = 1): string | undefined {
    const scenario = { name: "s", variant: "base", turns: Array.from({ length: turns }, (_, index) => `turn ${index + 1}`), expect: [{ id: "e", ...expectation }] } as Scenario;
    const [verdict] = judgeRun(scenario, { entries: [], modelCalls: 1, tasks: [], audits: [], unfixtured: [], ...trace }, artifacts);
    expect(verdict?.passed).toBe(verdict?.reason === undefined);
    return verdict?.reason;
  }

  it("skillActivated: names what was activated instead, and judges the order only against task actions that ran", () => {
    expect(reason({ skillActivated: { name: "deck-generation" } })).toBe("deck-generation was never activated (activated: none)");
    expect(reason({ skillActivated: { name: "deck-generation" } }, { entries: [activated(1, "gml-editing", "import"), call(1, "bash"), message(1, "Done.", false), activated(2, "theme")] })).toBe(
      "deck-generation was never activated (activated: gml-editing, import, theme)",
    );
    const first = { skillActivated: { name: "deck-generation", beforeFirstTaskAction: true } };
    expect(reason(first, { entries: [activated(1, "deck-generation")] })).toBeUndefined();
    expect(reason(first, { entries: [call(1, "read", { path: "brief.xml" }), activated(1, "deck-generation"), call(1, "write", { path: "x" })] })).toBeUndefined();
    expect(reason(first, { entries: [call(1, "bash", { command: "ls" }, true), activated(1, "deck-generation")] })).toBeUndefined();
    expect(reason(first, { entries: [call(1, "todo", { items: [] }), activated(1, "deck-generation")] })).toBe('deck-generation was activated after the first task action (todo({"items":[]}))');
    expect(reason({ skillActivated: { name: "deck-generation" } }, { entries: [call(1, "todo"), activated(1, "deck-generation")] })).toBeUndefined();
    expect(reason({ skillNotActivated: { name: "gml-editing" } }, { entries: [activated(1, "deck-generation")] })).toBeUndefined();
  });

  it("stepsCompleted: the listed steps or the required ones, an optional step skipped with a reason counting as done", () => {
    const required = [1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14];
    expect(reason({ stepsCompleted: { skill: "deck-generation", steps: "required" } }, { tasks: required.map((step) => task(step, "complete")) })).toBeUndefined();
    expect(reason({ stepsCompleted: { skill: "deck-generation", steps: [1, 3] } }, { tasks: [task(1, "complete"), task(3, "complete", "no blocking question")] })).toBeUndefined();
    expect(reason({ stepsCompleted: { skill: "deck-generation", steps: [1, 3, 4] } }, { tasks: [task(1, "in_progress"), task(4, "blocked", "waits for the user")] })).toBe(
      "steps not complete: 1 (in progress), 4 (blocked); no task names step 3",
    );
    // A task that names the step and is not started yet is pending.
    expect(reason({ stepsCompleted: { skill: "deck-generation", steps: [3] } }, { tasks: [task(3, "pending")] })).toBe("steps not complete: 3 (pending)");
  });

  it("toolCalled: at least min and at most max calls that match every argsContain entry, counted exactly", () => {
    const listings = [call(1, "bash", { command: "ls uploads/" }), call(1, "bash", { command: "gml validate deck.gml" }), call(2, "bash", { command: "ls generations/" })];
    expect(reason({ toolCalled: { name: "bash" } }, { entries: listings })).toBeUndefined();
    expect(reason({ toolCalled: { name: "bash", min: 3, max: 3 } }, { entries: listings })).toBeUndefined();
    expect(reason({ toolCalled: { name: "bash", min: 4 } }, { entries: listings })).toBe("bash was called 3 times, expected at least 4");
    expect(reason({ toolCalled: { name: "bash", max: 2 } }, { entries: listings })).toBe("bash was called 3 times, expected at most 2");
    expect(reason({ toolCalled: { name: "bash", argsContain: { command: "validate" }, min: 2 } }, { entries: listings })).toBe('bash with command containing "validate" was called 1 time, expected at least 2');
    expect(reason({ toolCalled: { name: "edit", argsContain: { path: "deck", old: "Title" } } }, { entries: listings })).toBe(
      'edit with path containing "deck", old containing "Title" was called 0 times, expected at least 1',
    );
  });

  it("toolNotCalled: a progress message is no yield, and without a yield the whole run counts", () => {
    const before = { toolNotCalled: { name: "write", beforeFirstYield: true } };
    expect(reason(before, { entries: [call(1, "write", { path: "deck.gml" })] })).toBe('write({"path":"deck.gml"}) was called before the first yield');
    expect(reason(before, { entries: [message(1, "Writing the brief.", false), call(1, "write", { path: "brief.xml" }), message(1, "Ready?", true)] })).toBe(
      'write({"path":"brief.xml"}) was called before the first yield',
    );
    expect(reason({ toolNotCalled: { name: "bash", argsContain: { command: "publish" } } }, { entries: [call(1, "bash", { command: "ls" })] })).toBeUndefined();
    const long = { path: "generations/tide-pools/deck.gml", content: "<deck>\n  <card id=\"intro\" layout=\"title\"/>\n</deck>\n" };
    expect(reason({ toolNotCalled: { name: "write" } }, { entries: [call(1, "write", long)] })).toBe(`write(${JSON.stringify(long).slice(0, 59)}…) was called`);
    const sixty = { path: `generations/${"p".repeat(33)}.gml` };
    expect(JSON.stringify(sixty)).toHaveLength(60);
    expect(reason({ toolNotCalled: { name: "write" } }, { entries: [call(1, "write", sixty)] })).toBe(`write(${JSON.stringify(sixty)}) was called`);
  });

  it("yield: the last message of the last turn unless a turn is named, its text matched without case", () => {
    const entries = [message(1, "Which theme?", true), message(2, "Working on it.", false), message(2, "The deck is READY: 6 cards.", false)];
    expect(reason({ yield: { blockOnUser: false, asksQuestion: false, contains: ["ready", "6 CARDS"] } }, { entries }, 2)).toBeUndefined();
    expect(reason({ yield: { turn: 1, blockOnUser: true, asksQuestion: true, contains: ["theme"] } }, { entries }, 2)).toBeUndefined();
    expect(reason({ yield: { asksQuestion: true, blockOnUser: true } }, { entries }, 2)).toBe('the last message of turn 2 ("The deck is READY: 6 cards."): blockOnUser was false; it asks no question');
    expect(reason({ yield: { blockOnUser: true } }, { entries }, 3)).toBe("no message_user call in turn 3");
    // A tool call after the turn's last message does not replace it.
    expect(reason({ yield: { blockOnUser: false } }, { entries: [message(1, "Ready.", false), call(1, "bash", { command: "ls" })] })).toBeUndefined();
    const rambling = `Here is the deck.\n\n  It has ${"many ".repeat(30)}cards.\n`;
    expect(reason({ yield: { contains: ["theme"] } }, { entries: [message(1, rambling, true)] })).toBe(
      `the last message of turn 1 (${JSON.stringify(`Here is the deck. It has ${"many ".repeat(30)}`.slice(0, 79) + "…")}): it does not contain "theme"`,
    );
    // Up to 80 characters a message is quoted whole, leading and trailing space dropped.
    const eighty = `The deck is done: ${"x".repeat(61)}.`;
    expect(eighty).toHaveLength(80);
    expect(reason({ yield: { contains: ["theme"] } }, { entries: [message(1, ` ${eighty}\n`, true)] })).toBe(`the last message of turn 1 (${JSON.stringify(eighty)}): it does not contain "theme"`);
  });

  it("namespaceLoaded: the namespace joined the tool list, by the source named; namespaceNotLoaded: it never did", () => {
    const loaded = (turn: number, loadedBy: "skill" | "tool" | "host" | "variant", ...names: string[]): TraceEntry => ({ type: "namespaces_loaded", turn, names, loadedBy });
    expect(reason({ namespaceLoaded: { name: "drive" } }, { entries: [] })).toBe("the tool namespace drive was never loaded (loaded: none)");
    expect(reason({ namespaceLoaded: { name: "drive" } }, { entries: [loaded(1, "tool", "slack", "notion")] })).toBe("the tool namespace drive was never loaded (loaded: slack, notion)");
    expect(reason({ namespaceLoaded: { name: "drive" } }, { entries: [loaded(1, "tool", "slack"), loaded(2, "skill", "notion", "drive")] })).toBeUndefined();
    expect(reason({ namespaceLoaded: { name: "drive", loadedBy: "skill" } }, { entries: [loaded(2, "skill", "drive")] })).toBeUndefined();
    // The first load is the one judged: a namespace loads once.
    expect(reason({ namespaceLoaded: { name: "drive", loadedBy: "skill" } }, { entries: [loaded(1, "tool", "drive"), loaded(2, "skill", "drive")] })).toBe(
      "the tool namespace drive was loaded with load_tool_namespace, expected by a workflow skill that became active",
    );
    expect(reason({ namespaceLoaded: { name: "drive", loadedBy: "tool" } }, { entries: [loaded(0, "variant", "drive")] })).toBe(
      "the tool namespace drive was loaded from session start (the variant sends it), expected with load_tool_namespace",
    );
    expect(reason({ namespaceLoaded: { name: "drive", loadedBy: "variant" } }, { entries: [loaded(0, "host", "drive")] })).toBe(
      "the tool namespace drive was loaded by the host, expected from session start (the variant sends it)",
    );
    // A tool call or a skill of the same name is no load.
    expect(reason({ namespaceLoaded: { name: "drive" } }, { entries: [call(1, "drive"), activated(1, "drive")] })).toBe("the tool namespace drive was never loaded (loaded: none)");
    expect(reason({ namespaceNotLoaded: { name: "drive" } }, { entries: [loaded(1, "tool", "slack")] })).toBeUndefined();
    expect(reason({ namespaceNotLoaded: { name: "drive" } }, { entries: [loaded(1, "tool", "slack"), loaded(3, "skill", "drive")] }, 3)).toBe(
      "the tool namespace drive was loaded by a workflow skill that became active in turn 3",
    );
  });

  it("maxModelCalls: at most that many; auditPasses: the error findings of every failed audit, warnings left out", () => {
    expect(judgeRun({ name: "s", variant: "base", turns: ["hi"], expect: [{ id: "calls", maxModelCalls: 4 }] } as Scenario, { entries: [], modelCalls: 4, tasks: [], audits: [], unfixtured: [] }, artifacts)).toStrictEqual([
      { id: "calls", kind: "maxModelCalls", passed: true },
    ]);
    expect(reason({ maxModelCalls: 4 }, { modelCalls: 5 })).toBe("5 model calls, expected at most 4");
    const failed = audit("fail", [finding("audit/required-step", "error", 2), finding("audit/deviation", "warning", 6), finding("audit/skill-after-action", "error")]);
    expect(reason({ auditPasses: true }, { audits: [audit("pass"), failed] })).toBe("the completion audit failed: audit/required-step step 2, audit/skill-after-action");
    expect(reason({ auditPasses: true }, { audits: [audit("pass"), audit("pass")] })).toBeUndefined();
    expect(reason({ auditPasses: false }, { audits: [audit("pass"), failed] })).toBeUndefined();
  });

  it("a message asks a question when a sentence in it ends with a question mark", () => {
    for (const text of ["Which theme?", "Which theme? Or none.", 'You said "why?"', "You asked 'why?'", "(a question?)", "[sure?]", "Ready?\nThen go."]) expect(asksAQuestion(text), text).toBe(true);
    for (const text of ["The deck is ready.", "See https://gamma.app/?ref=1 for it.", "What?!", ""]) expect(asksAQuestion(text), text).toBe(false);
  });
});

describe("a scripted bad agent, recorded and replayed", () => {
  it("fails every expectation kind, each with the exact reason", async () => {
    const root = evalProject({ scenarios: [] });
    writeFileSync(join(root, "evals", "bad-agent.yaml"), SCENARIO);
    const recorded = await withoutNetwork(() => runEvals({ root, record: true, runs: 1, scriptedModel: badAgent }));
    expect(recorded.diagnostics).toEqual([]);
    const { results } = await withoutNetwork(() => runEvals({ root, replay: true }));
    const run = results?.scenarios[0]?.runResults[0];
    expect(run?.error).toBeUndefined();
    expect(results?.passed).toBe(false);
    const reasons = Object.fromEntries((run?.failures ?? []).map((failure) => [failure.expectation, failure.reason]));
    expect(reasons).toEqual({
      "workflow-first": 'deck-generation was activated after the first task action (bash({"command":"ls uploads/"}))',
      "no-editing": "gml-editing was activated",
      "every-required-step": "steps not complete: no task names steps 1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14",
      "presents-the-deck": "show_gamma was called 0 times, expected at least 1",
      "one-listing": 'bash with command containing "ls" was called 2 times, expected at most 1',
      "writes-nothing": 'write({"content":"<deck/>\\n","path":"deck.gml"}) was called',
      "no-publish-before-the-yield": 'bash({"command":"gml publish deck.gml --json"}) was called before the first yield',
      "hands-back-the-deck": 'the last message of turn 1 ("Which theme do you want?"): blockOnUser was true; it asks a question; it does not contain "ready"',
      "few-model-calls": "5 model calls, expected at most 2",
      "drive-loaded-by-name": "the tool namespace drive was loaded by a workflow skill that became active, expected with load_tool_namespace",
      "no-drive-for-a-topic": "the tool namespace drive was loaded by a workflow skill that became active in turn 1",
      // The three workflows (deck-generation, gml-editing, drive-files) fail the audit at the yield, finding by finding.
      "audit-passes":
        "the completion audit failed: audit/skill-after-action, audit/skill-after-action, audit/skill-after-action, audit/required-step step 1, audit/required-step step 1, audit/required-step step 1, audit/required-step step 2, audit/required-step step 2, audit/required-step step 2, audit/skip-without-reason step 3, audit/skip-without-reason step 3, audit/required-step step 3, audit/skip-without-reason step 4, audit/verification-step step 4, audit/skip-without-reason step 4, audit/verification-step step 5, audit/skip-without-reason step 5, audit/required-step step 5, audit/required-step step 6, audit/required-step step 6, audit/verification-step step 6, audit/verification-step step 7, audit/verification-step step 7, audit/required-step step 7, audit/verification-step step 8, audit/verification-step step 8, audit/verification-step step 9, audit/verification-step step 9, audit/verification-step step 10, audit/verification-step step 10, audit/verification-step step 11, audit/verification-step step 11, audit/required-step step 12, audit/required-step step 12, audit/verification-step step 13, audit/verification-step step 13, audit/required-step step 14, audit/required-step step 14",
    });
    // One expectation of every kind failed (auditPasses: false is judged below).
    const kinds = new Set(results?.scenarios[0]?.expectations.filter((expectation) => expectation.passed === 0).map((expectation) => expectation.kind));
    expect([...kinds].sort()).toEqual([...EXPECTATION_KINDS].sort());
  });
});
