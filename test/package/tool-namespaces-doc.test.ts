import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ruleRegistry } from "../../src/diagnostics/rules/index.js";
import { runCliInProcessFrom } from "../helpers/cli.js";

const repoRoot = new URL("../../", import.meta.url);
const page = readFileSync(new URL("docs/guide/tool-namespaces.md", repoRoot), "utf8");
const read = (path: string): string => readFileSync(new URL(path, repoRoot), "utf8");

/** The body of the first fenced block that follows `after` in the page. */
function blockAfter(after: string, fence = "```"): string {
  const start = page.indexOf(`${fence}`, page.indexOf(after));
  const open = page.indexOf("\n", start) + 1;
  return page.slice(open, page.indexOf("\n```", open) + 1);
}

describe("docs/guide/tool-namespaces.md shows the embedded default as it is", () => {
  it("quotes the drive namespace's declaration, its tools in order and the start of its description", () => {
    const declared = JSON.parse(read("schemas/namespaces/drive/namespace.json")) as { name: string; description: string; tools: string[] };
    const shown = blockAfter("and the `drive-files` workflow that needs it:");
    expect(shown).toContain(`"name": "${declared.name}"`);
    expect(shown).toContain(`"tools": ${JSON.stringify(declared.tools).replace(/","/g, '", "')}`);
    const start = /"description": "(.*) …"/.exec(shown)?.[1] ?? "";
    expect(start.length).toBeGreaterThan(20);
    expect(declared.description.startsWith(start)).toBe(true);
    expect(read("skills/drive-files/SKILL.md")).toContain("metadata:\n  gamma-type: workflow\n  gamma-requires-skills: ask-user-questions\n  gamma-tool-namespaces: drive\n");
    expect(page).toContain("(`drive-files` declares `gamma-tool-namespaces: drive` under `metadata`");
  });

  it("shows the namespace catalog exactly as the embedded default's static prefix holds it", () => {
    const catalog = blockAfter("The embedded default's prefix holds:");
    expect(read("dist/prefix.md")).toContain(catalog.trimEnd());
  });

  it("shows build's tool line exactly as printed", async () => {
    const { code, stdout } = await runCliInProcessFrom(new URL(".", repoRoot).pathname, "build");
    expect(code).toBe(0);
    const line = blockAfter("`build` prints the tokens of the stable tool set and of each namespace:");
    expect(stdout).toContain(line);
  });

  it("lists every namespace rule with its registered severity", () => {
    const ids = Object.keys(ruleRegistry).filter((id) => id.startsWith("namespace/") || ["variant/unknown-namespace", "skill/namespace-unknown", "skill/namespace-on-reference"].includes(id));
    expect(ids).toHaveLength(12);
    for (const id of ids) expect(page).toContain(`| \`${id}\` | ${ruleRegistry[id as keyof typeof ruleRegistry].severity} |`);
  });
});
