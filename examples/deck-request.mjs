// Drives a real Pi Agent through a deck request on the compiled runtime
// (lib/) and prints the transcript: the skill load, task updates, a progress
// message and the final yield.
//
//   npm run example                      scripted model (Pi's faux provider, no key)
//   OPENAI_API_KEY=... npm run example   a real model (OPENAI_MODEL, default gpt-4.1-mini)
//   GAMMA_DIST=path/to/dist              another dist/ than the package's own
import { fauxAssistantMessage, fauxToolCall, getModel, registerFauxProvider } from "@earendil-works/pi-ai/compat";
import { createGammaAgent, loadArtifacts } from "../lib/runtime/index.js";

const REQUEST = "Make a short deck about tide pools for a 4th-grade class.";

const artifacts = loadArtifacts(process.env.GAMMA_DIST ? { distDir: process.env.GAMMA_DIST } : {});
const real = Boolean(process.env.OPENAI_API_KEY);
const faux = real ? undefined : registerFauxProvider();
const model = real ? getModel("openai", process.env.OPENAI_MODEL ?? "gpt-4.1-mini") : faux.getModel();

// The host's tools, in memory: a tiny workspace and a pretend `gml` CLI.
const files = new Map();
const text = (value) => ({ content: [{ type: "text", text: value }] });
const executors = {
  read: async (_id, { path }) => (files.has(path) ? text(files.get(path)) : Promise.reject(new Error(`No such file: ${path}`))),
  write: async (_id, { path, content }) => (files.set(path, content), text(`Wrote ${content.length} characters to ${path}.`)),
  edit: async (_id, { path }) => text(`Edited ${path}.`),
  bash: async (_id, { command }) =>
    text(command.startsWith("gml validate") ? "deck.gml: 5 cards, 0 errors" : command.startsWith("gml render") ? "Rendered 5 cards to render/" : `$ ${command}`),
  subagent: async (_id, { task }) => text(`Subagent finished: ${task}`),
  show_gamma: async (_id, { ref }) => text(`Showing ${ref} to the user.`),
  show_file: async (_id, { path }) => text(`Showing ${path} to the user.`),
};

const events = [];
const { agent, controller } = createGammaAgent({
  artifacts,
  variant: "base",
  model,
  executors,
  onProtocolEvent: (event) => events.push(event),
  ...(real ? { getApiKey: () => process.env.OPENAI_API_KEY } : {}),
});

if (faux) {
  const tasks = (active) =>
    ["Outline the deck", "Write the cards", "Render and verify", "Present the deck"].map((title, index) => ({
      id: `t${index + 1}`,
      title,
      status: index < active ? "complete" : index === active ? "in_progress" : "pending",
    }));
  const step = (...calls) => fauxAssistantMessage(calls, { stopReason: "toolUse" });
  faux.setResponses([
    step(
      fauxToolCall("skill", { name: "deck-generation" }),
      fauxToolCall("message_user", { message: "On it: planning a five-card deck on tide pools.", blockOnUser: false }),
    ),
    step(fauxToolCall("todo", { tasks: tasks(0) })),
    step(fauxToolCall("write", { path: "deck.gml", content: "<deck title=\"Tide Pools\">…</deck>\n" }), fauxToolCall("todo", { tasks: tasks(1) })),
    step(fauxToolCall("bash", { command: "gml validate deck.gml" }), fauxToolCall("bash", { command: "gml render deck.gml --out render/" })),
    step(fauxToolCall("todo", { tasks: tasks(3) })),
    step(fauxToolCall("show_gamma", { ref: "gamma:file:deck.gml" })),
    step(fauxToolCall("todo", { tasks: tasks(4) })),
    step(
      fauxToolCall("message_user", {
        message: "Your tide pools deck is ready: 5 cards, validated and rendered. Want a quiz card at the end?",
        blockOnUser: true,
      }),
    ),
  ]);
}

const clip = (value, max = 90) => {
  const line = String(value).replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};
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
      console.log(`  result   todo: revision ${revision}: ${items.map((task) => `${task.id} ${task.status}`).join(", ")}`);
    } else if (event.toolName === "skill" && !event.isError && !event.result.details.alreadyActive) {
      const [loaded, ...required] = event.result.details.activated.map((skill) => skill.name);
      const chars = event.result.content[0]?.text.length ?? 0;
      console.log(`  result   skill: body of ${loaded} (${chars} chars)${required.length ? ` + required ${required.join(", ")}` : ""}`);
    } else {
      console.log(`  ${event.isError ? "error " : "result"}   ${event.toolName}: ${clip(output, 100)}`);
    }
  }
});

console.log(`model      ${model.provider}/${model.id}   variant base   prompt ${artifacts.variants.base.length} chars`);
console.log(`user       ${REQUEST}`);
await agent.prompt(controller.buildTurnMessages({ text: REQUEST }));

console.log("\nprotocol events");
for (const event of events) {
  const { type, toolCallId: _id, ...rest } = event;
  console.log(`  ${type.padEnd(16)} ${clip(JSON.stringify(rest), 100)}`);
}
const state = controller.state;
console.log("\nstate after the run");
console.log(`  active skills  ${state.activeSkills.map((skill) => `${skill.name} (${skill.type}, ${skill.activatedBy})`).join(", ")}`);
console.log(`  tasks rev ${state.tasks.revision}    ${state.tasks.items.map((task) => `${task.id}:${task.status}`).join(" ")}`);
console.log(`  run ended by   ${controller.run.yielded ? "yield (message_user blockOnUser: true)" : "the model stopping"}`);
faux?.unregister();
