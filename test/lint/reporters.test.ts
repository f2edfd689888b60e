import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createDiagnostic, type Diagnostic } from "../../src/diagnostics/diagnostic.js";
import { exitCodeFor } from "../../src/diagnostics/exit-code.js";
import { escapeData, escapeProperty } from "../../src/diagnostics/reporters/github.js";
import { formatDiagnostics, isReporterName } from "../../src/diagnostics/reporters/index.js";
import { readGolden } from "../helpers/golden.js";

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
  // A name on disk may hold a line break (a forged `::error` workflow command in CI), ESC and C1 controls (terminal commands),
  // Unicode line separators or bidi controls (text shown in another order): each is printed as its escape, as in messages.
  it("prints a hostile file name, in the header and in a related location, as one line of plain text (golden file)", () => {
    const names = ["skills/style-guide/notes\n::error file=README.md,line=1::Build compromised\u001b[8m.md", "skills/x\r\n::warning::hello\u009b2J\t\u0085/SKILL.md", "skills/\u202egnp.exe\u2066\u2028\u2029\u200f\u061c\u007f/SKILL.md"];
    const diagnostics = [
      createDiagnostic("skill/unreferenced-file", names[0] ?? "", range, "Unexpected file nobody links to"),
      createDiagnostic("skill/name-duplicate", names[1] ?? "", range, 'Unexpected name "x\u001b[2J" again', { file: names[2] ?? "", range, message: "first\nused here" }),
    ];
    const text = formatDiagnostics("stylish", diagnostics, { errorCount: 1, warningCount: 0, noteCount: 1 });
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(text.split("\n").filter((line) => line.startsWith("::"))).toEqual([]);
    expect(text).toBe(readGolden(fileURLToPath(new URL("golden/hostile-names.stylish.txt", import.meta.url)), text));
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
