import { describe, expect, it } from "vitest";
import { collapseWhitespace, escapeXmlAttribute, escapeXmlText, renderCatalog } from "../../src/skills/catalog.js";

describe("catalog escaping (one table, byte for byte)", () => {
  it("escapes &, < and > in text and leaves quotes alone", () => {
    expect(escapeXmlText(`a & b < c > d "e" 'f'`)).toBe(`a &amp; b &lt; c &gt; d "e" 'f'`);
  });

  it("escapes &, <, > and double quotes in attributes", () => {
    expect(escapeXmlAttribute(`a & b < c > d "e" 'f'`)).toBe(`a &amp; b &lt; c &gt; d &quot;e&quot; 'f'`);
  });

  it("escapes an existing entity again rather than trusting it", () => {
    expect(escapeXmlText("&amp;")).toBe("&amp;amp;");
  });

  it("collapses every run of whitespace, line breaks included, to one space", () => {
    expect(collapseWhitespace("  Use when\n\tediting   cards\r\n ")).toBe("Use when editing cards");
  });

  it("agrees with collapsing every run and trimming on already-collapsed text and on each kind of whitespace", () => {
    const samples = ["Use when editing cards", "", " ", "a", "a b", "a  b", " a", "a ", "a\tb", "a\nb", "a\u00a0b", "a\u2028b", "a\ufeffb", "a \u3000b", "\u00a0"];
    for (const sample of samples) expect(collapseWhitespace(sample), JSON.stringify(sample)).toBe(sample.replace(/\s+/g, " ").trim());
  });
});

describe("renderCatalog", () => {
  it("renders the design's multi-line form, sorted by name, without a trailing newline", () => {
    const catalog = renderCatalog([
      { name: "zeta", type: "reference", description: "Use when <zeta> & more." },
      { name: "deck-generation", type: "workflow", description: "TRIGGER for every new presentation request,\n  including a request that names only a topic." },
    ]);
    expect(catalog).toBe(
      [
        "<available_skills>",
        "  <skill",
        '    name="deck-generation"',
        '    type="workflow"',
        '    path="skills/deck-generation/SKILL.md"',
        "  >",
        "    TRIGGER for every new presentation request, including a request that names only a topic.",
        "  </skill>",
        "  <skill",
        '    name="zeta"',
        '    type="reference"',
        '    path="skills/zeta/SKILL.md"',
        "  >",
        "    Use when &lt;zeta&gt; &amp; more.",
        "  </skill>",
        "</available_skills>",
      ].join("\n"),
    );
  });

  it("renders an empty block when there are no skills", () => {
    expect(renderCatalog([])).toBe("<available_skills>\n</available_skills>");
  });
});
