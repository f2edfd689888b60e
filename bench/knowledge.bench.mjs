// Knowledge candidate selection, in process, on the compiled lib/: 1,000 live
// notes registered through the controller (the boundary check included), then
//   1. the default selector (MiniSearch) alone, ranking all notes for one turn;
//   2. the whole per-turn path: hintsForTurn (selection, hint rendering and the
//      durable change in a FileStateStore), as buildTurnMessages runs it.
// Target: candidate selection over 1,000 notes per turn <= 5 ms.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultDistDir, FileStateStore, loadArtifacts, MiniSearchSelector, SessionProtocolController } from "../lib/runtime/index.js";
import { measure, row as printRow } from "./helpers/timing.mjs";

const row = (label, result, target) => printRow(label, result, target, 62);

const topics = ["image", "photo", "chart", "table", "font", "title", "colour", "logo", "brief", "export", "quote", "pricing", "legal", "tone", "audience", "video", "icon", "layout", "speaker", "citation"];
const objects = ["cards", "decks", "covers", "appendix", "summaries", "handouts", "agendas", "timelines", "roadmaps", "reports"];
const notes = Array.from({ length: 1000 }, (_, i) => {
  const topic = topics[i % topics.length];
  const object = objects[Math.floor(i / topics.length) % objects.length];
  return {
    id: `note-${String(i).padStart(4, "0")}`,
    name: `${topic} rules for ${object} ${i}`,
    scope: `Use for ${topic} decisions on ${object} for client ${i % 37} in this workspace.`,
    source: i % 3 === 0 ? "system" : "user",
    appliesTo: { skills: i % 50 === 0 ? ["deck-generation"] : [], keywords: [topic, object, `client-${i % 37}`] },
    body: `# ${topic} rules\n\n- ${topic} on ${object} follows the brand book, section ${i}.\n`,
  };
});
const turns = [
  "Make a deck about tide pools with photos and short card titles for client 12",
  "Swap the chart on card 4 for a table and fix the legend colours",
  "Write speaker notes for the roadmap cards and cite the sources",
  "Export the deck as PDF with the handouts",
];

const selector = new MiniSearchSelector();
selector.update({ upsert: notes.map(({ body: _body, appliesTo, ...fields }) => ({ ...fields, appliesTo: { skills: appliesTo.skills, tools: [], keywords: appliesTo.keywords } })), remove: [] });
let turn = 0;
row("selector.select: rank 1,000 notes for one turn", measure(2000, () => selector.select({ text: turns[turn++ % turns.length], activeSkills: ["deck-generation"], currentArtifacts: [] })), 5);

const artifacts = loadArtifacts({ distDir: process.env.GAMMA_DIST ?? defaultDistDir() });
const folder = mkdtempSync(join(tmpdir(), "gamma-knowledge-bench-"));
const controller = new SessionProtocolController({ artifacts, variant: "base", store: new FileStateStore(join(folder, "state.json")) });
const registering = process.hrtime.bigint();
for (const note of notes) controller.knowledge.registerNote(note);
console.log(`register 1,000 live notes (boundary check, index, durable state)   total ${(Number(process.hrtime.bigint() - registering) / 1e6).toFixed(1)} ms`);
let hinted = 0;
row(
  "per turn: hintsForTurn over 1,000 notes (select + render + persist)",
  measure(1000, () => {
    if (controller.knowledge.hintsForTurn(turns[turn++ % turns.length]) !== undefined) hinted++;
  }),
  5,
);
console.log(`turns with hints: ${hinted} of 1,050; at most 5 new notes hinted per turn`);
controller.close();
rmSync(folder, { recursive: true, force: true });
