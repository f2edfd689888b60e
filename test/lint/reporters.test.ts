import { describe, expect, it } from "vitest";
import { createDiagnostic, type Diagnostic } from "../../src/diagnostics/diagnostic.js";
import { exitCodeFor } from "../../src/diagnostics/exit-code.js";
import { escapeData, escapeProperty } from "../../src/diagnostics/reporters/github.js";
import { formatDiagnostics, isReporterName } from "../../src/diagnostics/reporters/index.js";

const range = { start: { line: 2, column: 3 }, end: { line: 2, column: 9 } };
const hostile: Diagnostic = createDiagnostic("skill/unknown-key", "skills/a,b:c/SKILL.md", range, 'Unexpected key "100%\r\nfake", expected a known key');

describe("github reporter", () => {
  it("escapes data and properties as the workflow-command format requires", () => {
    expect(escapeData("50% a\r\nb")).toBe("50%25 a%0D%0Ab");
    expect(escapeProperty("a:b,c%")).toBe("a%3Ab%2Cc%25");
    expect(formatDiagnostics("github", [hostile], { errorCount: 0, warningCount: 1 })).toBe(
      "::warning file=skills/a%2Cb%3Ac/SKILL.md,line=2,col=3,endLine=2,endColumn=9,title=skill/unknown-key::Unexpected key \"100%25%0D%0Afake\", expected a known key\n",
    );
  });
  it("prints nothing for no findings", () => {
    expect(formatDiagnostics("github", [], { errorCount: 0, warningCount: 0 })).toBe("");
  });
});

describe("stylish reporter", () => {
  it("keeps one row per finding even when a message holds line breaks", () => {
    const text = formatDiagnostics("stylish", [hostile], { errorCount: 0, warningCount: 1 });
    expect(text).toBe('\nskills/a,b:c/SKILL.md\n  2:3  warning  Unexpected key "100% fake", expected a known key  skill/unknown-key\n\n✖ 1 problem (0 errors, 1 warning)\n');
  });
  it("prints nothing for no findings", () => {
    expect(formatDiagnostics("stylish", [], { errorCount: 0, warningCount: 0 })).toBe("");
  });
});

describe("json reporter", () => {
  it("keeps a hostile message intact inside one JSON document", () => {
    const text = formatDiagnostics("json", [hostile], { errorCount: 0, warningCount: 1 });
    expect(text.split("\n")).toHaveLength(2);
    expect((JSON.parse(text) as { diagnostics: Diagnostic[] }).diagnostics[0]).toEqual(hostile);
  });
});

describe("reporter names and exit codes", () => {
  it("knows exactly the four formats", () => {
    expect(["stylish", "json", "github", "sarif", "", "xml"].map(isReporterName)).toEqual([true, true, true, true, false, false]);
  });
  it("fails on any error, and on warnings only beyond the maximum", () => {
    expect(exitCodeFor({ errorCount: 1, warningCount: 0 })).toBe(1);
    expect(exitCodeFor({ errorCount: 1, warningCount: 0 }, 10)).toBe(1);
    expect(exitCodeFor({ errorCount: 0, warningCount: 5 })).toBe(0);
    expect(exitCodeFor({ errorCount: 0, warningCount: 5 }, 5)).toBe(0);
    expect(exitCodeFor({ errorCount: 0, warningCount: 5 }, 4)).toBe(1);
    expect(exitCodeFor({ errorCount: 0, warningCount: 0 }, 0)).toBe(0);
  });
});
