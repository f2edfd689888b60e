import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { copyParts, removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { copyEmbeddedDefault, repoRoot } from "../lsp/client.js";
import { closeSessions, startMcp, structured, toolError } from "./client.js";

/**
 * The MCP server's promises at their edges: paths that lead out of the
 * project or spell its root another way, answers too large to send, the
 * compiler's view of an agent whose lint profile is agentskills, the end of
 * stdin, paths lint reads nothing in, and drafts checked before they exist.
 */

const PLAIN = join(repoRoot, "test", "fixtures", "mcp", "plain-collection");
const IMPORT = "skills/import/SKILL.md";

interface Finding {
  file: string;
  line: number;
  column: number;
  ruleId: string;
  message: string;
  related?: { file: string; line: number; column: number };
}
interface Lint {
  path: string;
  scope: string;
  errorCount: number;
  diagnostics: Finding[];
}

afterEach(async () => {
  await closeSessions();
  await removeTempDirs();
});

async function embeddedDefault(): Promise<string> {
  return copyParts(repoRoot, ["dist"], await copyEmbeddedDefault());
}

const sha256 = (path: string): string => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("gamma-prompt mcp and paths that lead out of the project or spell its root another way", () => {
  it("refuses lint_text for a SKILL.md not written yet whose folder is a link out of the root, as lint refuses the folder", async () => {
    const root = await copyParts(PLAIN, ["skills"], await tempDir("gamma mcp link out"));
    const outside = await tempDir("gamma mcp outside");
    writeFileSync(join(outside, "notes.md"), "private\n");
    symlinkSync(outside, join(root, "skills", "drafts"));
    // A link to a folder that does not exist yet leads out as well.
    symlinkSync(join(outside, "later"), join(root, "skills", "later"));
    const session = await startMcp(root);
    const draft = (name: string): string => `---\nname: ${name}\ndescription: Use when the user asks for drafts of a document.\n---\n\n# Drafts\n\n[a](notes.md) [b](other.md)\n`;
    const out = (path: string): string => `Unexpected path "${path}": it leads outside the project root ${root} (through a symbolic link); expected the path of a SKILL.md inside it`;
    expect(toolError(await session.call("lint_text", { path: "skills/drafts/SKILL.md", text: draft("drafts") }))).toBe(out("skills/drafts/SKILL.md"));
    // Without `path`, the same place from its name.
    expect(toolError(await session.call("lint_text", { text: draft("drafts") }))).toBe(out("skills/drafts/SKILL.md"));
    expect(toolError(await session.call("lint_text", { text: draft("later") }))).toBe(out("skills/later/SKILL.md"));
    expect(toolError(await session.call("lint", { path: "skills/drafts" }))).toBe(`Unexpected path "skills/drafts": it leads outside the project root ${root} (through a symbolic link); expected a skill folder or file inside it`);
  });

  it("takes an absolute path in either spelling of a root reached through a link, and still refuses one outside it", async () => {
    const real = await copyParts(PLAIN, ["skills"], await tempDir("gamma mcp spelled"));
    const linked = `${real}-link`;
    symlinkSync(real, linked);
    try {
      // Started in the link: the working folder is the real path.
      const inLink = await startMcp(linked);
      for (const path of [join(linked, "skills", "release-notes"), join(real, "skills", "release-notes")]) {
        expect(structured<Lint>(await inLink.call("lint", { path })), path).toMatchObject({ scope: "skills/release-notes", errorCount: 0 });
      }
      expect(structured<Lint>(await inLink.call("lint_text", { path: join(linked, "skills", "new-one", "SKILL.md"), text: "---\nname: new-one\ndescription: Use when a new one is wanted.\n---\n\n# New\n" }))).toMatchObject({ path: "skills/new-one/SKILL.md", errorCount: 0 });
      // Started with --root naming the link: the root keeps that spelling, and the real one is taken too.
      const byRoot = await startMcp(await tempDir("gamma mcp elsewhere"), ["--root", linked]);
      for (const path of [join(real, "skills", "release-notes", "SKILL.md"), join(linked, "skills", "release-notes", "SKILL.md")]) {
        expect(structured<Lint>(await byRoot.call("lint", { path })), path).toMatchObject({ scope: "skills/release-notes/SKILL.md" });
      }
      expect(toolError(await byRoot.call("lint", { path: join(real, "..") }))).toBe(`Unexpected path ${JSON.stringify(join(real, ".."))}: outside the project root ${linked}; expected a skill folder or file inside it`);
    } finally {
      rmSync(linked);
    }
  });
});

describe("gamma-prompt mcp and a skill folder the config's `ignore` leaves out", () => {
  it("names the ignore entry, not the skills globs", async () => {
    const root = await copyParts(PLAIN, ["skills"], await tempDir("gamma mcp ignore"));
    writeFileSync(join(root, "gamma-prompt.config.json"), '{ "ignore": ["skills/release-*"] }\n');
    const session = await startMcp(root);
    const message =
      'Unexpected path "skills/release-notes/SKILL.md": its skill folder is left out by the entry "skills/release-*" of the project\'s `ignore` in gamma-prompt.config.json, so lint and build never read it; expected a SKILL.md in a folder it does not leave out, or that entry removed';
    expect(toolError(await session.call("lint", { path: "skills/release-notes" }))).toBe(message);
    expect(toolError(await session.call("fix_file", { path: "skills/release-notes/SKILL.md" }))).toBe(message);
    expect(toolError(await session.call("lint_text", { path: "skills/release-notes/SKILL.md", text: "---\nname: release-notes\n---\n" }))).toBe(message);
  });
});

describe("gamma-prompt mcp resource URIs", () => {
  it("lists an output folder's files under percent-encoded URIs that read back, and answers a bad encoding of either scheme with invalid params", async () => {
    const root = await copyEmbeddedDefault();
    const out = "out%41 #1";
    cpSync(join(repoRoot, "dist"), join(root, out), { recursive: true });
    const session = await startMcp(root, ["--out", out]);
    const { resources } = await session.client.listResources();
    const project = resources.filter((resource) => resource.uri.startsWith("gamma-prompt://project/"));
    expect(project[0]?.uri).toBe("gamma-prompt://project/out%2541%20%231/manifest.json");
    expect(project[0]?.name).toBe(`${out}/manifest.json`);
    for (const resource of project) {
      const [content] = (await session.client.readResource({ uri: resource.uri })).contents;
      expect(content && "text" in content ? content.text : undefined, resource.uri).toBe(readFileSync(join(root, decodeURIComponent(resource.uri.slice("gamma-prompt://project/".length))), "utf8"));
    }
    await expect(session.client.readResource({ uri: "gamma-prompt://rules/skill%2" })).rejects.toMatchObject({ code: -32602, message: "MCP error -32602: Unexpected resource gamma-prompt://rules/skill%2: its rule is not valid percent-encoding" });
    await expect(session.client.readResource({ uri: "gamma-prompt://project/dist%2" })).rejects.toMatchObject({ code: -32602 });
  });
});
