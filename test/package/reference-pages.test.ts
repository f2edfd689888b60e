import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as sourcePaths from "../../src/pipeline/discover/source-paths.js";
import { docPage } from "../helpers/docs.js";
import { listFiles } from "../helpers/temp-project.js";

/**
 * The reference pages name every part of a project and of its build: each
 * source the compiler reads, each file `build` writes (the embedded default's
 * dist/), each manifest entry, each config key and each pipeline folder. A
 * part added to the product without a word in its reference page fails here.
 */
const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

function schemaKeys(name: string): string[] {
  const schema = JSON.parse(readFileSync(join(repoRoot, "schemas", `${name}.schema.json`), "utf8")) as { properties: Record<string, unknown> };
  return Object.keys(schema.properties).filter((key) => key !== "$schema");
}

/** The section of a page under `heading`, up to the next heading of that level or above. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const level = /^#+/.exec(heading)?.[0] ?? "#";
  const next = text.slice(start + heading.length + 2).search(new RegExp(`^#{1,${level.length}} `, "m"));
  return next < 0 ? text.slice(start) : text.slice(start, start + heading.length + 2 + next);
}

describe("the reference pages name every part", () => {
  it("project-layout.md: every source the compiler reads, in the layout", () => {
    const layout = docPage("docs/reference/project-layout.md").blockStartingWith("skills/<name>/SKILL.md ");
    // Inside a namespace's folder, not a place of the project.
    const inside: ReadonlySet<unknown> = new Set([sourcePaths.NAMESPACE_FILE, sourcePaths.NAMESPACE_TOOLS_DIR]);
    const sources = (Object.values(sourcePaths) as unknown[]).filter((value): value is string => typeof value === "string" && !inside.has(value));
    expect(sources.length).toBeGreaterThan(8);
    expect(sources.filter((path) => !new RegExp(`(^|[\\s(])${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[/\\s]`, "m").test(layout))).toEqual([]);
  });

  it("project-layout.md: every folder of src/pipeline/", () => {
    const text = docPage("docs/reference/project-layout.md").text;
    const folders = readdirSync(join(repoRoot, "src", "pipeline"), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(folders.filter((folder) => !text.includes(`\`${folder}\``))).toEqual([]);
  });

  it("config.md: every key of the config schema", () => {
    const text = docPage("docs/reference/config.md").text;
    expect(schemaKeys("config").filter((key) => !text.includes(`\`${key}\``) && !text.includes(`"${key}"`))).toEqual([]);
  });

  it("manifest-and-artifacts.md: every file of the embedded default's dist/, and every manifest entry", async () => {
    const table = section(docPage("docs/reference/manifest-and-artifacts.md").text, "## What `build` writes");
    const rows = [...table.matchAll(/^\| `([^`]+)` \| (.*) \|$/gm)].map((match) => ({ file: match[1] as string, text: match[2] as string }));
    const patterns = rows.map((row) => new RegExp(`^${row.file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace("<path>", ".+").replace(/<[a-z]+>/g, "[^/]+")}$`));
    const files = await listFiles(join(repoRoot, "dist"));
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((file) => !patterns.some((pattern) => pattern.test(file)))).toEqual([]);
    const manifestRow = rows.find((row) => row.file === "manifest.json")?.text ?? "";
    expect(schemaKeys("manifest").filter((key) => !manifestRow.includes(`\`${key}\``))).toEqual([]);
  });
});
