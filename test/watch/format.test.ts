import { describe, expect, it } from "vitest";
import type { WatchBuildEvent } from "../../src/watch/events.js";
import { createDiagnostic } from "../../src/diagnostics/diagnostic.js";
import { formatWatchEvent, formatWatchEventJson, PREFIX_INVALIDATED, withFilesFromWorkingFolder } from "../../src/watch/format.js";

const rebuild: WatchBuildEvent = {
  type: "rebuild",
  changedPaths: ["skills/import/SKILL.md"],
  ok: true,
  written: ["catalog.xml", "manifest.json", "prefix.md", "skills/import.md", "variants/base.md", "variants/import.md"],
  removed: [],
  durationMs: 23,
  diagnostics: [],
  errorCount: 0,
  warningCount: 0,
  noteCount: 0,
};

describe("watch output lines", () => {
  it("prints one line per rebuild: what changed, what was written, how long it took", () => {
    expect(formatWatchEvent(rebuild)).toBe(
      "✔ skills/import/SKILL.md → rebuilt in 23 ms · wrote catalog.xml, manifest.json, prefix.md, skills/import.md (+2 more)\n",
    );
  });

  it("says so when nothing in dist/ had to change", () => {
    expect(formatWatchEvent({ ...rebuild, type: "initial", changedPaths: [], written: [], durationMs: 5 })).toBe(
      "✔ built in 5 ms · dist/ already up to date\n",
    );
  });

  it("lists removed artifacts and counts warnings", () => {
    const line = formatWatchEvent({ ...rebuild, written: ["catalog.xml"], removed: ["skills/old.md"], warningCount: 2 });
    expect(line).toBe("✔ skills/import/SKILL.md → rebuilt in 23 ms · wrote catalog.xml · removed skills/old.md · 2 warnings\n");
  });

  it("prints changed and written names, and an error's message, with their control characters escaped: one line each", () => {
    const line = formatWatchEvent({ ...rebuild, changedPaths: ["skills/x\n::error::forged\u001b[8m/SKILL.md"], written: ["skills/x/references/\u202egnp.md"] });
    expect(line).toBe("✔ skills/x\\u000a::error::forged\\u001b[8m/SKILL.md → rebuilt in 23 ms · wrote skills/x/references/\\u202egnp.md\n");
    const error = formatWatchEvent({ type: "error", changedPaths: ["a\rb"], durationMs: 4, message: "cannot read skills/x\n::error::forged\u001b[8m" });
    expect(error).toBe("✖ a\\u000db → watch error after 4 ms: cannot read skills/x ::error::forged\\u001b[8m\n");
  });

  it("reports a broken save and that dist/ was kept", () => {
    const line = formatWatchEvent({ ...rebuild, ok: false, written: [], errorCount: 1, warningCount: 0 });
    expect(line).toBe("✖ skills/import/SKILL.md → build failed in 23 ms: 1 error, 0 warnings · dist/ left as it was\n");
  });

  it("warns on a second line when the static prefix changed, with tokens before and after", () => {
    const text = formatWatchEvent({
      ...rebuild,
      prefixChange: { cacheKeyBefore: "a", cacheKeyAfter: "b", tokensBefore: 2345, tokensAfter: 2351 },
    });
    const lines = text.split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toBe(`⚠ ${PREFIX_INVALIDATED} (static prefix 2345 → 2351 tokens)`);
    expect(PREFIX_INVALIDATED).toBe("this edit invalidates the cached prefix of every variant");
  });

  it("says what invalidated blocks cost per affected variant", () => {
    const text = formatWatchEvent({ ...rebuild, invalidation: [{ variant: "import", tokens: 6576, openaiTokens: 6576, dollarsPer1000Sessions: { "anthropic/claude-sonnet-4-5": 22.69, "openai/gpt-5": 7.4 } }] });
    expect(text.split("\n").slice(1)).toEqual([
      "⚠ this edit invalidates cached blocks",
      "  import: 6576 tokens uncached until the cache is warm again, $22.69 (anthropic/claude-sonnet-4-5), $7.40 (openai/gpt-5) per 1,000 cold sessions",
      "",
    ]);
  });

  it("names both providers' counts when OpenAI's exact-prefix cache keeps more than Anthropic's blocks", () => {
    const text = formatWatchEvent({ ...rebuild, invalidation: [{ variant: "deck-generation", tokens: 6606, openaiTokens: 4352, dollarsPer1000Sessions: { "anthropic/claude-sonnet-4-5": 22.79, "openai/gpt-5": 4.9 } }] });
    expect(text.split("\n").slice(2, 3)).toEqual([
      "  deck-generation: 6606 tokens uncached on Anthropic, 4352 on OpenAI until the cache is warm again, $22.79 (anthropic/claude-sonnet-4-5), $4.90 (openai/gpt-5) per 1,000 cold sessions",
    ]);
  });

  it("prints watcher faults", () => {
    expect(formatWatchEvent({ type: "error", changedPaths: [], durationMs: 0, message: "EMFILE: too many open files" })).toBe(
      "✖ watch error after 0 ms: EMFILE: too many open files\n",
    );
  });

  it("prints exactly one JSON document per line in json format", () => {
    const line = formatWatchEventJson(rebuild);
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1)).not.toContain("\n");
    expect(JSON.parse(line)).toEqual(rebuild);
  });

  it("names each diagnostic's file relative to the working folder, whatever --root is", () => {
    const finding = createDiagnostic("skill/unknown-key", "skills/import/SKILL.md", { start: { line: 5, column: 1 }, end: { line: 5, column: 14 } }, "Unexpected key");
    const event = { ...rebuild, diagnostics: [finding], warningCount: 1 };
    const printed = withFilesFromWorkingFolder(event, "my-agent", "/home/user/repo");
    expect(printed.type !== "error" && printed.diagnostics.map((diagnostic) => diagnostic.file)).toEqual(["my-agent/skills/import/SKILL.md"]);
    expect(withFilesFromWorkingFolder(event, ".", "/home/user/repo")).toEqual(event);
  });
});
