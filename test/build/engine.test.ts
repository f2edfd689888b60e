import Handlebars from "handlebars";
import { describe, expect, it } from "vitest";
import { createEngine, finishText, loadHandlebars } from "../../src/pipeline/render/templates.js";
import { COMPILE_OPTIONS } from "../../src/pipeline/render/templates.js";

describe("the isolated template engine", () => {
  it("ignores helpers and partials registered on the global Handlebars", async () => {
    Handlebars.registerHelper("shout", (text: string) => text.toUpperCase());
    Handlebars.registerPartial("leak", "leaked");
    try {
      const engine = createEngine(await loadHandlebars());
      expect(() => engine.compile("{{shout x}}", COMPILE_OPTIONS)({ x: "a" })).toThrow();
      expect(() => engine.compile("{{> leak}}", COMPILE_OPTIONS)({})).toThrow();
    } finally {
      Handlebars.unregisterHelper("shout");
      Handlebars.unregisterPartial("leak");
    }
  });

  it("does not HTML-escape, and offers exactly the pure helpers eq and join besides the built-in blocks", async () => {
    const engine = createEngine(await loadHandlebars());
    const render = (template: string, context: object): string => engine.compile(template, COMPILE_OPTIONS)(context);
    expect(render("{{text}}", { text: `<a href="x">'&'</a>` })).toBe(`<a href="x">'&'</a>`);
    expect(render("{{join list \", \"}}", { list: ["a", "b"] })).toBe("a, b");
    expect(render("{{#if (eq kind \"workflow\")}}yes{{else}}no{{/if}}", { kind: "workflow" })).toBe("yes");
    expect(() => render("{{log text}}", { text: "x" })).toThrow();
    expect(() => render("{{lookup map key}}", { map: { a: 1 }, key: "a" })).toThrow();
  });

  it("ends text with exactly one newline", () => {
    expect(finishText("a\n\n\n")).toBe("a\n");
    expect(finishText("a  \t")).toBe("a\n");
    expect(finishText("a")).toBe("a\n");
  });
});
