// The deck request the examples run: the host's tools (a tiny in-memory
// workspace and a pretend `gml` CLI), the scripted model of an agent that
// follows the deck-generation workflow and of one that skips a step, and the
// printing of a run's transcript and completion audit.
import { checklistProgress } from "../lib/runtime/index.js";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat";

export const REQUEST = "Make a short deck about tide pools for a 4th-grade class.";
export const WORKFLOW = "deck-generation";

/** The host's tools (and the workspace they work on) and the scripted runs for `artifacts` (the workflow's steps come from its compiled checklist). */
export function deckRequest(artifacts) {
  const steps = artifacts.skills.get(WORKFLOW)?.steps ?? [];
  // The host's tools, in memory: a tiny workspace and a pretend `gml` CLI.
  const files = new Map([["render/report.json", '{"cards": 5, "defects": []}\n']]);
  const text = (value) => ({ content: [{ type: "text", text: value }] });
  const GML = [
    ["gml validate", "deck.gml: 5 cards, 0 errors"],
    ["gml render", "Rendered 5 cards to render/; report in render/report.json"],
    ["gml publish", "Published gamma:file:deck.gml"],
  ];
  const executors = {
    read: async (_id, { path }) => (files.has(path) ? text(files.get(path)) : Promise.reject(new Error(`No such file: ${path}`))),
    write: async (_id, { path, content }) => (files.set(path, content), text(`Wrote ${content.length} characters to ${path}.`)),
    edit: async (_id, { path }) => text(`Edited ${path}.`),
    bash: async (_id, { command }) => text(GML.find(([prefix]) => command.startsWith(prefix))?.[1] ?? `$ ${command}`),
    subagent: async (_id, { task }) => text(`Subagent finished: ${task}`),
    show_gamma: async (_id, { ref }) => text(`Showing ${ref} to the user.`),
    show_file: async (_id, { path }) => text(`Showing ${path} to the user.`),
  };

  // ---- the scripted model: a good agent, then one that skips a step ----------------------

  const step = (...calls) => fauxAssistantMessage(calls, { stopReason: "toolUse" });
  const call = (name, args) => fauxToolCall(name, args);
  /** Reasons for steps done without work of their own: the skills ask for a note on each. */
  const NOTES = {
    3: "Topic-only request: nothing blocks; defaults taken",
    4: "General knowledge suitable for 4th grade; no outside facts needed",
    9: "The render report lists no defects",
    11: "No figures or quotes: general knowledge only",
  };
  /** One task per checklist step, each naming its step: steps before `current` complete, `current` in progress; `omitted` steps get no task. */
  const plan = (current, { omitted = [] } = {}) =>
    steps
      .filter(({ number }) => !omitted.includes(number))
      .map(({ number, title }) => ({
        id: `s${number}`,
        title,
        step: `${WORKFLOW}#${number}`,
        status: number < current ? "complete" : number === current ? "in_progress" : "pending",
        ...(number < current && NOTES[number] ? { note: NOTES[number] } : {}),
      }));
  const loadAndRead = [
    step(call("skill", { name: WORKFLOW }), call("message_user", { message: "On it: planning a five-card deck on tide pools.", blockOnUser: false })),
    // The knowledge hints that came with the request are BLOCKING: read them before the first task action.
    step(call("read_workspace_rule", { knowledgeId: "brand-images" }), call("read_workspace_rule", { knowledgeId: "deck-typography" })),
  ];
  const FOLLOWS_THE_WORKFLOW = [
    ...loadAndRead,
    step(call("todo", { tasks: plan(5) }), call("write", { path: "brief.xml", content: '<brief topic="Tide pools" audience="4th grade" cards="5"/>\n' })),
    step(call("todo", { tasks: plan(6) }), call("write", { path: "deck.gml", content: '<deck title="Tide Pools">…</deck>\n' })),
    step(call("todo", { tasks: plan(7) }), call("bash", { command: "gml validate deck.gml" })),
    step(call("todo", { tasks: plan(8) }), call("bash", { command: "gml render deck.gml --out render/" }), call("read", { path: "render/report.json" })),
    step(call("todo", { tasks: plan(10) }), call("read", { path: "brief.xml" })),
    step(call("todo", { tasks: plan(12) }), call("bash", { command: "gml publish deck.gml" }), call("show_gamma", { ref: "gamma:file:deck.gml" })),
    step(call("todo", { tasks: plan(15) })),
    step(call("message_user", { message: "Your tide pools deck is ready: 5 cards, validated, rendered and checked against the brief. Want a quiz card at the end?", blockOnUser: true })),
  ];
  /** The second run: the same request, but the model never plans step 8 (render and inspect) and says it is done. */
  const SKIPS_A_STEP = [
    ...loadAndRead,
    step(call("todo", { tasks: plan(6, { omitted: [8] }) }), call("write", { path: "deck.gml", content: '<deck title="Tide Pools">…</deck>\n' })),
    step(call("bash", { command: "gml validate deck.gml" })),
    step(call("todo", { tasks: plan(15, { omitted: [8] }) })),
    step(call("message_user", { message: "Your tide pools deck is ready: 5 cards.", blockOnUser: true })),
  ];


  return { files, executors, FOLLOWS_THE_WORKFLOW, SKIPS_A_STEP };
}

export const clip = (value, max = 90) => {
  const line = String(value).replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

export function printTranscript(agent) {
  agent.subscribe((event) => {
    if (event.type === "message_end" && event.message.role === "assistant") {
      for (const part of event.message.content) {
        if (part.type === "text" && part.text.trim()) console.log(`assistant  ${clip(part.text)}`);
        if (part.type !== "toolCall") continue;
        const args = part.name === "todo" ? `${part.arguments.tasks?.length ?? 0} tasks` : clip(JSON.stringify(part.arguments), part.name === "message_user" ? 200 : 80);
        console.log(`  call     ${part.name}(${args})`);
      }
    }
    if (event.type === "tool_execution_end") {
      const output = event.result.content?.map((part) => part.text ?? "").join(" ") ?? "";
      if (event.toolName === "todo" && !event.isError) {
        const { revision, items } = event.result.details.tasks;
        const by = (status) => items.filter((task) => task.status === status).length;
        console.log(`  result   todo: revision ${revision}: ${by("complete")} complete, ${by("in_progress")} in progress, ${by("pending")} pending`);
      } else if (event.toolName === "skill" && !event.isError && !event.result.details.alreadyActive) {
        const [loaded, ...required] = event.result.details.activated.map((skill) => skill.name);
        const chars = event.result.content[0]?.text.length ?? 0;
        console.log(`  result   skill: body of ${loaded} (${chars} chars)${required.length ? ` + required ${required.join(", ")}` : ""}`);
      } else {
        console.log(`  ${event.isError ? "error " : "result"}   ${event.toolName}: ${clip(output, 100)}`);
      }
    }
  });
}

export /** The completion audit of the run's final yield, in words. */
function verdict(events, controller, artifacts) {
  const report = events.find((event) => event.type === "yield")?.audit;
  if (report === undefined) return ["completion audit: none ran (no workflow with a checklist was active at the final message)"];
  const hinted = events.filter((event) => event.type === "knowledge_hinted").flatMap((event) => event.notes.map((note) => note.id));
  const read = events.filter((event) => event.type === "knowledge_loaded").map((event) => event.id);
  if (report.outcome === "pass") {
    const lines = ["completion audit: PASSED"];
    for (const workflow of report.workflows) {
      const { counts } = checklistProgress(workflow, artifacts.skills.get(workflow)?.steps ?? [], controller.state.tasks.items);
      const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
      lines.push(`  ${workflow}: all ${total} steps accounted for, ${counts.complete} complete and ${counts.skipped} optional skipped with a reason`);
    }
    lines.push("  the workflow was loaded before the first task action");
    if (hinted.length > 0) lines.push(`  the hinted knowledge was read: ${read.join(", ")}`);
    return lines;
  }
  const errors = report.findings.filter((finding) => finding.severity === "error");
  return [
    `completion audit: ${report.outcome === "fail" ? "FAILED" : "a question to the user (the workflow is paused)"}, ${errors.length} problem${errors.length === 1 ? "" : "s"}`,
    ...report.findings.map((finding) => `  ${finding.severity === "error" ? "✗" : "!"} ${finding.ruleId}: ${finding.message}`),
    "  Under the default \"report\" policy the final message still went out and the host got this report;",
    '  with audit: { mode: "block" } the message would have been refused and the model sent back to the step.',
  ];
}

