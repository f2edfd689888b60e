import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { prepareDist } from "./helpers/dist.js";
import { fauxAssistantMessage, seeing, type SeenContext } from "./helpers/pi.js";
import { fauxAgent, fauxPerTest } from "./helpers/session.js";

/**
 * Two of the design's open questions whose answers no other test pins as a
 * whole: who selects skills, and which instruction source defines playbook
 * precedence. The runtime guide's "Design decisions" names this file.
 */

const pi = fauxPerTest();
const artifacts = loadArtifacts({ distDir: prepareDist() });
const modelInvocable = [...artifacts.skills.values()].filter((skill) => skill.modelInvocable).map((skill) => skill.name).sort();

describe("the model selects skills from the complete catalog", () => {
  it("every variant's system prompt holds the whole catalog, and the skill tool accepts exactly its names, on every turn", async () => {
    for (const [variant, prompt] of Object.entries(artifacts.variants)) {
      expect(prompt.startsWith(artifacts.prefix), variant).toBe(true);
      expect(artifacts.prefix).toContain(artifacts.catalog.trimEnd());
    }
    for (const name of modelInvocable) expect(artifacts.catalog).toContain(`name="${name}"`);
    const skillTool = artifacts.tools.find((tool) => tool.name === "skill");
    expect((skillTool?.parameters as { properties: { name: { enum: string[] } } }).properties.name.enum).toEqual(modelInvocable);
    // Two turns on different topics: the harness sends the same system prompt and tools, it filters nothing per turn.
    const faux = pi.faux();
    const { agent } = fauxAgent(faux, artifacts);
    const seen: SeenContext[] = [];
    faux.setResponses([seeing(seen, fauxAssistantMessage("ok")), seeing(seen, fauxAssistantMessage("ok"))]);
    await agent.prompt("Make a deck about tide pools");
    await agent.prompt("Import uploads/q3.pptx");
    expect(seen[1]?.systemPrompt).toBe(seen[0]?.systemPrompt);
    expect(seen[1]?.tools).toEqual(seen[0]?.tools);
    expect(seen[0]?.systemPrompt).toBe(artifacts.variants.base);
  });
});

describe("playbook precedence has one source: the static prefix's instruction precedence", () => {
  it("prompts/partials/precedence.hbs reaches every variant byte for byte, and no skill or note restates an order", () => {
    const precedence = readFileSync(new URL("../../prompts/partials/precedence.hbs", import.meta.url), "utf8");
    expect(precedence).toContain("2. Active playbook instructions: the workflow skills that are loaded or preloaded.");
    for (const [variant, prompt] of Object.entries(artifacts.variants)) expect(prompt.split(precedence).length - 1, variant).toBe(1);
    const bodies = [...[...artifacts.skills.values()].map((skill) => skill.body), ...[...artifacts.knowledge.notes.values()].map((note) => note.body)];
    for (const body of bodies) expect(body).not.toMatch(/instruction precedence|takes precedence over|higher source wins/i);
  });
});

describe("the runtime guide's Design decisions", () => {
  it("answers the design's eight open questions, each naming tests that exist and hold it", () => {
    const guide = readFileSync(new URL("../../docs/guide/runtime.md", import.meta.url), "utf8");
    const section = /^## Design decisions\n([\s\S]*?)^## /m.exec(guide)?.[1] ?? "";
    const answers = section.split(/^\d+\. /m).slice(1);
    expect(answers.map((answer) => /^\*\*(.+?)\*\*/.exec(answer)?.[1])).toEqual([
      "Does the harness select candidate skills, or does the model select from the complete catalog?",
      "Does a workflow skill load its required reference skills automatically?",
      "How does the harness represent an unrecoverable step error?",
      "Which instruction source defines playbook precedence?",
      "How long does loaded knowledge remain active?",
      "Which runtime updates interrupt an active tool operation?",
      "Does `blockOnUser: true` end the run immediately after the message?",
      "How does the interface display checklist progress inside a workflow skill?",
    ]);
    for (const answer of answers) {
      const held = answer.slice(answer.indexOf("Held by")).replace(/\s+/g, " ");
      const files = [...held.matchAll(/`(test\/[\w/.-]+\.test\.ts)`/g)].map((match) => readFileSync(new URL(`../../${match[1]}`, import.meta.url), "utf8"));
      expect(files.length, held).toBeGreaterThan(0);
      // Each quoted test name (up to an ellipsis) is a test in one of the files the answer names.
      const names = [...held.matchAll(/"([^"]+)"/g)].map((match) => (match[1] as string).replace(/;? …$/, ""));
      expect(names.length, held).toBeGreaterThan(0);
      for (const name of names) expect(files.some((file) => file.includes(name)), name).toBe(true);
    }
  });
});
