import { describe, expect, it } from "vitest";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import { prepareDist } from "./helpers/dist.js";
import { fauxAssistantMessage, fauxToolCall, seeing, textOf, toolUse, type SeenContext } from "./helpers/pi.js";
import { fauxAgent, fauxPerTest } from "./helpers/session.js";

const pi = fauxPerTest();

const artifacts = loadArtifacts({ distDir: prepareDist() });
const body = (name: string): string => artifacts.skills.get(name)?.body ?? `missing ${name}`;
/** The skill and its requirements, depth-first, each once. */
function closure(name: string, seen: string[] = []): string[] {
  if (seen.includes(name)) return seen;
  seen.push(name);
  for (const required of artifacts.skills.get(name)?.requiresSkills ?? []) closure(required, seen);
  return seen;
}
const count = (haystack: string, needle: string): number => haystack.split(needle).length - 1;

function setup() {
  const faux = pi.faux();
  return { ...fauxAgent(faux, artifacts), faux };
}

describe("several skills loaded in one parallel batch", () => {
  it("all become active, each body reaches the model once, shared requirements load once", async () => {
    const { agent, controller, faux } = setup();
    const seen: SeenContext[] = [];
    faux.setResponses([
      toolUse(
        fauxToolCall("skill", { name: "deck-generation" }),
        fauxToolCall("skill", { name: "gml-editing" }),
        fauxToolCall("message_user", { message: "Loading the deck workflow.", blockOnUser: false }),
      ),
      seeing(seen, fauxAssistantMessage("loaded")),
    ]);
    await agent.prompt("Make a deck about tide pools, then polish card 3");
    expect(controller.state.activeSkills.map((skill) => skill.name).sort()).toEqual(
      [...new Set([...closure("deck-generation"), ...closure("gml-editing")])].sort(),
    );
    const results = seen[0]?.messages.filter((message) => message.role === "toolResult") ?? [];
    expect(results.map((message) => message.role === "toolResult" && message.toolName)).toEqual(["skill", "skill", "message_user"]);
    expect(results.every((message) => message.role === "toolResult" && !message.isError)).toBe(true);
    const context = (seen[0]?.messages ?? []).map(textOf).join("\n");
    for (const name of new Set([...closure("deck-generation"), ...closure("gml-editing")])) {
      expect(count(context, body(name)), name).toBe(1);
    }
    // Requirements follow the skill that pulled them in, in the same result.
    const first = closure("deck-generation");
    const second = closure("gml-editing").filter((name) => !first.includes(name));
    expect(textOf(results[0]).startsWith(body("deck-generation"))).toBe(true);
    for (const name of first) expect(count(textOf(results[0]), body(name)), name).toBe(1);
    for (const name of closure("gml-editing")) {
      expect(textOf(results[1]).includes(body(name)), name).toBe(second.includes(name));
    }
  });

  it("a conflicting pair in one batch: the first activates, the second is refused with a tool error naming both", async () => {
    const { agent, controller, faux } = setup();
    const seen: SeenContext[] = [];
    faux.setResponses([
      toolUse(fauxToolCall("skill", { name: "deck-generation" }), fauxToolCall("skill", { name: "import" })),
      seeing(seen, fauxAssistantMessage("ok")),
    ]);
    await agent.prompt("Import slides.pptx and also make a new deck");
    expect(controller.state.activeSkills.map((skill) => skill.name)).toEqual(closure("deck-generation"));
    const refused = seen[0]?.messages.at(-1);
    expect(refused).toMatchObject({ role: "toolResult", toolName: "skill", isError: true });
    expect(textOf(refused)).toBe(
      'Skill "import" conflicts with the active skill "deck-generation", so "import" was not loaded. Continue with "deck-generation", or ask the user which workflow to follow.',
    );
  });

  it("an unknown skill is a tool error listing the names that exist", async () => {
    const { agent, faux } = setup();
    const seen: SeenContext[] = [];
    faux.setResponses([toolUse(fauxToolCall("skill", { name: "deck-generaton" })), seeing(seen, fauxAssistantMessage("ok"))]);
    await agent.prompt("Make a deck");
    const result = seen[0]?.messages.at(-1);
    expect(result).toMatchObject({ role: "toolResult", isError: true });
    expect(textOf(result)).toMatch(/^(Unknown skill "deck-generaton", expected one of: |Validation failed for tool "skill")/);
  });
});
