import { describe, expect, it } from "vitest";
import type { SourceFile } from "../../src/stage-data.js";
import { prepareTemplates, type PreparedTemplates } from "../../src/pipeline/render/render.js";
import { checkTemplate } from "../../src/pipeline/render/template-check.js";
import { checkTemplateCached, contextShape } from "../../src/pipeline/render/template-check-cache.js";

function source(path: string, text: string): SourceFile {
  return { path, text, contentHash: path };
}

async function prepare(prefix: string): Promise<PreparedTemplates> {
  const prepared = await prepareTemplates({
    prefix: source("prompts/prefix.hbs", prefix),
    variant: source("prompts/variant.hbs", "{{variant}}\n"),
    partials: [source("prompts/partials/entry.hbs", "{{name}}: {{summary}}\n")],
  });
  if (Array.isArray(prepared)) throw new Error(`templates did not parse: ${JSON.stringify(prepared)}`);
  return prepared;
}

describe("template check results reused by context shape", () => {
  it("ignores scalar values but tells types, keys, empty lists and differing items apart", () => {
    expect(contextShape({ a: "x", b: [{ n: "1" }, { n: "2" }] })).toBe(contextShape({ a: "y", b: [{ n: "3" }] }));
    expect(contextShape({ a: "x" })).not.toBe(contextShape({ a: 1 }));
    expect(contextShape({ a: "x" })).not.toBe(contextShape({ a: { b: "x" } }));
    expect(contextShape({ a: "x" })).not.toBe(contextShape({ b: "x" }));
    expect(contextShape({ a: "x" })).not.toBe(contextShape({ a: undefined }));
    expect(contextShape({ list: [] })).not.toBe(contextShape({ list: [{ n: "1" }] }));
    expect(contextShape({ list: [{ n: "1" }] })).not.toBe(contextShape({ list: [{ n: "1" }, { n: "2", m: "3" }] }));
    expect(contextShape({ list: [{ n: "1" }, { m: "2" }] })).not.toBe(contextShape({ list: [{ m: "2" }, { n: "1" }] }));
  });

  it("finds exactly what an uncached check finds as the context changes shape", async () => {
    const templates = await prepare("{{title}}\n{{#each items}}{{> entry}}{{/each}}{{catalog}}\n");
    const contexts: unknown[] = [
      { title: "T", catalog: "c", items: [] },
      // The first item lacks `summary`: the cached empty-list result must not hide it.
      { title: "T", catalog: "c", items: [{ name: "a" }] },
      { title: "U", catalog: "d", items: [{ name: "b", summary: "s" }] },
      { title: "U", catalog: "d", items: [{ name: "b", summary: "s" }, { name: "c", summary: { nested: "x" } }] },
      { title: "V", catalog: "e", items: [{ name: "z" }] },
      { title: "W", catalog: "f", items: [] },
    ];
    const found: number[] = [];
    for (const context of contexts) {
      const expected = checkTemplate(templates.prefix, context, templates.partials);
      expect(checkTemplateCached(templates.checkResults, templates.prefix, context, templates.partials)).toEqual(expected);
      // Asked twice, the second answer comes from the cache and must be the same.
      expect(checkTemplateCached(templates.checkResults, templates.prefix, context, templates.partials)).toEqual(expected);
      found.push(expected.length);
    }
    // The sequence really exercises findings appearing and disappearing.
    expect(found).toEqual([0, 1, 0, 1, 1, 0]);
  });
});
