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
import { judgeRun } from "../../src/evals/expectations.js";
import { runEvals, type ScriptedModel } from "../../src/evals/index.js";
import type { RunTrace } from "../../src/evals/run.js";
import { EXPECTATION_KINDS, type Scenario } from "../../src/evals/scenario.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
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

/** Acts before loading the workflow, loads a forbidden skill, plans nothing, writes, publishes, and ends on a question. */
const badAgent: ScriptedModel = {
  name: "bad-agent",
  respond({ call }) {
    const turns = [
      [{ name: "bash", arguments: { command: "ls uploads/" } }],
      [{ name: "skill", arguments: { name: "deck-generation" } }, { name: "skill", arguments: { name: "gml-editing" } }],
      [{ name: "write", arguments: { path: "deck.gml", content: "<deck/>\n" } }, { name: "bash", arguments: { command: "ls generations/" } }],
      [{ name: "bash", arguments: { command: "gml publish deck.gml --json" } }],
      [{ name: "message_user", arguments: { message: "Which theme do you want?", blockOnUser: true } }],
    ];
    return { toolCalls: turns[call - 1] ?? [{ name: "message_user", arguments: { message: "Which theme do you want?", blockOnUser: true } }] };
  },
};

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
      "every-required-step": "steps not complete: 1 (pending), 2 (pending), 5 (pending), 6 (pending), 7 (pending), 8 (pending), 9 (pending), 10 (pending), 11 (pending), 12 (pending), 13 (pending), 14 (pending)",
      "presents-the-deck": "show_gamma was called 0 times, expected at least 1",
      "one-listing": 'bash with command containing "ls" was called 2 times, expected at most 1',
      "writes-nothing": 'write({"content":"<deck/>\\n","path":"deck.gml"}) was called',
      "no-publish-before-the-yield": 'bash({"command":"gml publish deck.gml --json"}) was called before the first yield',
      "hands-back-the-deck": 'the last message of turn 1 ("Which theme do you want?"): blockOnUser was true; it asks a question; it does not contain "ready"',
      "few-model-calls": "5 model calls, expected at most 2",
      // Both workflows (deck-generation and gml-editing) fail the audit at the yield, finding by finding.
      "audit-passes":
        "the completion audit failed: audit/skill-after-action, audit/skill-after-action, audit/required-step step 1, audit/required-step step 1, audit/required-step step 2, audit/required-step step 2, audit/skip-without-reason step 3, audit/skip-without-reason step 3, audit/skip-without-reason step 4, audit/verification-step step 4, audit/verification-step step 5, audit/skip-without-reason step 5, audit/required-step step 6, audit/required-step step 6, audit/verification-step step 7, audit/verification-step step 7, audit/verification-step step 8, audit/verification-step step 8, audit/verification-step step 9, audit/verification-step step 9, audit/verification-step step 10, audit/verification-step step 10, audit/verification-step step 11, audit/verification-step step 11, audit/required-step step 12, audit/required-step step 12, audit/verification-step step 13, audit/verification-step step 13, audit/required-step step 14, audit/required-step step 14",
    });
    // One expectation of every kind failed (auditPasses: false is judged below).
    const kinds = new Set(results?.scenarios[0]?.expectations.filter((expectation) => expectation.passed === 0).map((expectation) => expectation.kind));
    expect([...kinds].sort()).toEqual([...EXPECTATION_KINDS].sort());
  });
});

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
