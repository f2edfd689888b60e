/**
 * Scoped knowledge on a real Pi Agent and AgentSession with the faux
 * provider, on the embedded default's dist/ (two compiled notes:
 * brand-images, source user; deck-typography, source system).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { SessionManager, SettingsManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { build } from "../../src/build.js";
import { buildSchemaValidator } from "../../src/pipeline/validate/schemas.js";
import { forbiddenKnowledgeCharacter, knowledgeTextPattern } from "../../src/protocol/knowledge.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { SessionProtocolController } from "../../src/runtime/controller.js";
import { KnowledgeNoteRejectedError } from "../../src/runtime/knowledge/notes.js";
import type { KnowledgeSelector } from "../../src/runtime/knowledge/selector.js";
import { createGammaAgent, createGammaSession } from "../../src/runtime/pi-adapter.js";
import { FileStateStore } from "../../src/runtime/state.js";
import type { ToolExecutor } from "../../src/runtime/tools.js";
import { TurnNotSentError, type ProtocolEvent } from "../../src/runtime/yield.js";
import { docPage } from "../helpers/docs.js";
import { repoRoot } from "../build/helpers.js";
import { copyParts } from "../helpers/temp-project.js";
import { prepareDist, tempDir } from "../runtime/helpers/dist.js";
import { fauxAssistantMessage, fauxToolCall, recordingExecutors, seeing, textOf, toolUse, type SeenContext } from "../runtime/helpers/pi.js";
import { fauxPerTest, fauxSessionSetup } from "../runtime/helpers/session.js";

const pi = fauxPerTest();
const distDir = prepareDist();
const artifacts = loadArtifacts({ distDir });
const compiledBody = (id: string): string => readFileSync(join(distDir, "knowledge", `${id}.md`), "utf8");
const fetch = (id: string) => fauxToolCall("read_workspace_rule", { knowledgeId: id });

function agent(options: { store?: FileStateStore; read?: ToolExecutor; variant?: "base" | "deck-generation" } = {}) {
  const events: ProtocolEvent[] = [];
  const faux = pi.faux();
  const gamma = createGammaAgent({
    artifacts,
    variant: options.variant ?? "base",
    model: faux.getModel(),
    executors: { ...recordingExecutors(), ...(options.read === undefined ? {} : { read: options.read }) },
    onProtocolEvent: (event) => events.push(event),
    ...(options.store === undefined ? {} : { store: options.store }),
  });
  pi.disposeAfterTest(gamma);
  const prompt = (text: string) => gamma.agent.prompt(gamma.controller.buildTurnMessages({ text }) as AgentMessage[]);
  return { ...gamma, faux, events, prompt };
}

/** The hints that came with the latest user turn (everything after the last plain user message). */
const hintsIn = (seen: SeenContext | undefined): string[] => {
  const texts = (seen?.messages ?? []).map(textOf);
  const lastUser = Math.max(...(seen?.messages ?? []).map((message, index) => (message.role === "user" && !texts[index]?.startsWith("<") ? index : -1)));
  return texts.slice(lastUser + 1).filter((text) => text.startsWith("<knowledge_hints>"));
};
const hinted = (events: readonly ProtocolEvent[]) => events.filter((event) => event.type === "knowledge_hinted");

describe("knowledge hints on a Pi Agent", () => {
  it("arrive with the user's turn before the first task action; the model fetches both in one parallel batch and gets each body exactly as compiled", async () => {
    const gamma = agent();
    const seen: SeenContext[] = [];
    gamma.faux.setResponses([seeing(seen, toolUse(fetch("brand-images"), fetch("deck-typography"))), seeing(seen, fauxAssistantMessage("Ready."))]);
    await gamma.prompt("Make a deck about tide pools with photos and short card titles");

    const first = seen[0];
    expect(first?.messages.map(textOf).slice(0, 2)).toEqual([
      "Make a deck about tide pools with photos and short card titles",
      [
        "<knowledge_hints>",
        "BLOCKING: Fetch each matching unread note before the first task action.",
        '<knowledge id="deck-typography" name="Card text limits" scope="Use when writing or editing the text of cards, titles or speaker notes in this workspace." source="system" />',
        '<knowledge id="brand-images" name="Workspace image rules" scope="Use for image selection or image generation in this workspace." source="user" />',
        "</knowledge_hints>",
      ].join("\n"),
    ]);
    // The contract and the precedence by source live in the static prefix, not in the hints.
    expect(first?.systemPrompt).toContain("BLOCKING: fetch each matching unread note before the first task action.");
    expect(first?.systemPrompt).toContain('3. User-authored workspace knowledge (notes with `source="user"`).');
    expect(first?.systemPrompt).toContain('then notes with `source="user"`, then notes with `source="system"`');
    expect(first?.systemPrompt).not.toContain(compiledBody("brand-images").split("\n")[2]);
    expect(first?.tools.map((tool) => tool.name)).toContain("read_workspace_rule");

    const results = (seen[1]?.messages ?? []).filter((message) => message.role === "toolResult");
    expect(results.map((message) => [message.toolName, textOf(message)])).toEqual([
      ["read_workspace_rule", compiledBody("brand-images")],
      ["read_workspace_rule", compiledBody("deck-typography")],
    ]);
    expect(gamma.controller.state.knowledge?.loaded.map((note) => [note.id, note.revision, note.via])).toEqual([
      ["brand-images", artifacts.knowledge.notes.get("brand-images")?.revision, "inline"],
      ["deck-typography", artifacts.knowledge.notes.get("deck-typography")?.revision, "inline"],
    ]);
    expect(gamma.events.filter((event) => event.type.startsWith("knowledge"))).toEqual([
      { type: "knowledge_hinted", trigger: "turn", notes: [{ id: "deck-typography", status: "new" }, { id: "brand-images", status: "new" }] },
      { type: "knowledge_loaded", id: "brand-images", revision: expect.stringMatching(/^sha256:[0-9a-f]{16}$/), via: "inline", toolCallId: expect.any(String) },
      { type: "knowledge_loaded", id: "deck-typography", revision: expect.stringMatching(/^sha256:[0-9a-f]{16}$/), via: "inline", toolCallId: expect.any(String) },
    ]);

    // Read and unchanged: never hinted again in this session.
    const later: SeenContext[] = [];
    gamma.faux.setResponses([seeing(later, fauxAssistantMessage("Done."))]);
    await gamma.prompt("Swap the photo on card 2 and shorten its title");
    expect(hintsIn(later[0])).toEqual([]);
  });

  it("a hinted note whose scope does not match is discarded: not fetched, not loaded, and only the fetched one stays quiet", async () => {
    const gamma = agent();
    const seen: SeenContext[] = [];
    gamma.faux.setResponses([seeing(seen, toolUse(fetch("brand-images"))), fauxAssistantMessage("Added.")]);
    await gamma.prompt("Add a photo of a crab to card 2");
    expect(hintsIn(seen[0])[0]).toContain('id="deck-typography"');
    expect(gamma.controller.state.knowledge?.loaded.map((note) => note.id)).toEqual(["brand-images"]);
    const next: SeenContext[] = [];
    gamma.faux.setResponses([seeing(next, fauxAssistantMessage("Bigger now."))]);
    await gamma.prompt("Make the crab photo on card 2 bigger");
    const again = hintsIn(next[0]).join("\n");
    expect(again).not.toContain('id="brand-images"');
  });

  it("an unknown id is a tool error that names only the requested id", async () => {
    const gamma = agent();
    const seen: SeenContext[] = [];
    gamma.faux.setResponses([toolUse(fetch("secret-pricing")), seeing(seen, fauxAssistantMessage("ok"))]);
    await gamma.prompt("Hello");
    const result = seen[0]?.messages.at(-1);
    expect(result).toMatchObject({ role: "toolResult", toolName: "read_workspace_rule", isError: true });
    expect(textOf(result)).toContain('Unknown knowledge note "secret-pricing"');
    expect(textOf(result)).not.toContain("brand-images");
    expect(gamma.controller.state.knowledge?.loaded ?? []).toEqual([]);
  });

  it("a body over the inline limit comes back as a path the host's read opens", async () => {
    const folder = tempDir("gamma-notes-");
    const path = join(folder, "style-guide.md");
    const body = `# Style guide\n\n${Array.from({ length: 400 }, (_, index) => `- Rule ${index}: keep card ${index} focused on one idea.`).join("\n")}\n`;
    writeFileSync(path, body);
    const read: ToolExecutor = async (_id, params) => ({ content: [{ type: "text", text: readFileSync(String(params["path"]), "utf8") }] });
    const gamma = agent({ read });
    expect(gamma.controller.knowledge.registerNote({ id: "style-guide", name: "Style guide", scope: "Use for any writing decision in this workspace.", source: "user", body, path })).toBe("added");
    const seen: SeenContext[] = [];
    gamma.faux.setResponses([toolUse(fetch("style-guide")), seeing(seen, toolUse(fauxToolCall("read", { path }))), seeing(seen, fauxAssistantMessage("Read it."))]);
    await gamma.prompt("Apply the writing style guide to the deck");
    const pathResult = textOf(seen[0]?.messages.at(-1));
    expect(pathResult).toContain(`Read it at ${path} with the \`read\` tool`);
    expect(pathResult).not.toContain("Rule 1:");
    expect(textOf(seen[1]?.messages.at(-1))).toBe(body);
    expect(gamma.events).toContainEqual(expect.objectContaining({ type: "knowledge_loaded", id: "style-guide", via: "path" }));
  });
});

describe("a compiled note over the inline limit", () => {
  it("comes back inline, as the session loaded it, when a build since changed its dist/ file: the model never reads another revision", async () => {
    const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge"], join(tempDir("gamma-large-note-"), "project"));
    const rules = Array.from({ length: 300 }, (_, index) => `- Rule ${index}: keep image ${index} on brand.`).join("\n");
    writeFileSync(join(root, "knowledge", "large-rules.md"), `---\nid: large-rules\nname: Large image rules\nscope: Use for image selection in this workspace.\nsource: user\n---\n\n${rules}\n`);
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    const loaded = loadArtifacts({ distDir: join(root, "dist") });
    const file = join(root, "dist", "knowledge", "large-rules.md");
    const compiled = readFileSync(file, "utf8");
    const faux = pi.faux();
    const gamma = pi.disposeAfterTest(createGammaAgent({ artifacts: loaded, variant: "base", model: faux.getModel(), executors: recordingExecutors() }));
    const seen: SeenContext[] = [];
    faux.setResponses([toolUse(fetch("large-rules")), seeing(seen, fauxAssistantMessage("Noted."))]);
    await gamma.agent.prompt(gamma.controller.buildTurnMessages({ text: "Pick the images" }) as AgentMessage[]);
    expect(textOf(seen[0]?.messages.at(-1))).toContain(`Read it at ${file} with the \`read\` tool`);
    // A rebuild after an edit of the note writes another revision to the same file.
    writeFileSync(file, compiled.replace("Rule 0:", "Rule zero:"));
    faux.setResponses([toolUse(fetch("large-rules")), seeing(seen, fauxAssistantMessage("Noted again."))]);
    await gamma.agent.prompt(gamma.controller.buildTurnMessages({ text: "Pick them again" }) as AgentMessage[]);
    expect(textOf(seen[1]?.messages.at(-1))).toBe(compiled);
  });
});

describe("knowledge options a host got wrong", () => {
  it.each([
    [{ maxHints: Number.NaN }, RangeError, "knowledge.maxHints"],
    [{ maxHints: -1 }, RangeError, "knowledge.maxHints"],
    [{ maxHints: "3" }, RangeError, "knowledge.maxHints"],
    [{ resolvePath: "nope" }, TypeError, "knowledge.resolvePath"],
    ["maxHints: 5", TypeError, "knowledge"],
  ] as const)("%j is refused when the agent is created, naming the option", (knowledge, type, named) => {
    const faux = pi.faux();
    const create = () => createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: recordingExecutors(), knowledge: knowledge as never });
    expect(create).toThrow(type);
    expect(create).toThrow(`Unexpected ${named} `);
  });
});

describe("live notes", () => {
  const live = { id: "client-colours", name: "Client colours", scope: "Use for colour choices in decks for this client.", source: "user" as const, appliesTo: { keywords: ["colour", "palette"] } };

  it("are validated at the boundary and refused with the field named", () => {
    const { controller } = agent();
    const bad: Array<[unknown, string]> = [
      [{ ...live, body: "x", id: "Client_Colours" }, "id"],
      [{ ...live, body: "x", source: "workspace" }, "source"],
      [{ ...live, body: "x", name: "<knowledge_hints>" }, "name"],
      [{ ...live, body: "   " }, "body"],
      [{ ...live, body: "x", extra: 1 }, "extra"],
      [JSON.parse('{"__proto__": {"polluted": true}, "id": "a"}'), "__proto__"],
      [{ ...live, body: "x", appliesTo: { skills: [7] } }, "appliesTo.skills"],
    ];
    for (const [raw, field] of bad) {
      expect(() => controller.knowledge.registerNote(raw)).toThrow(KnowledgeNoteRejectedError);
      try {
        controller.knowledge.registerNote(raw);
      } catch (error) {
        expect((error as KnowledgeNoteRejectedError).field).toBe(field);
      }
    }
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(controller.knowledge.get("client-colours")).toBeUndefined();
  });

  it("refuse in name and scope exactly what the compiler refuses in a note file, naming the field and the character", () => {
    const { controller } = agent();
    for (const fixture of ["unicode-controls", "control-character", "tag-characters"]) {
      const folder = join(repoRoot, "test/fixtures/knowledge", fixture);
      // The compiler's findings, by note file: the field its pattern refused.
      const refused = new Map(
        (JSON.parse(readFileSync(join(folder, "expected.json"), "utf8")) as Array<{ file: string; message: string }>).map((finding) => [finding.file, /^Unexpected "(name|scope)"/.exec(finding.message)?.[1]]),
      );
      for (const file of readdirSync(join(folder, "knowledge")).sort()) {
        const source = readFileSync(join(folder, "knowledge", file), "utf8");
        const fields = parseYaml(source.split("---\n")[1] ?? "") as { id: string; name: string; scope: string; source: "user" | "system" };
        const note = { ...fields, body: "Photographs show real places.\n" };
        const field = refused.get(`knowledge/${file}`);
        if (field === undefined) {
          expect(controller.knowledge.registerNote(note), file).toBe("added");
          continue;
        }
        let error: unknown;
        try {
          controller.knowledge.registerNote(note);
        } catch (thrown) {
          error = thrown;
        }
        expect(error, file).toBeInstanceOf(KnowledgeNoteRejectedError);
        expect((error as KnowledgeNoteRejectedError).field, file).toBe(field);
        expect((error as Error).message, file).toMatch(new RegExp(`^Unexpected live note: ${field}: expected .*; found U\\+[0-9A-F]{4,5}, (a control character|a line break|a Unicode line or paragraph separator|a bidirectional control|a Unicode tag character), at code point \\d+$`));
        expect(controller.knowledge.get(fields.id), file).toBeUndefined();
      }
    }
    expect(() => controller.knowledge.registerNote({ ...live, body: "x", name: "Client\u202ecolours" })).toThrow("Unexpected live note: name: expected non-blank plain text of at most 120 characters without < or >, a control character other than tab (on one line), U+2028, U+2029, a bidirectional control or a Unicode tag character; found U+202E, a bidirectional control, at code point 7");
    // A Unicode tag character is an invisible copy of an ASCII one that some models decode: words hidden in a trusted hint.
    expect(() => controller.knowledge.registerNote({ ...live, body: "x", name: "Deck colours\u{E003C}\u{E0073}" })).toThrow("; found U+E003C, a Unicode tag character, at code point 13");
    expect(() => controller.knowledge.registerNote({ ...live, body: "x", scope: "Use for colours.\u{E007F}" })).toThrow(/^Unexpected live note: scope: .*; found U\+E007F, a Unicode tag character, at code point 17$/);
    // Tabs, and in scope line breaks, are whitespace: kept out of the hint as single spaces.
    expect(controller.knowledge.registerNote({ ...live, body: "x", name: "Client\tcolours", scope: "Use for colour choices\r\nin decks for this client." })).toBe("added");
    expect(controller.knowledge.get("client-colours")).toMatchObject({ name: "Client colours", scope: "Use for colour choices in decks for this client." });
  });

  it("are checked by the note schema's own patterns: the runtime refuses a character in name or scope exactly when the schema does", () => {
    const schema = JSON.parse(readFileSync(join(repoRoot, "schemas/knowledge-note.schema.json"), "utf8")) as { properties: Record<string, { pattern: string }> };
    const validate = buildSchemaValidator("knowledge-note");
    for (const field of ["name", "scope"] as const) {
      expect(schema.properties[field]?.pattern).toBe(knowledgeTextPattern(field));
      const disagreements: string[] = [];
      // The first code points (controls, separators, bidirectional controls) and the Tags block with its neighbours.
      for (const codePoint of [...Array.from({ length: 0x3001 }, (_, index) => index), ...Array.from({ length: 0x82 }, (_, index) => 0xdffff + index)]) {
        const text = `Use for a${String.fromCodePoint(codePoint)}b.`;
        const schemaRefuses = !validate({ id: "a", name: "A", scope: "Use for a.", source: "user", [field]: text });
        if (schemaRefuses !== (forbiddenKnowledgeCharacter(field, text) !== undefined)) disagreements.push(codePoint.toString(16));
      }
      expect(disagreements, field).toEqual([]);
    }
  });

  it("are selected the same way whatever order the host registered or updated them in: equal scores rank by id", () => {
    const shades = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"].map((shade) => ({ ...live, id: `colour-${shade}`, name: `Colour ${shade}`, body: `${shade}.` }));
    const hintsFor = (notes: readonly (typeof shades)[number][], update?: (typeof shades)[number]) => {
      const controller = new SessionProtocolController({ artifacts, variant: "base" });
      for (const note of notes) controller.knowledge.registerNote(note);
      if (update !== undefined) controller.knowledge.registerNote({ ...update, body: `${update.body} Updated.` });
      const texts = controller.buildTurnMessages({ text: "Pick the palette colours" }).map((message) => (typeof message.content === "string" ? message.content : ""));
      controller.close();
      return texts.filter((text) => text.startsWith("<knowledge_hints>"));
    };
    const inOrder = hintsFor(shades);
    expect(inOrder[0]?.match(/id="[^"]+"/g)).toEqual(['id="colour-alpha"', 'id="colour-beta"', 'id="colour-delta"', 'id="colour-epsilon"', 'id="colour-eta"']);
    expect(hintsFor([...shades].reverse())).toEqual(inOrder);
    expect(hintsFor(shades, shades[0])).toEqual(inOrder);
  });

  it("a changed revision of a loaded note is hinted again as changed; a removed note is reported once", async () => {
    const gamma = agent();
    gamma.controller.knowledge.registerNote({ ...live, body: "Primary colour: teal #0F8B8D.\n" });
    gamma.faux.setResponses([toolUse(fetch("client-colours")), fauxAssistantMessage("Teal it is.")]);
    await gamma.prompt("Pick a colour palette for the deck");
    expect(gamma.controller.state.knowledge?.loaded.map((note) => note.id)).toEqual(["client-colours"]);

    expect(gamma.controller.knowledge.registerNote({ ...live, body: "Primary colour: teal #0F8B8D.\n" })).toBe("unchanged");
    expect(gamma.controller.knowledge.registerNote({ ...live, body: "Primary colour: navy #1B2A4A.\n" })).toBe("updated");
    const seen: SeenContext[] = [];
    gamma.faux.setResponses([seeing(seen, toolUse(fetch("client-colours"))), seeing(seen, fauxAssistantMessage("Navy now."))]);
    await gamma.prompt("Go on with card 3");
    const changed = hintsIn(seen[0]);
    expect(changed).toHaveLength(1);
    expect(changed[0]?.split("\n").slice(0, 3)).toEqual([
      "<knowledge_hints>",
      "BLOCKING: Fetch each matching unread note before the first task action.",
      '<knowledge id="client-colours" name="Client colours" scope="Use for colour choices in decks for this client." source="user" status="changed" />',
    ]);
    expect(textOf(seen[1]?.messages.at(-1))).toBe("Primary colour: navy #1B2A4A.\n");
    expect(gamma.controller.anchorMessage().content).toContain(`- client-colours: Client colours (source user, revision ${gamma.controller.knowledge.get("client-colours")?.revision})`);

    expect(gamma.controller.knowledge.removeNote("client-colours")).toBe(true);
    const after: SeenContext[] = [];
    gamma.faux.setResponses([seeing(after, fauxAssistantMessage("Noted.")), seeing(after, fauxAssistantMessage("Still noted."))]);
    await gamma.prompt("Continue");
    await gamma.prompt("Continue again");
    expect(hintsIn(after[0])).toEqual([
      ["<knowledge_hints>", "A note marked removed no longer exists: stop applying it.", '<knowledge id="client-colours" name="Client colours" status="removed" />', "</knowledge_hints>"].join("\n"),
    ]);
    expect(hintsIn(after[1])).toEqual([]);
    expect(gamma.controller.state.knowledge?.loaded).toEqual([]);
    expect(hinted(gamma.events).map((event) => event.type === "knowledge_hinted" && event.notes.filter((note) => note.id === "client-colours"))).toEqual([
      [{ id: "client-colours", status: "new" }],
      [{ id: "client-colours", status: "changed" }],
      [{ id: "client-colours", status: "removed" }],
    ]);
  });

  it("the anchor lists a loaded note a host changed with the revision the session has now, until the model fetches it or the host changes it back", async () => {
    const gamma = agent();
    gamma.controller.knowledge.registerNote({ ...live, body: "Teal.\n" });
    gamma.faux.setResponses([toolUse(fetch("client-colours")), fauxAssistantMessage("Loaded.")]);
    await gamma.prompt("Pick a colour palette");
    const teal = gamma.controller.knowledge.get("client-colours")?.revision ?? "";
    const inForce = `- client-colours: Client colours (source user, revision ${teal})`;
    expect(gamma.controller.anchorMessage().content).toContain(inForce);

    gamma.controller.knowledge.registerNote({ ...live, body: "Navy.\n" });
    const navy = gamma.controller.knowledge.get("client-colours")?.revision ?? "";
    expect(gamma.controller.anchorMessage().content).toContain(`- client-colours: Client colours (source user, changed to revision ${navy} since you loaded revision ${teal}: no longer in force; fetch it again before applying it)`);

    // Back to the revision the model read before any hint went out: in force again, and nothing to report.
    gamma.controller.knowledge.registerNote({ ...live, body: "Teal.\n" });
    expect(gamma.controller.anchorMessage().content).toContain(inForce);
    const seen: SeenContext[] = [];
    gamma.faux.setResponses([seeing(seen, fauxAssistantMessage("Still teal."))]);
    await gamma.prompt("Pick a colour palette again");
    expect(hintsIn(seen[0])).toEqual([]);
  });

  it("an update during a run is steered in after the tool batch, before the next model call", async () => {
    const gamma = agent();
    gamma.controller.knowledge.registerNote({ ...live, body: "Teal.\n" });
    gamma.faux.setResponses([toolUse(fetch("client-colours")), fauxAssistantMessage("Loaded.")]);
    await gamma.prompt("Pick a colour palette");
    const seen: SeenContext[] = [];
    const bash: ToolExecutor = async () => {
      gamma.controller.knowledge.registerNote({ ...live, body: "Navy.\n" });
      return { content: [{ type: "text", text: "rendered" }] };
    };
    const running = createGammaAgent({ controller: gamma.controller, model: gamma.faux.getModel(), executors: { ...recordingExecutors(), bash } });
    pi.disposeAfterTest(running);
    gamma.faux.setResponses([toolUse(fauxToolCall("bash", { command: "gml render" })), seeing(seen, fauxAssistantMessage("Seen the change."))]);
    await running.agent.prompt(gamma.controller.buildTurnMessages({ text: "Render the deck" }) as AgentMessage[]);
    expect(seen[0]?.messages.map(textOf).at(-1)).toContain('<knowledge id="client-colours" name="Client colours" scope="Use for colour choices in decks for this client." source="user" status="changed" />');
  });
});

describe("a replaceable selector", () => {
  it("decides the candidates; the runtime still drops read, unchanged notes", async () => {
    const asked: string[] = [];
    const selector: KnowledgeSelector = {
      update: () => {},
      select: (query) => {
        asked.push(query.text);
        return ["deck-typography"];
      },
    };
    const faux = pi.faux();
    const gamma = pi.disposeAfterTest(createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: recordingExecutors(), knowledge: { selector } }));
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("ok"))]);
    await gamma.agent.prompt(gamma.controller.buildTurnMessages({ text: "Anything at all" }) as AgentMessage[]);
    expect(asked).toEqual(["Anything at all"]);
    expect(hintsIn(seen[0])[0]).toContain('id="deck-typography"');
    expect(hintsIn(seen[0])[0]).not.toContain('id="brand-images"');
  });
});

describe("a selector that does not return note ids synchronously", () => {
  const expected = "an object { update(change), select(query) } whose select returns note ids (an array of strings) synchronously";

  it("is refused when the session is created when its select or update is an async function, naming the option, on both paths", async () => {
    const faux = pi.faux();
    const selectors: Array<[unknown, string]> = [
      [{ update: () => {}, select: async () => ["brand-images"] }, "knowledge.selector.select"],
      [{ update: async () => {}, select: () => ["brand-images"] }, "knowledge.selector.update"],
    ];
    for (const [selector, option] of selectors) {
      const message = `Unexpected async function for ${option}, expected a synchronous one: ${expected} (hints are made as the turn's messages are; index ahead of time, in update, instead)`;
      const options = { artifacts, variant: "base" as const, executors: recordingExecutors(), knowledge: { selector: selector as KnowledgeSelector } };
      expect(() => createGammaAgent({ ...options, model: faux.getModel() })).toThrow(new TypeError(message));
      await expect(createGammaSession({ ...options, ...(await fauxSessionSetup(faux)) })).rejects.toThrow(new TypeError(message));
    }
    expect(() => new SessionProtocolController({ artifacts, variant: "base", knowledge: { selector: { update: () => {} } as unknown as KnowledgeSelector } })).toThrow(
      new TypeError(`Unexpected knowledge.selector.select undefined, expected a function (${expected})`),
    );
  });

  it("is refused at the first turn when select returns a promise or anything but ids, and nothing is sent", async () => {
    const results: Array<[() => unknown, string]> = [
      [() => Promise.resolve(["brand-images"]), `Unexpected promise from knowledge.selector.select, expected ${expected}`],
      [() => [{ id: "brand-images" }], `Unexpected result from knowledge.selector.select: its entry 0 is an object, not a note id; expected ${expected}`],
      [() => "brand-images", `Unexpected result from knowledge.selector.select: "brand-images", expected ${expected}`],
    ];
    for (const [select, message] of results) {
      const selector = { update: () => {}, select } as unknown as KnowledgeSelector;
      const faux = pi.faux();
      const gamma = pi.disposeAfterTest(createGammaAgent({ artifacts, variant: "base", model: faux.getModel(), executors: recordingExecutors(), knowledge: { selector } }));
      expect(() => gamma.controller.buildTurnMessages({ text: "Choose photos" })).toThrow(new TypeError(message));
      const session = pi.disposeAfterTest(await createGammaSession({ artifacts, variant: "base", executors: recordingExecutors(), knowledge: { selector }, ...(await fauxSessionSetup(faux)) }));
      const refused = await session.session.prompt("Choose photos").then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(TurnNotSentError);
      expect((refused as TurnNotSentError).cause).toEqual(new TypeError(message));
      expect(faux.state.callCount).toBe(0);
    }
  });
});

describe("a selector whose update returns a promise", () => {
  const message = "Unexpected promise from knowledge.selector.update, expected an object { update(change), select(query) } whose select returns note ids (an array of strings) synchronously, and an update that applies the change before it returns";

  it("is refused when the session is created, and the promise's rejection does not end the host's process", async () => {
    const selector = { update: () => Promise.reject(new Error("index unreachable")), select: () => [] } as unknown as KnowledgeSelector;
    const faux = pi.faux();
    const options = { artifacts, variant: "base" as const, executors: recordingExecutors(), knowledge: { selector } };
    expect(() => createGammaAgent({ ...options, model: faux.getModel() })).toThrow(new TypeError(message));
    await expect(createGammaSession({ ...options, ...(await fauxSessionSetup(faux)) })).rejects.toThrow(new TypeError(message));
    // A rejection nobody handled would fail this test run; give it the turns it needs to surface.
    await new Promise((resolve) => setTimeout(resolve, 10));
  });

  it("refuses a live note's registration or removal then, leaving the session's notes as they were", async () => {
    let failing = false;
    const selector: KnowledgeSelector = {
      update: () => (failing ? (Promise.reject(new Error("index unreachable")) as unknown as void) : undefined),
      select: () => [],
    };
    const controller = new SessionProtocolController({ artifacts, variant: "base", knowledge: { selector } });
    const note = { id: "style-guide", name: "Style guide", scope: "Use for any writing decision in this workspace.", source: "user", body: "Short sentences." };
    failing = true;
    expect(() => controller.knowledge.registerNote(note)).toThrow(new TypeError(message));
    expect(controller.knowledge.get("style-guide")).toBeUndefined();
    failing = false;
    expect(controller.knowledge.registerNote(note)).toBe("added");
    failing = true;
    expect(() => controller.knowledge.removeNote("style-guide")).toThrow(new TypeError(message));
    expect(controller.knowledge.get("style-guide")?.name).toBe("Style guide");
    await new Promise((resolve) => setTimeout(resolve, 10));
    controller.close();
  });
});

describe("lifetime: loaded notes survive compaction and restart", () => {
  it("after a restart the anchor lists the loaded notes (id, name, revision); the model re-fetches only when it needs the body", async () => {
    const statePath = join(tempDir("gamma-state-"), "session.json");
    const first = agent({ store: new FileStateStore(statePath) });
    first.faux.setResponses([toolUse(fetch("brand-images")), fauxAssistantMessage("Loaded.")]);
    await first.prompt("Choose photos for the deck");
    pi.disposeNow(first);

    const restarted = new SessionProtocolController({ artifacts, variant: "base", store: new FileStateStore(statePath) });
    const revision = artifacts.knowledge.notes.get("brand-images")?.revision ?? "";
    const anchor = restarted.anchorMessage().content;
    expect(anchor).toContain(
      [
        "<loaded_knowledge>",
        "Knowledge notes you loaded in this session; they stay in force while unchanged. Fetch one again with read_workspace_rule only when you need its body.",
        `- brand-images: Workspace image rules (source user, revision ${revision})`,
        "</loaded_knowledge>",
      ].join("\n"),
    );
    // Still loaded and unchanged: a matching turn does not hint it again.
    const hints = restarted.buildTurnMessages({ text: "More photos please" }).map((message) => (typeof message.content === "string" ? message.content : ""));
    expect(hints.join("\n")).not.toContain('id="brand-images"');
    restarted.close();
  });

  it("on an AgentSession restarted on a rebuild that changed a loaded note, the anchor lists the revision it has now, changed, as the hint says", async () => {
    const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge"], join(tempDir("gamma-rebuild-"), "project"));
    const notePath = join(root, "knowledge", "brand-images.md");
    writeFileSync(notePath, readFileSync(notePath, "utf8").replace("no staged stock handshakes", "no staged stock photos"));
    const built = await build({ root, persistentCache: false });
    expect(built.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
    const rebuilt = loadArtifacts({ distDir: join(root, "dist") });
    const before = artifacts.knowledge.notes.get("brand-images")?.revision ?? "";
    const now = rebuilt.knowledge.notes.get("brand-images")?.revision ?? "";
    expect(now).not.toBe(before);

    const faux = pi.faux();
    const setup = await fauxSessionSetup(faux);
    const statePath = join(setup.cwd, "state.jsonl");
    const settingsManager = SettingsManager.inMemory({ compaction: { enabled: false, keepRecentTokens: 1 } });
    const first = await createGammaSession({ artifacts, variant: "base", store: new FileStateStore(statePath), executors: recordingExecutors(), ...setup, sessionManager: SessionManager.create(setup.cwd, join(setup.cwd, "sessions")), settingsManager });
    faux.setResponses([toolUse(fetch("brand-images")), fauxAssistantMessage("Loaded.")]);
    await first.session.prompt("Choose photos for the deck");
    const sessionFile = first.session.sessionFile ?? "";
    pi.disposeNow(first);

    const second = pi.disposeAfterTest(
      await createGammaSession({ artifacts: rebuilt, variant: "base", store: new FileStateStore(statePath), executors: recordingExecutors(), ...setup, sessionManager: SessionManager.open(sessionFile, join(setup.cwd, "sessions")), settingsManager }),
    );
    const line = `- brand-images: Workspace image rules (source user, changed to revision ${now} since you loaded revision ${before}: no longer in force; fetch it again before applying it)`;
    expect(second.controller.anchorMessage().content).toContain(line);
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, toolUse(fetch("brand-images"))), seeing(seen, fauxAssistantMessage("Loaded again."))]);
    await second.session.prompt("More photos please");
    // What the model reads on its first call after the restart: the anchor and the hint agree.
    expect((seen[0]?.messages ?? []).map(textOf).find((text) => text.startsWith("<session_state"))).toContain(line);
    expect(hintsIn(seen[0])).toHaveLength(1);
    expect(hintsIn(seen[0])[0]).toContain('<knowledge id="brand-images" name="Workspace image rules" scope="Use for image selection or image generation in this workspace." source="user" status="changed" />');
    // The model fetched the revision the session has now: the anchor lists it, in force.
    expect(second.controller.state.knowledge?.loaded.map((note) => [note.id, note.revision, note.changedTo])).toEqual([["brand-images", now, undefined]]);
    expect(second.controller.anchorMessage().content).toContain(`- brand-images: Workspace image rules (source user, revision ${now})`);
  });

  it("on an AgentSession, hints ride with session.prompt and the compaction anchor lists the loaded note", async () => {
    const faux = pi.faux();
    const events: ProtocolEvent[] = [];
    const open = pi.disposeAfterTest(
      await createGammaSession({
        artifacts,
        variant: "base",
        executors: recordingExecutors(),
        onProtocolEvent: (event) => events.push(event),
        ...(await fauxSessionSetup(faux)),
        settingsManager: SettingsManager.inMemory({ compaction: { enabled: false, keepRecentTokens: 1 } }),
      }),
    );
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, toolUse(fetch("deck-typography"))), fauxAssistantMessage("Titles fixed.")]);
    await open.session.prompt("Shorten the card titles");
    expect(seen[0]?.messages.map(textOf)[0]).toBe("Shorten the card titles");
    expect(seen[0]?.messages.map(textOf)[1]).toContain('<knowledge id="deck-typography"');
    faux.appendResponses([fauxAssistantMessage("More.")]);
    await open.session.prompt("And the speaker notes");

    faux.setResponses(Array.from({ length: 4 }, () => fauxAssistantMessage("Summary: titles were shortened.")));
    await open.session.compact();
    const after: SeenContext[] = [];
    faux.setResponses([seeing(after, fauxAssistantMessage("Continuing."))]);
    await open.session.prompt("continue");
    const anchor = (after[0]?.messages ?? []).map(textOf).find((text) => text.startsWith("<session_state"));
    expect(anchor).toContain("- deck-typography: Card text limits (source system, revision sha256:");
    expect(events.filter((event) => event.type === "knowledge_loaded").map((event) => event.type === "knowledge_loaded" && event.id)).toEqual(["deck-typography"]);
  });
});

describe("the knowledge guide's transcript", () => {
  const knowledgeGuide = docPage("docs/guide/knowledge.md");
  // The guide shows these two blocks; every byte comes from this run.
  it("is what the model receives on the embedded default, then after a host changed a loaded live note, and the anchor's list", async () => {
    const gamma = agent();
    const live = { id: "client-colours", name: "Client colours", scope: "Use for colour choices in decks for this client.", source: "user" as const, appliesTo: { keywords: ["colour", "palette"] } };
    gamma.controller.knowledge.registerNote({ ...live, body: "Primary colour: teal #0F8B8D.\n" });
    const seen: SeenContext[] = [];
    gamma.faux.setResponses([
      seeing(seen, toolUse(fauxToolCall("read_workspace_rule", { knowledgeId: "brand-images" }, { id: "call_1" }))),
      toolUse(fauxToolCall("read_workspace_rule", { knowledgeId: "client-colours" }, { id: "call_2" })),
      fauxAssistantMessage("Ready."),
    ]);
    await gamma.prompt("Make a deck about tide pools with photos and short card titles");
    gamma.controller.knowledge.registerNote({ ...live, body: "Primary colour: navy #1B2A4A.\n" });
    gamma.faux.setResponses([seeing(seen, fauxAssistantMessage("Navy it is."))]);
    await gamma.prompt("Continue");
    const loaded = /<loaded_knowledge>[\s\S]*?<\/loaded_knowledge>/.exec(gamma.controller.anchorMessage().content)?.[0];
    const received = [...hintsIn(seen[0]), ...hintsIn(seen[1]), loaded].join("\n\n");
    const events = gamma.events.filter((event) => event.type.startsWith("knowledge_")).map((event) => JSON.stringify(event));
    expect(knowledgeGuide.blockStartingWith("<knowledge_hints>\n")).toBe(`${received}\n`);
    expect(knowledgeGuide.blockStartingWith('{"type":"knowledge_hinted"')).toBe(`${events.join("\n")}\n`);
  });
});
