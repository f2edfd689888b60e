/**
 * The neutraliser reserves every tag the platform itself puts in front of the
 * model, so user text cannot pose as one. The list of tags is not written
 * here: it is read from what the runtime renders (the state anchor with every
 * section, a knowledge hints block, each injection kind) and from what the
 * compiler renders into the prefix (the package's templates and catalog).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { renderAnchor } from "../../src/runtime/anchor.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import type { ExecutionState } from "../../src/runtime/execution-state.js";
import { RESERVED_TAG_NAMES } from "../../src/runtime/injections/neutralise.js";
import { renderHints } from "../../src/runtime/knowledge/session-knowledge.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const artifacts = loadArtifacts({ distDir: join(repoRoot, "dist") });

/** Tag names opened or closed in a text, outside Handlebars expressions. */
function tagsIn(text: string): string[] {
  return [...text.replace(/\{\{[\s\S]*?\}\}/g, "").matchAll(/<\/?([A-Za-z][\w-]*)/g)].map((match) => match[1] as string);
}

/** How the neutraliser compares names: case, `-`, `_` and spaces do not matter. */
const canonical = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, "");

/** A state with every anchor section filled: a loaded skill, tasks, artifacts, loaded knowledge, a pending injection, a connector. */
function fullState(): ExecutionState {
  return {
    stateVersion: 1,
    revision: 3,
    variant: "base",
    activeSkills: [{ name: "gml-cli", type: "reference", activatedBy: "tool" }],
    tasks: { revision: 1, items: [{ id: "t1", title: "Outline", status: "in_progress" }] },
    pendingInjections: [
      { id: "i1", kind: "system_note", occurredAt: "2026-01-01T00:00:00Z", delivery: "next_turn", message: { role: "custom", customType: "system_note", content: "note", display: false, timestamp: 0 } },
    ],
    currentArtifacts: [{ ref: "gamma:file:g_1:d_1", path: "deck.gml", revision: "2", title: "Deck" }],
    knowledge: { loaded: [{ id: "k1", name: "Typography", source: "system", revision: "r1" }], notices: [], hintedThisTurn: [], lastTurnText: "", selectionContext: "", hintsSent: 0 },
    loadedNamespaces: ["drive"],
    connectors: [{ name: "notion", description: "Use for reading the team's Notion pages.", tools: [] }],
  } as unknown as ExecutionState;
}

function renderedTags(): Map<string, string> {
  const found = new Map<string, string>();
  const add = (where: string, names: readonly string[]) => {
    for (const name of names) if (!found.has(name)) found.set(name, where);
  };
  // The anchor, with skill bodies left out: their text is the project's, not the runtime's markup.
  const skills = new Map([...artifacts.skills].map(([name, skill]) => [name, { ...skill, body: "" }]));
  // Every section the anchor can render, the skills a host requires and the model has not loaded among them.
  add("the state anchor", tagsIn(renderAnchor({ state: fullState(), skills, injections: fullState().pendingInjections, missingRequired: ["deck-generation"] })));
  add("a knowledge hints block", tagsIn(renderHints([{ id: "k1", name: "Typography", status: "new" }, { id: "k2", name: "Old", status: "removed" }])));
  add("an injection kind", artifacts.injectionKinds.map((kind) => kind.tag));
  add("the catalog", tagsIn(artifacts.catalog));
  // The prefix as built: its namespace catalog (tool_namespaces, namespace) is rendered by the build, not by a template.
  add("the static prefix", tagsIn(artifacts.prefix));
  const prompts = join(repoRoot, "prompts");
  for (const file of readdirSync(prompts, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".hbs"))) {
    add(`prompts/${file}`, tagsIn(readFileSync(join(prompts, file), "utf8")));
  }
  return found;
}

describe("reserved tag names", () => {
  it("include every tag the runtime and the prefix render", () => {
    const tags = renderedTags();
    // The sources above really were read: the anchor, hints, injections and the prefix's own tags are among them.
    for (const name of ["session_state", "current_artifacts", "knowledge_hints", "knowledge", "system_note", "available_skills", "preloaded_skill", "loaded_tool_namespaces", "tool_namespaces", "namespace"]) expect(tags.has(name), name).toBe(true);
    const reserved = new Set(RESERVED_TAG_NAMES.map(canonical));
    const missing = [...tags].filter(([name]) => !reserved.has(canonical(name))).map(([name, where]) => `${name} (${where})`);
    expect(missing).toEqual([]);
  });
});
