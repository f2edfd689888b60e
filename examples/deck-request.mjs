// Drives a real Pi Agent through a deck request on the compiled runtime
// (lib/) and prints the transcript: the skill load, the hinted knowledge
// fetched, one task per checklist step, the verification steps, the final
// yield, and the completion audit's verdict in words. With the scripted
// model a second, short run shows the audit catching a skipped step.
//
//   npm run example                      scripted model (Pi's faux provider, no key)
//   OPENAI_API_KEY=... npm run example   a real model (OPENAI_MODEL, default gpt-4.1-mini)
//   GAMMA_DIST=path/to/dist              another dist/ than the package's own
import { getModel, registerFauxProvider } from "@earendil-works/pi-ai/compat";
import { createGammaAgent, loadArtifacts } from "../lib/runtime/index.js";
import { clip, deckRequest, printTranscript, REQUEST, verdict } from "./deck-workflow.mjs";

const artifacts = loadArtifacts(process.env.GAMMA_DIST ? { distDir: process.env.GAMMA_DIST } : {});
const real = Boolean(process.env.OPENAI_API_KEY);
const faux = real ? undefined : registerFauxProvider();
const model = real ? getModel("openai", process.env.OPENAI_MODEL ?? "gpt-4.1-mini") : faux.getModel();
const { executors, FOLLOWS_THE_WORKFLOW, SKIPS_A_STEP } = deckRequest(artifacts);

async function run({ title, script }) {
  const events = [];
  const { agent, controller, dispose } = createGammaAgent({
    artifacts,
    variant: "base",
    model,
    executors,
    onProtocolEvent: (event) => events.push(event),
    ...(real ? { getApiKey: () => process.env.OPENAI_API_KEY } : {}),
  });
  if (faux) faux.setResponses(script);
  printTranscript(agent);
  console.log(title);
  console.log(`model      ${model.provider}/${model.id}   variant base   prompt ${artifacts.variants.base.length} chars`);
  console.log(`user       ${REQUEST}`);
  await agent.prompt(controller.buildTurnMessages({ text: REQUEST }));
  console.log("");
  for (const line of verdict(events, controller, artifacts)) console.log(line);
  dispose();
  return { events, controller };
}

// ---- the runs ---------------------------------------------------------------------------

const first = await run({ title: "run 1: the agent follows the deck workflow", script: FOLLOWS_THE_WORKFLOW });

console.log("\nprotocol events");
for (const event of first.events) {
  const { type, toolCallId: _id, ...rest } = event;
  console.log(`  ${type.padEnd(18)} ${clip(JSON.stringify(rest), 100)}`);
}
const state = first.controller.state;
console.log("\nstate after the run");
console.log(`  active skills  ${state.activeSkills.map((skill) => `${skill.name} (${skill.type}, ${skill.activatedBy})`).join(", ")}`);
console.log(`  tasks rev ${state.tasks.revision}    ${state.tasks.items.map((task) => `${task.id}:${task.status}`).join(" ")}`);
console.log(`  run ended by   ${first.controller.run.yielded ? "yield (message_user blockOnUser: true)" : "the model stopping"}`);

if (faux) {
  console.log("");
  await run({ title: "run 2: the same request, but the agent skips rendering and inspecting the deck", script: SKIPS_A_STEP });
  faux.unregister();
}
