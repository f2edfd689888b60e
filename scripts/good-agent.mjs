// The scripted "good agent" that records the shipped scenarios' cassettes
// (scripts/record-eval-cassettes.mjs): for each scenario, the turns a model
// that follows the skills would take. Pure data and functions, so tests can
// record with it too.

/** One task per checklist step; `done` steps complete, `notes` on skipped optional ones, then one in progress. */
function plan(skill, count, { done = [], notes = {}, current, blocked = {} } = {}) {
  return Array.from({ length: count }, (_, index) => {
    const number = index + 1;
    const task = { id: `${skill}-${number}`, title: `Step ${number}`, step: `${skill}#${number}` };
    if (blocked[number] !== undefined) return { ...task, status: "blocked", note: blocked[number] };
    if (done.includes(number) || notes[number] !== undefined) return { ...task, status: "complete", ...(notes[number] === undefined ? {} : { note: notes[number] }) };
    return { ...task, status: number === current ? "in_progress" : "pending" };
  });
}

const upTo = (last) => Array.from({ length: last }, (_, index) => index + 1);
const call = (name, args) => ({ name, arguments: args });
const todo = (tasks) => call("todo", { tasks });
const say = (message) => call("message_user", { message, blockOnUser: false });
const present = (message) => call("message_user", { message, blockOnUser: true });

const DRIVE_NOTES = { 4: "The link names one file: nothing to ask" };
const IMPORT_NOTES = { 3: "The file is in uploads/drive/ and the request is clear", 6: "A faithful conversion: no new facts", 7: "The import report lists no losses", 10: "The render report lists no defects" };
const DECK_NOTES = { 3: "Topic-only request: nothing blocks; defaults taken", 4: "General knowledge suitable for 4th grade; no outside facts needed", 9: "The render report lists no defects" };

/** Each scenario's turns for the model, in order. */
const SCRIPTS = {
  "topic-only-deck": [
    [call("skill", { name: "deck-generation" })],
    [todo(plan("deck-generation", 14, { done: [1], notes: { 3: DECK_NOTES[3], 4: DECK_NOTES[4] }, current: 5 })), say("Planning a six-card deck on tide pools for 4th graders.")],
    [
      call("write", { path: "generations/tide-pools/brief.xml", content: '<brief topic="Tide pools" audience="4th grade" cards="6"/>\n' }),
      call("write", { path: "generations/tide-pools/deck.gml", content: '<deck title="Tide Pools"><card id="intro"><heading>What is a tide pool?</heading></card></deck>\n' }),
    ],
    [call("bash", { command: "gml validate generations/tide-pools/deck.gml" }), call("bash", { command: "gml render generations/tide-pools/deck.gml --out generations/tide-pools/renders" })],
    [call("read", { path: "generations/tide-pools/renders/report.json" }), call("read", { path: "generations/tide-pools/brief.xml" }), call("bash", { command: "gml inspect generations/tide-pools/deck.gml --json" })],
    [call("bash", { command: 'gml publish generations/tide-pools/deck.gml --title "Tide Pools" --json' })],
    [call("show_gamma", { ref: "gamma:file:g_1:d_tide" })],
    [todo(plan("deck-generation", 14, { done: upTo(14), notes: DECK_NOTES }))],
    [present("Your tide pools deck is ready: 6 cards for a 4th-grade class in the default theme, covering the zones, animals, plants and how to visit safely. No deviations. Next, you could add a quiz card or speaker notes.")],
  ],
  "import-request": [
    [call("bash", { command: "ls uploads/" })],
    [todo(plan("import", 15, { done: [1], notes: { 3: "The file is present and the request is clear" }, current: 4 })), say("Converting q3-review.pptx into a Gamma deck.")],
    [call("bash", { command: "gml import uploads/q3-review.pptx --out generations/q3-review/deck.gml --assets generations/q3-review/assets --report generations/q3-review/import/report.json --previews generations/q3-review/import/previews" })],
    [call("read", { path: "generations/q3-review/import/report.json" })],
    [call("bash", { command: "gml validate generations/q3-review/deck.gml" }), call("bash", { command: "gml render generations/q3-review/deck.gml --out generations/q3-review/renders" })],
    [call("read", { path: "generations/q3-review/renders/report.json" }), call("read", { path: "generations/q3-review/renders/card-1.png" }), call("bash", { command: "gml inspect generations/q3-review/deck.gml --json" })],
    [call("bash", { command: 'gml publish generations/q3-review/deck.gml --title "Q3 review" --json' })],
    [call("show_gamma", { ref: "gamma:file:g_1:d_q3" })],
    [todo(plan("import", 15, { done: upTo(15), notes: { 3: "The file is present and the request is clear", 6: "A faithful conversion: no new facts", 7: "The import report lists no losses", 10: "The render report lists no defects" } }))],
    [present("Your Q3 review is now a Gamma deck: all 8 slides converted with their wording and figures unchanged, no losses in the import report. No deviations. Next, you could pick a Gamma theme.")],
  ],
  // A drive link: both workflows load in one batch (drive-files loads the drive tools), the file is fetched
  // and verified, then imported from uploads/drive/.
  "drive-import": [
    [call("skill", { name: "drive-files" }), call("skill", { name: "import" })],
    [todo([...plan("drive-files", 7, { done: [1], current: 3 }), ...plan("import", 15)]), say("Fetching the Q3 board review from your drive.")],
    [call("drive_get_file", { fileId: "1q3BoardReview" })],
    [call("drive_download", { fileId: "1q3BoardReview", exportAs: "pptx" })],
    [call("bash", { command: "ls -l uploads/drive/" }), call("bash", { command: "sha256sum uploads/drive/q3-board-review.pptx" })],
    [todo([...plan("drive-files", 7, { done: upTo(7), notes: DRIVE_NOTES }), ...plan("import", 15, { done: [1, 2], notes: { 3: IMPORT_NOTES[3] }, current: 4 })])],
    [call("bash", { command: "gml import uploads/drive/q3-board-review.pptx --out generations/q3-board-review/deck.gml --assets generations/q3-board-review/assets --report generations/q3-board-review/import/report.json --previews generations/q3-board-review/import/previews" })],
    [call("read", { path: "generations/q3-board-review/import/report.json" })],
    [call("bash", { command: "gml validate generations/q3-board-review/deck.gml" }), call("bash", { command: "gml render generations/q3-board-review/deck.gml --out generations/q3-board-review/renders" })],
    [call("read", { path: "generations/q3-board-review/renders/report.json" }), call("read", { path: "generations/q3-board-review/renders/card-1.png" }), call("bash", { command: "gml inspect generations/q3-board-review/deck.gml --json" })],
    [call("bash", { command: 'gml publish generations/q3-board-review/deck.gml --title "Q3 board review" --json' })],
    [call("show_gamma", { ref: "gamma:file:g_1:d_q3board" })],
    [todo([...plan("drive-files", 7, { done: upTo(7), notes: DRIVE_NOTES }), ...plan("import", 15, { done: upTo(15), notes: IMPORT_NOTES })])],
    [present("Your Q3 board review is now a Gamma deck: the Google Slides file from /Finance/Board in your drive (changed 2 October), exported as pptx, checked against the drive's checksum, and all 12 slides converted with their wording and figures unchanged. No losses in the import report and no deviations. Next, you could pick a Gamma theme.")],
  ],
  "edit-with-artifact-update": [
    [call("skill", { name: "gml-editing" })],
    [todo(plan("gml-editing", 14, { done: [1], notes: { 3: "The request is clear", 5: "No new facts needed" }, current: 4 })), say("Shortening the title of card 3.")],
    [call("read", { path: "decks/q3/deck.gml" })],
    // The artifact_update about a collaborator's edit arrived: read the saved revision again before editing.
    [call("read", { path: "decks/q3/deck.gml" })],
    [call("edit", { path: "decks/q3/deck.gml", edits: [{ oldText: "Quarterly revenue grew across every region we serve", newText: "Revenue grew in every region" }] })],
    [call("bash", { command: "gml validate decks/q3/deck.gml" }), call("bash", { command: "gml render decks/q3/deck.gml --out decks/q3/renders --cards c3" })],
    [call("read", { path: "decks/q3/renders/report.json" }), call("bash", { command: "gml diff gamma:file:g_1:d_q3 decks/q3/deck.gml --json" })],
    [call("bash", { command: "gml publish decks/q3/deck.gml --ref gamma:file:g_1:d_q3 --json" })],
    [call("show_gamma", { ref: "gamma:file:g_1:d_q3", cardIds: ["c3"] })],
    [todo(plan("gml-editing", 14, { done: upTo(14), notes: { 3: "The request is clear", 5: "No new facts needed", 9: "The render report lists no defects" } }))],
    [present("I shortened the title of card 3 to \"Revenue grew in every region\". A collaborator changed card 5 while I worked; I kept their change and edited the saved revision. No deviations.")],
  ],
  "blocking-question": [
    [call("skill", { name: "deck-generation" })],
    [call("bash", { command: "ls uploads/" })],
    [todo(plan("deck-generation", 14, { done: [1, 2], blocked: { 3: "The meeting notes are not in uploads/" }, current: 4 }))],
    [present("I could not find your meeting notes in uploads/. Could you upload them, or paste the key points here?")],
  ],
  // The one scenario where the model slips: it acts before loading the workflow the turn requires, and the
  // runtime's refusal (invocation enforcement) makes it load the skill before going on.
  "new-deck-required": [
    [call("bash", { command: "ls uploads/" })],
    [call("skill", { name: "deck-generation" })],
    [call("bash", { command: "ls uploads/" })],
    [todo(plan("deck-generation", 14, { done: [1, 2], blocked: { 3: "The meeting notes are not in uploads/" }, current: 4 }))],
    [present("I could not find your meeting notes in uploads/. Could you upload them, or paste the key points here?")],
  ],
  "conflicting-request": [
    [call("skill", { name: "import" }), call("skill", { name: "deck-generation" })],
    [todo(plan("import", 15, { done: [1], blocked: { 3: "The request asks for two decks from two conflicting workflows" }, current: 4 }))],
    [present("You asked for two decks: importing sales-kit.pptx and writing a new Q4 roadmap deck. I do one at a time. Which should I start with?")],
  ],
};

/** Knowledge ids a `<knowledge_hints>` block in the context points at that no read_workspace_rule call fetched yet. */
function unfetchedHints(context) {
  const text = (message) => (typeof message.content === "string" ? message.content : message.content.map((part) => part.text ?? "").join("\n"));
  const hinted = context.messages.filter((message) => message.role === "user").flatMap((message) => [...text(message).matchAll(/<knowledge [^>]*\bid="([^"]+)"[^>]*\/>/g)].map((match) => match[1]));
  const fetched = context.messages.flatMap((message) => (message.role === "assistant" ? message.content : [])).filter((part) => part.type === "toolCall" && part.name === "read_workspace_rule").map((part) => part.arguments.knowledgeId);
  return [...new Set(hinted)].filter((id) => !fetched.includes(id));
}

/** A good agent: the scenario's next turn, with the hinted knowledge fetched first (never beside a blocking message). */
export const goodAgent = {
  name: "good-agent",
  respond({ scenario, context }) {
    const script = SCRIPTS[scenario];
    if (script === undefined) throw new Error(`no script for scenario ${scenario}`);
    // Turns taken so far: assistant messages in the context, less the ones that only fetched knowledge.
    const taken = context.messages.filter((message) => message.role === "assistant" && !message.content.every((part) => part.type === "toolCall" && part.name === "read_workspace_rule")).length;
    const next = script[taken] ?? [present("Done.")];
    const hints = unfetchedHints(context).map((id) => call("read_workspace_rule", { knowledgeId: id }));
    if (hints.length === 0) return { toolCalls: next };
    const blocking = next.some((entry) => entry.name === "message_user" && entry.arguments.blockOnUser === true);
    return { toolCalls: blocking ? hints : [...hints, ...next] };
  },
};

