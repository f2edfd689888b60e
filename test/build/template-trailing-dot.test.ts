/**
 * A path that ends in a dot is a syntax error at the dot, wherever a path
 * stands (a value, a block's argument, a helper's argument, a partial's
 * context); a dot written apart from the expression before it is the current
 * context, as Handlebars means it.
 */
import { describe, expect, it } from "vitest";
import { loadHandlebars, createEngine, parseTemplate } from "../../src/pipeline/render/templates.js";

async function parse(text: string): Promise<unknown> {
  const engine = createEngine(await loadHandlebars());
  const parsed = parseTemplate(engine, { path: "prompts/prefix.hbs", text, contentHash: "x" });
  return "ruleId" in parsed ? { ruleId: parsed.ruleId, at: `${parsed.line}:${parsed.column}`, message: parsed.message } : "parsed";
}

describe("a path that ends in a dot", () => {
  it.each([
    ["{{catalog.}}", "1:10", "catalog."],
    ["{{skills.list.}}", "1:14", "skills.list."],
    ["{{#each items.}}x{{/each}}", "1:14", "items."],
    ["{{#if a}}\n  {{join names. \", \"}}\n{{/if}}", "2:15", "names."],
    ["{{> entry item.}}", "1:15", "item."],
    ["{{eq (join list.) \"x\"}}", "1:16", "list."],
  ])("%j is a template/parse-error at the dot", async (text, at, written) => {
    expect(await parse(text)).toEqual({ ruleId: "template/parse-error", at, message: expect.stringContaining(`at the end of the path \`${written}\``) as unknown });
  });

  it.each(["{{join list .}}", "{{#each items}}{{.}}{{/each}}", "{{catalog}}", "{{a.b}}"])("%j parses: a dot apart from the path is the context", async (text) => {
    expect(await parse(text)).toBe("parsed");
  });
});
