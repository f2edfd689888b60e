import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { build } from "../../src/build.js";
import { init } from "../../src/init.js";
import { auditTranscript } from "../../src/runtime/audit/audit.js";
import { readSessionLogText } from "../../src/runtime/audit/readers.js";
import { FileSessionLog } from "../../src/runtime/audit/recorder.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { SessionProtocolController } from "../../src/runtime/controller.js";
import type { InvocationPolicy } from "../../src/runtime/invocation/required-skills.js";
import { createGammaAgent, createGammaSession } from "../../src/runtime/pi-adapter.js";
import { FileStateStore } from "../../src/runtime/state.js";
import type { VariantName } from "../../src/protocol/dist-manifest.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { FINISHED_DECK } from "./helpers/checklist.js";
import { prepareDist, tempDir } from "./helpers/dist.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxPerTest, fauxSessionSetup, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";

const pi = fauxPerTest();
const artifacts = loadArtifacts({ distDir: prepareDist() });

function agentWith(options: { variant?: VariantName; invocation?: InvocationPolicy; log?: string; store?: FileStateStore } = {}) {
  const events: ProtocolEvent[] = [];
  const calls: string[] = [];
  const faux = pi.faux();
  const gamma = createGammaAgent({
    artifacts,
    variant: options.variant ?? "base",
    model: faux.getModel(),
    executors: recordingExecutors(calls),
    onProtocolEvent: (event) => events.push(event),
    ...(options.invocation === undefined ? {} : { invocation: options.invocation }),
    ...(options.log === undefined ? {} : { sessionLog: new FileSessionLog(options.log) }),
    ...(options.store === undefined ? {} : { store: options.store }),
    ...NO_KNOWLEDGE_HINTS,
  });
  pi.disposeAfterTest(gamma);
  return { ...gamma, faux, events, calls };
}

const bash = (command: string) => toolUse(fauxToolCall("bash", { command }));
const loadSkill = (name: string) => toolUse(fauxToolCall("skill", { name }));
const enforcement = (events: ProtocolEvent[]) => events.flatMap((event) => (event.type === "required_skills" ? [[event.action, event.tool, event.missing.join(" ")]] : []));
const REFUSAL = 'Refused: this request requires the skill "deck-generation", not loaded yet. Load it first with skill({"name": "deck-generation"}), then call bash again.';

describe("invocation enforcement: a turn that requires a skill", () => {
  it("refuses a task action with a tool error naming the skill, lets the skill tool, reads and progress through, and the run goes on", async () => {
    const { agent, controller, faux, events, calls } = agentWith();
    const seen: SeenContext[] = [];
    faux.setResponses([
      toolUse(fauxToolCall("read", { path: "uploads/notes.md" }), fauxToolCall("message_user", { message: "Looking at your notes.", blockOnUser: false }), fauxToolCall("bash", { command: "ls uploads" })),
      seeing(seen, loadSkill("deck-generation")),
      bash("ls uploads"),
      fauxAssistantMessage("Listed."),
    ]);
    await agent.prompt(controller.buildTurnMessages({ text: "New deck: tide pools", requiredSkills: ["deck-generation"] }));
    const results = (seen[0]?.messages ?? []).filter((message) => message.role === "toolResult");
    expect(results.map((result) => [result.toolName, result.isError])).toEqual([
      ["read", false],
      ["message_user", false],
      ["bash", true],
    ]);
    expect(textOf(results[2])).toBe(REFUSAL);
    // The refused bash never reached the host; the second one did, after the skill loaded.
    expect(calls).toEqual(["read", "bash"]);
    expect(enforcement(events)).toEqual([["refused", "bash", "deck-generation"]]);
    expect(controller.missingRequiredSkills).toEqual([]);
  });

  it("is bounded like the audit's block mode: after maxRefusals the call goes ahead, and the violation is recorded and audited", async () => {
    const log = join(tempDir("gamma-required-"), "session.jsonl");
    const { agent, controller, faux, events, calls } = agentWith({ log, invocation: { maxRefusals: 1 } });
    faux.setResponses([bash("gml new deck.gml"), bash("gml new deck.gml"), toolUse(fauxToolCall("message_user", { message: "Made a deck.", blockOnUser: true }))]);
    await agent.prompt(controller.buildTurnMessages({ text: "New deck", requiredSkills: ["deck-generation"] }));
    expect(enforcement(events)).toEqual([
      ["refused", "bash", "deck-generation"],
      ["violated", "bash", "deck-generation"],
      ["violated", "message_user", "deck-generation"],
    ]);
    expect(calls).toEqual(["bash"]);
    // The live audit at the yield reports it, though no workflow is active.
    const audit = events.find((event) => event.type === "audit");
    expect(audit).toMatchObject({ action: "reported", report: { outcome: "fail", workflows: [] } });
    expect(audit?.type === "audit" && audit.report.findings.map((finding) => [finding.ruleId, finding.position])).toEqual([
      ["audit/required-skill", 6],
      ["audit/required-skill", 8],
    ]);
    // The offline audit of the session log finds the same.
    const transcript = readSessionLogText(readFileSync(log, "utf8"));
    expect(transcript.events.map((event) => event.type)).toEqual(["session", "skills_required", "tool_call", "tool_refused", "tool_call", "requirement_unmet", "tool_call", "requirement_unmet", "yield"]);
    const [offline] = auditTranscript(transcript.events, artifacts.skills);
    expect(offline?.findings).toEqual(audit?.type === "audit" ? audit.report.findings : []);
    expect(offline?.findings[0]?.message).toBe('Unexpected bash call while the required skill "deck-generation" was not loaded, expected the skills the host requires for this request loaded before any task action');
  });

  it("a refused call is not the first task action: loading the workflow after a refusal passes the completion audit", async () => {
    const { agent, controller, faux, events } = agentWith();
    faux.setResponses([
      bash("ls uploads"),
      loadSkill("deck-generation"),
      toolUse(fauxToolCall("todo", { tasks: FINISHED_DECK })),
      toolUse(fauxToolCall("message_user", { message: "Your deck is ready.", blockOnUser: true })),
    ]);
    await agent.prompt(controller.buildTurnMessages({ text: "New deck", requiredSkills: ["deck-generation"] }));
    expect(enforcement(events)).toEqual([["refused", "bash", "deck-generation"]]);
    expect(events.find((event) => event.type === "audit")).toMatchObject({ report: { outcome: "pass", findings: [] } });
  });

  it("a refused yield does not end the run: the model loads the skill and its next message goes out", async () => {
    const { agent, controller, faux, events } = agentWith();
    const seen: SeenContext[] = [];
    faux.setResponses([
      toolUse(fauxToolCall("message_user", { message: "Which topic?", blockOnUser: true })),
      seeing(seen, loadSkill("deck-generation")),
      toolUse(fauxToolCall("message_user", { message: "Which topic should the deck cover?", blockOnUser: true })),
    ]);
    await agent.prompt(controller.buildTurnMessages({ text: "New deck", requiredSkills: ["deck-generation"] }));
    const refusal = (seen[0]?.messages ?? []).at(-1);
    expect(refusal).toMatchObject({ role: "toolResult", toolName: "message_user", isError: true });
    expect(textOf(refusal)).toContain('requires the skill "deck-generation"');
    expect(events.filter((event) => event.type === "yield").map((event) => event.type === "yield" && event.message)).toEqual(["Which topic should the deck cover?"]);
    expect(faux.state.callCount).toBe(3);
  });

  it("ends with its turn: the next turn requires nothing", async () => {
    const { agent, controller, faux, events } = agentWith();
    faux.setResponses([fauxAssistantMessage("Which topic?")]);
    await agent.prompt(controller.buildTurnMessages({ text: "New deck", requiredSkills: ["deck-generation"] }));
    expect(controller.state.requiredSkills).toEqual([]);
    faux.setResponses([bash("ls"), fauxAssistantMessage("Listed.")]);
    await agent.prompt(controller.buildTurnMessages({ text: "List the files" }));
    expect(enforcement(events)).toEqual([]);
  });
});

describe("invocation enforcement: session and variant rules", () => {
  it("a variant's rule applies to every turn of its sessions; a preloaded skill satisfies it", async () => {
    const policy: InvocationPolicy = { variants: { base: ["gml-editing"], "deck-generation": ["deck-generation"] } };
    const { agent, faux, events } = agentWith({ invocation: policy });
    faux.setResponses([bash("gml validate deck.gml"), fauxAssistantMessage("Stopped.")]);
    await agent.prompt("Fix card 3");
    expect(enforcement(events)).toEqual([["refused", "bash", "gml-editing"]]);
    const preloaded = agentWith({ variant: "deck-generation", invocation: policy });
    preloaded.faux.setResponses([bash("gml new deck.gml"), fauxAssistantMessage("Started.")]);
    await preloaded.agent.prompt("Make a deck");
    expect(enforcement(preloaded.events)).toEqual([]);
  });

  it("requireSkills(…, 'session') lasts beyond the turn; an unknown skill is refused at once", async () => {
    const { agent, controller, faux, events } = agentWith();
    controller.requireSkills(["import"], "session");
    faux.setResponses([fauxAssistantMessage("ok")]);
    await agent.prompt("hello");
    faux.setResponses([bash("ls uploads"), fauxAssistantMessage("Stopped.")]);
    await agent.prompt("Import my slides");
    expect(enforcement(events)).toEqual([["refused", "bash", "import"]]);
    expect(() => controller.requireSkills(["deck-generatio"])).toThrow('Unexpected required skill "deck-generatio", expected a skill of dist/');
  });

  it("refuses at once requirements that can never all be met: required skills that conflict, or one that conflicts with an active skill", async () => {
    const { agent, controller, faux } = agentWith();
    const conflicting = 'Unexpected required skills "deck-generation", "import": "deck-generation" and "import" conflict, so they can never all be active';
    expect(() => controller.requireSkills(["deck-generation", "import"], "session")).toThrow(conflicting);
    expect(() => controller.buildTurnMessages({ text: "New deck from my slides", requiredSkills: ["deck-generation", "import"] })).toThrow(conflicting);
    controller.requireSkills(["import"], "session");
    expect(() => controller.requireSkills(["deck-generation"])).toThrow('Unexpected required skills "import", "deck-generation": "deck-generation" and "import" conflict');
    expect(controller.state.requiredSkills).toEqual([{ name: "import", scope: "session" }]);

    const loaded = agentWith();
    loaded.faux.setResponses([loadSkill("import"), fauxAssistantMessage("Loaded.")]);
    await loaded.agent.prompt("Import my slides");
    expect(() => loaded.controller.requireSkills(["deck-generation"])).toThrow('Unexpected required skills "deck-generation": "deck-generation" conflicts with the active skill "import", so they can never all be active');
    expect(loaded.controller.state.requiredSkills ?? []).toEqual([]);

    const preloaded = agentWith({ variant: "deck-generation" });
    expect(() => preloaded.controller.requireSkills(["import"])).toThrow('Unexpected required skills "import": "import" conflicts with the active skill "deck-generation"');
    expect(() => agentWith({ variant: "deck-generation", invocation: { variants: { "deck-generation": ["import"] } } })).toThrow(
      'Unexpected required skills "import": "import" conflicts with the active skill "deck-generation"',
    );
    expect(() => agentWith({ invocation: { session: ["deck-generation", "import"] } })).toThrow(conflicting);
    faux.setResponses([fauxAssistantMessage("ok")]);
    await agent.prompt("hello");
  });

  it("survives a reload from disk and compaction: the anchor names the skill to load", async () => {
    const path = join(tempDir("gamma-required-state-"), "state.jsonl");
    const first = new SessionProtocolController({ artifacts, variant: "base", store: new FileStateStore(path) });
    first.requireSkills(["deck-generation"], "turn");
    first.close();
    const { agent, controller, faux, events } = agentWith({ store: new FileStateStore(path) });
    expect(controller.state.requiredSkills).toEqual([{ name: "deck-generation", scope: "turn" }]);
    agent.state.messages = controller.restoreContext([]);
    const anchor = textOf(agent.state.messages.at(-1) as never);
    expect(anchor).toContain("<required_skills>\nThis request requires these skills; load each with the skill tool before any task action:\n- deck-generation\n</required_skills>");
    faux.setResponses([bash("ls uploads"), fauxAssistantMessage("Stopped.")]);
    await agent.prompt("continue");
    expect(enforcement(events)).toEqual([["refused", "bash", "deck-generation"]]);
  });

  it("holds on the AgentSession path too", async () => {
    const faux = pi.faux();
    const events: ProtocolEvent[] = [];
    const open = await createGammaSession({ artifacts, variant: "base", executors: recordingExecutors(), onProtocolEvent: (event) => events.push(event), ...(await fauxSessionSetup(faux)), ...NO_KNOWLEDGE_HINTS });
    pi.disposeAfterTest(open);
    open.controller.requireSkills(["deck-generation"]);
    faux.setResponses([bash("ls uploads"), loadSkill("deck-generation"), bash("ls uploads"), fauxAssistantMessage("Listed.")]);
    await open.session.prompt("New deck: tide pools");
    expect(enforcement(events)).toEqual([["refused", "bash", "deck-generation"]]);
    expect(open.controller.state.requiredSkills).toEqual([]);
  });
});

describe("invocation enforcement: a project's rule for a variant (require in prompts/variants.yaml)", () => {
  it("compiles into the manifest and holds at run time; an unknown skill is variant/unknown-skill", async () => {
    const root = join(tempDir("gamma-required-project-"), "my-agent");
    await init({ dir: root });
    const variants = join(root, "prompts", "variants.yaml");
    writeFileSync(variants, "variants:\n  base:\n    preload: []\n    require: [draft-outline]\n");
    const built = await build({ root });
    expect(built.diagnostics).toEqual([]);
    const project = loadArtifacts({ distDir: join(root, "dist") });
    expect(project.manifest.variants.base?.requiredSkills).toEqual(["draft-outline"]);
    const events: ProtocolEvent[] = [];
    const faux = pi.faux();
    const gamma = createGammaAgent({ artifacts: project, variant: "base", model: faux.getModel(), executors: recordingExecutors([], ["read", "bash", "write", "edit"]), onProtocolEvent: (event) => events.push(event) });
    pi.disposeAfterTest(gamma);
    faux.setResponses([bash("ls"), loadSkill("draft-outline"), bash("ls"), fauxAssistantMessage("Listed.")]);
    await gamma.agent.prompt("Outline a talk about tide pools");
    expect(enforcement(events)).toEqual([["refused", "bash", "draft-outline"]]);

    writeFileSync(variants, "variants:\n  base:\n    preload: []\n    require: [draft-outlin]\n");
    const refused = await build({ root });
    expect(refused.diagnostics.map((diagnostic) => [diagnostic.ruleId, diagnostic.line, diagnostic.message])).toEqual([
      ["variant/unknown-skill", 4, "Unexpected skill `draft-outlin` in variant `base` (no skill has that name), expected the name of a valid skill; did you mean \"draft-outline\"?"],
    ]);
  });
});
