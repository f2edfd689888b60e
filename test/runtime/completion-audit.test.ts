import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditPolicyError, checkAuditPolicy, type AuditPolicy } from "../../src/runtime/audit/policy.js";
import type { InvocationPolicy } from "../../src/runtime/invocation/required-skills.js";
import { FileSessionLog } from "../../src/runtime/audit/recorder.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { createTrustedMessage, KNOWLEDGE_HINTS_KIND } from "../../src/runtime/messages.js";
import { createGammaAgent, createGammaSession } from "../../src/runtime/pi-adapter.js";
import type { VariantName } from "../../src/protocol/dist-manifest.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { deckTasks, FINISHED_DECK, SKIPPED_OPTIONAL } from "./helpers/checklist.js";
import { prepareDist, tempDir } from "./helpers/dist.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";

const pi = fauxPerTest();
const artifacts = loadArtifacts({ distDir: prepareDist() });

function agentWith(options: { variant?: VariantName; audit?: AuditPolicy; log?: string } = {}) {
  const events: ProtocolEvent[] = [];
  const faux = pi.faux();
  const gamma = createGammaAgent({
    artifacts,
    variant: options.variant ?? "deck-generation",
    model: faux.getModel(),
    executors: recordingExecutors(),
    onProtocolEvent: (event) => events.push(event),
    ...(options.audit === undefined ? {} : { audit: options.audit }),
    ...(options.log === undefined ? {} : { sessionLog: new FileSessionLog(options.log) }),
    ...NO_KNOWLEDGE_HINTS,
  });
  pi.disposeAfterTest(gamma);
  return { ...gamma, faux, events };
}

/** The same on the AgentSession path: a real Pi AgentSession on the faux provider, auditing in block mode. */
async function blockingSessionWith(options: { variant: VariantName; invocation?: InvocationPolicy }) {
  const events: ProtocolEvent[] = [];
  const faux = pi.faux();
  const open = await createGammaSession({
    artifacts,
    variant: options.variant,
    executors: recordingExecutors(),
    onProtocolEvent: (event) => events.push(event),
    audit: { mode: "block" },
    ...(options.invocation === undefined ? {} : { invocation: options.invocation }),
    ...(await fauxSessionSetup(faux)),
    ...NO_KNOWLEDGE_HINTS,
  });
  pi.disposeAfterTest(open);
  return { open, faux, events };
}

const done = (message: string) => toolUse(fauxToolCall("message_user", { message, blockOnUser: true }));
const todo = (tasks: unknown) => toolUse(fauxToolCall("todo", { tasks }));
const audits = (events: ProtocolEvent[]) => events.flatMap((event) => (event.type === "audit" ? [event] : []));
/** The final messages that went out, in order. */
const yields = (events: ProtocolEvent[]) => events.flatMap((event) => (event.type === "yield" ? [event.message] : []));
/** Validate, render and everything after it never done: the run stopped at step 6. */
const STOPPED_AT_6 = deckTasks({ ...SKIPPED_OPTIONAL, 6: { status: "in_progress" }, 7: { status: "pending" }, 8: { status: "pending" }, 9: { status: "pending" }, 10: { status: "pending" }, 11: { status: "pending" }, 12: { status: "pending" }, 13: { status: "pending" }, 14: { status: "pending" } });

describe("the completion audit at a yield while a workflow is active", () => {
  it("report (the default): an audit event names every missing step; the yield goes ahead with the audit attached", async () => {
    const log = join(tempDir("gamma-log-"), "session.jsonl");
    const { agent, faux, events, controller } = agentWith({ log });
    faux.setResponses([todo(STOPPED_AT_6), done("Here is your deck.")]);
    await agent.prompt("Make a deck about tide pools");
    const [audit] = audits(events);
    expect(audit).toMatchObject({ action: "reported", report: { outcome: "fail", workflows: ["deck-generation"] } });
    expect(audit?.report.findings.map((finding) => [finding.ruleId, finding.step])).toEqual([
      ["audit/required-step", 6],
      ["audit/verification-step", 7],
      ["audit/verification-step", 8],
      ["audit/verification-step", 9],
      ["audit/verification-step", 10],
      ["audit/verification-step", 11],
      ["audit/required-step", 12],
      ["audit/verification-step", 13],
      ["audit/required-step", 14],
    ]);
    expect(audit?.report.findings[1]?.message).toBe('Unexpected verification step 7 "Validate" of deck-generation not done (its task is pending), expected it complete before the final message');
    expect(events.find((event) => event.type === "yield")).toMatchObject({ audit: audit?.report });
    expect(controller.shouldStopAfterTurn()).toBe(true);
    // The session log: one JSON object per line; positions are its line numbers.
    const lines = readFileSync(log, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string });
    expect(lines.map((line) => line.type)).toEqual(["session", "tool_call", "tasks", "tool_call", "yield", "audit"]);
    expect(audit?.report.position).toBe(5);
    expect(audit?.report.findings[0]?.position).toBe(3);
  });

  it("block: the yield is refused with a tool error naming the missing steps, and the model finishes them", async () => {
    const { agent, faux, events } = agentWith({ audit: { mode: "block" } });
    const seen: SeenContext[] = [];
    faux.setResponses([todo(STOPPED_AT_6), done("Here is your deck."), seeing(seen, todo(FINISHED_DECK)), done("Here is your deck, validated and rendered.")]);
    await agent.prompt("Make a deck about tide pools");
    const refusal = seen[0]?.messages.at(-1);
    expect(refusal).toMatchObject({ role: "toolResult", toolName: "message_user", isError: true });
    expect(textOf(refusal)).toMatch(/^Completion audit failed: the final message was not sent\. 9 problems in the active workflow \(deck-generation\):\n- Unexpected required step 6 "Create the deck"/);
    expect(audits(events).map((event) => [event.action, event.report.outcome])).toEqual([
      ["blocked", "fail"],
      ["reported", "pass"],
    ]);
    expect(events.filter((event) => event.type === "yield")).toHaveLength(1);
    expect(faux.state.callCount).toBe(4);
  });

  it("block: a reply in plain text does not end the turn while the audit fails; the model is told the problems and ends with message_user", async () => {
    const { agent, faux, events } = agentWith({ audit: { mode: "block" } });
    const seen: SeenContext[] = [];
    faux.setResponses([todo(STOPPED_AT_6), fauxAssistantMessage("All done, bye."), seeing(seen, todo(FINISHED_DECK)), done("Here is your deck, validated and rendered.")]);
    await agent.prompt("Make a deck about tide pools");
    const reminder = seen[0]?.messages.at(-1);
    expect(textOf(reminder)).toMatch(/^Completion audit failed: a reply without message_user does not end the turn while a workflow is active\. 9 problems in the active workflow \(deck-generation\):\n- Unexpected required step 6 "Create the deck"/);
    expect(textOf(reminder)).toMatch(/then end the turn with message_user \(blockOnUser: true\)\.$/);
    expect(audits(events).map((event) => [event.action, event.report.outcome, event.toolCallId])).toEqual([
      ["blocked", "fail", ""],
      ["reported", "pass", expect.any(String)],
    ]);
    expect(events.filter((event) => event.type === "yield")).toHaveLength(1);
    expect(faux.state.callCount).toBe(4);
  });

  it("block holds a plain-text reply on the AgentSession path too", async () => {
    const { open, faux, events } = await blockingSessionWith({ variant: "deck-generation" });
    const seen: SeenContext[] = [];
    const before = faux.state.callCount;
    faux.setResponses([todo(STOPPED_AT_6), fauxAssistantMessage("All done, bye."), seeing(seen, todo(FINISHED_DECK)), done("Here is your deck, validated and rendered.")]);
    await open.session.prompt("Make a deck about tide pools");
    expect(textOf(seen[0]?.messages.at(-1))).toMatch(/^Completion audit failed: a reply without message_user does not end the turn while a workflow is active\./);
    expect(audits(events).map((event) => event.action)).toEqual(["blocked", "reported"]);
    expect(faux.state.callCount - before).toBe(4);
  });

  it("block on plain-text replies is bounded by maxBlocks, and report or a passing audit lets a plain reply end the run", async () => {
    const bounded = agentWith({ audit: { mode: "block", maxBlocks: 1 } });
    bounded.faux.setResponses([todo(STOPPED_AT_6), fauxAssistantMessage("Done."), fauxAssistantMessage("Really done.")]);
    await bounded.agent.prompt("Make a deck about tide pools");
    expect(audits(bounded.events).map((event) => event.action)).toEqual(["blocked"]);
    expect(bounded.faux.state.callCount).toBe(3);

    // One faux provider serves the test: count each agent's calls from where the last one left off.
    const reported = agentWith();
    let before = reported.faux.state.callCount;
    reported.faux.setResponses([todo(STOPPED_AT_6), fauxAssistantMessage("Done.")]);
    await reported.agent.prompt("Make a deck about tide pools");
    expect(audits(reported.events)).toEqual([]);
    expect(reported.faux.state.callCount - before).toBe(2);

    const finished = agentWith({ audit: { mode: "block" } });
    before = finished.faux.state.callCount;
    finished.faux.setResponses([todo(FINISHED_DECK), fauxAssistantMessage("Done.")]);
    await finished.agent.prompt("Make a deck about tide pools");
    expect(audits(finished.events)).toEqual([]);
    expect(finished.faux.state.callCount - before).toBe(2);
  });

  it("block is bounded: after maxBlocks refusals in a run the yield goes ahead with the failed audit attached", async () => {
    const { agent, faux, events } = agentWith({ audit: { mode: "block", maxBlocks: 1 } });
    faux.setResponses([todo(STOPPED_AT_6), done("Here is your deck."), done("Here is your deck, really.")]);
    await agent.prompt("Make a deck about tide pools");
    expect(audits(events).map((event) => event.action)).toEqual(["blocked", "reported"]);
    expect(events.find((event) => event.type === "yield")).toMatchObject({ message: "Here is your deck, really.", audit: { outcome: "fail" } });
  });

  it("names at most twenty of a large dist/'s skills when it refuses a policy naming another, and the closest one", () => {
    const skills = Array.from({ length: 30 }, (_, index) => `skill-${String(index).padStart(2, "0")}`);
    const refusal = () => checkAuditPolicy({ skills: { "skill-7": "block" } }, { skills, variants: ["base"] });
    expect(refusal).toThrow(AuditPolicyError);
    expect(refusal).toThrow(`Unexpected skill "skill-7" in audit.skills, expected a skill of dist/ (${skills.slice(0, 20).join(", ")}, and 10 more); did you mean "skill-07"?`);
  });

  it("refuses a policy a plain-JavaScript host got wrong when the agent is created, naming the option: a misspelt block never means report", () => {
    const modes = '"off", "report", "block"';
    const bad: Array<[unknown, new (message: string) => Error, string]> = [
      [{ mode: "blocking" }, TypeError, `Unexpected audit.mode "blocking", expected ${modes}`],
      [{ mode: "Block" }, TypeError, `Unexpected audit.mode "Block", expected ${modes}`],
      [{ variants: { import: "warn" } }, TypeError, `Unexpected audit.variants.import "warn", expected ${modes}`],
      [{ skills: { "deck-generation": true } }, TypeError, `Unexpected audit.skills.deck-generation true, expected ${modes}`],
      [{ skills: ["deck-generation"] }, TypeError, 'Unexpected audit.skills an array, expected an object of modes by skill name, such as { "deck-generation": "block" }'],
      [{ mode: "report", skills: { "deck-generaton": "block" } }, AuditPolicyError, `Unexpected skill "deck-generaton" in audit.skills, expected a skill of dist/ (${[...artifacts.skills.keys()].join(", ")}); did you mean "deck-generation"?`],
      [{ variants: { imports: "block" } }, AuditPolicyError, 'Unexpected variant "imports" in audit.variants, expected a variant of dist/ (base, deck-generation, import); did you mean "import"?'],
      [{ mode: "block", maxBlocks: -1 }, RangeError, "Unexpected audit.maxBlocks -1, expected an integer, 0 or more"],
      [{ mode: "block", maxBlocks: "1" }, RangeError, 'Unexpected audit.maxBlocks "1", expected an integer, 0 or more'],
      [{ mode: "block", maxBlocks: 1.5 }, RangeError, "Unexpected audit.maxBlocks 1.5, expected an integer, 0 or more"],
      ["block", TypeError, 'Unexpected audit "block", expected an object such as { mode: "block", maxBlocks: 2 }'],
    ];
    for (const [policy, type, message] of bad) {
      let thrown: unknown;
      try {
        agentWith({ audit: policy as AuditPolicy });
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(policy)).toBeInstanceOf(type);
      expect((thrown as Error).message).toBe(message);
    }
    for (const policy of [{}, { mode: "off" }, { mode: "block", maxBlocks: 0, variants: { import: "report" }, skills: { "deck-generation": "block" } }] as const) {
      expect(() => agentWith({ audit: policy as AuditPolicy }), JSON.stringify(policy)).not.toThrow();
    }
  });

  it("a per-skill setting wins over the variant's, and off runs no audit", async () => {
    const { agent, faux, events } = agentWith({ audit: { variants: { "deck-generation": "block" }, skills: { "deck-generation": "off" } } });
    faux.setResponses([todo(STOPPED_AT_6), done("Here is your deck.")]);
    await agent.prompt("Make a deck");
    expect(audits(events)).toEqual([]);
    expect(events.find((event) => event.type === "yield")).not.toHaveProperty("audit");
  });

  it("a yield that asks a blocking question (its task blocked, no deviation) pauses the workflow: outcome question", async () => {
    const { agent, faux, events } = agentWith();
    const asking = deckTasks({ 3: { status: "blocked", note: "Which audience: students or teachers?" }, 4: { status: "in_progress" }, ...Object.fromEntries([5, 6, 7, 8, 9, 10, 11, 12, 13, 14].map((n) => [n, { status: "pending" }])) });
    faux.setResponses([todo(asking), done("Is the deck for students or for teachers?")]);
    await agent.prompt("Make a deck for my class");
    expect(audits(events)[0]?.report).toMatchObject({ outcome: "question", findings: [] });
  });

  it("a task action before the workflow skill is loaded is a finding", async () => {
    const { agent, faux, events } = agentWith({ variant: "base" });
    faux.setResponses([
      toolUse(fauxToolCall("bash", { command: "ls uploads/" })),
      toolUse(fauxToolCall("skill", { name: "deck-generation" })),
      todo(FINISHED_DECK),
      done("Here is your deck."),
    ]);
    await agent.prompt("Make a deck about tide pools");
    expect(audits(events)[0]?.report.findings).toEqual([
      {
        ruleId: "audit/skill-after-action",
        severity: "error",
        message: 'Unexpected bash call before the workflow skill "deck-generation" was loaded, expected the skill loaded before the first task action',
        skill: "deck-generation",
        position: 2,
      },
    ]);
  });

  it("block refuses a yield only over what the model can still do: a task action before the workflow was loaded is reported, not blocked", async () => {
    const { open, faux, events } = await blockingSessionWith({ variant: "base" });
    const before = faux.state.callCount;
    faux.setResponses([
      toolUse(fauxToolCall("bash", { command: "ls uploads/" })),
      toolUse(fauxToolCall("skill", { name: "deck-generation" })),
      todo(FINISHED_DECK),
      done("Here is your deck."),
      done("Here is your deck, again."),
      done("Here is your deck, once more."),
    ]);
    await open.session.prompt("Make a deck about tide pools");
    // Every step is done: the past bash call cannot be undone, so the first yield goes out with the failed audit attached.
    expect(audits(events).map((event) => [event.action, event.report.outcome, event.report.findings.map((finding) => finding.ruleId)])).toEqual([
      ["reported", "fail", ["audit/skill-after-action"]],
    ]);
    expect(yields(events)).toEqual(["Here is your deck."]);
    expect(events.find((event) => event.type === "yield")).toMatchObject({ audit: { outcome: "fail" } });
    expect(faux.state.callCount - before).toBe(4);
  });

  it("block names only the steps still to do; the finding about a past call stays in the report", async () => {
    const { agent, faux, events } = agentWith({ variant: "base", audit: { mode: "block" } });
    const seen: SeenContext[] = [];
    faux.setResponses([
      toolUse(fauxToolCall("bash", { command: "ls uploads/" })),
      toolUse(fauxToolCall("skill", { name: "deck-generation" })),
      todo(STOPPED_AT_6),
      done("Here is your deck."),
      seeing(seen, todo(FINISHED_DECK)),
      done("Here is your deck, validated and rendered."),
      done("Here is your deck, really."),
    ]);
    await agent.prompt("Make a deck about tide pools");
    const refusal = textOf(seen[0]?.messages.at(-1));
    expect(refusal).toMatch(/^Completion audit failed: the final message was not sent\. 9 problems in the active workflow \(deck-generation\):\n- Unexpected required step 6 "Create the deck"/);
    expect(refusal).not.toContain("bash");
    expect(audits(events).map((event) => [event.action, event.report.findings.map((finding) => finding.ruleId)])).toEqual([
      ["blocked", ["audit/skill-after-action", ...Array<string>(9).fill(expect.stringMatching(/^audit\/(required|verification)-step$/))]],
      ["reported", ["audit/skill-after-action"]],
    ]);
    expect(yields(events)).toEqual(["Here is your deck, validated and rendered."]);
    expect(faux.state.callCount).toBe(6);
  });

  it("block does not refuse a yield over a call that went ahead without a required skill, loaded later", async () => {
    const { open, faux, events } = await blockingSessionWith({ variant: "base", invocation: { maxRefusals: 1 } });
    open.controller.requireSkills(["deck-generation"]);
    const before = faux.state.callCount;
    faux.setResponses([
      toolUse(fauxToolCall("bash", { command: "ls uploads/" })),
      toolUse(fauxToolCall("bash", { command: "ls uploads/" })),
      toolUse(fauxToolCall("skill", { name: "deck-generation" })),
      todo(FINISHED_DECK),
      done("Here is your deck."),
      done("Here is your deck, again."),
      done("Here is your deck, once more."),
    ]);
    await open.session.prompt("Make a deck about tide pools");
    expect(audits(events).map((event) => [event.action, event.report.outcome, event.report.findings.map((finding) => finding.ruleId)])).toEqual([
      ["reported", "fail", ["audit/skill-after-action", "audit/required-skill"]],
    ]);
    expect(yields(events)).toEqual(["Here is your deck."]);
    expect(faux.state.callCount - before).toBe(5);
  });

  it("knowledge hints in context and none fetched: a warning that does not fail the audit", async () => {
    const { agent, faux, events } = agentWith();
    const hints = createTrustedMessage({
      kind: KNOWLEDGE_HINTS_KIND,
      content: '<knowledge_hints>\n  <knowledge id="note-brand-images" scope="workspace">Brand image rules</knowledge>\n</knowledge_hints>',
      details: {},
      timestamp: 1,
    });
    faux.setResponses([todo(FINISHED_DECK), done("Here is your deck.")]);
    await agent.prompt([{ role: "user", content: [{ type: "text", text: "Make a deck" }], timestamp: 1 }, hints]);
    const report = audits(events)[0]?.report;
    expect(report?.outcome).toBe("pass");
    expect(report?.findings.map((finding) => finding.ruleId)).toEqual(["audit/knowledge-not-fetched"]);
  });

  it("a hints block in anything but the runtime's own hints message (a tool's output, a host's note) shows no hints: nothing to fetch", async () => {
    const block = '<knowledge_hints>\n  <knowledge id="note-brand-images" scope="workspace">Brand image rules</knowledge>\n</knowledge_hints>';
    const events: ProtocolEvent[] = [];
    const faux = pi.faux();
    const gamma = pi.disposeAfterTest(
      createGammaAgent({
        artifacts,
        variant: "deck-generation",
        model: faux.getModel(),
        executors: { ...recordingExecutors(), bash: async () => ({ content: [{ type: "text", text: block }] }) },
        onProtocolEvent: (event) => events.push(event),
        ...NO_KNOWLEDGE_HINTS,
      }),
    );
    const note = createTrustedMessage({ kind: "system_note", content: block, details: {}, timestamp: 1 });
    faux.setResponses([toolUse(fauxToolCall("bash", { command: "cat notes.md" })), todo(FINISHED_DECK), done("Here is your deck.")]);
    await gamma.agent.prompt([{ role: "user", content: [{ type: "text", text: "Make a deck" }], timestamp: 1 }, note]);
    expect(audits(events).map((event) => [event.report.outcome, event.report.findings.map((finding) => finding.ruleId)])).toEqual([["pass", []]]);
  });
});
