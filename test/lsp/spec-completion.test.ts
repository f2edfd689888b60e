import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CompletionItem } from "vscode-languageserver/node";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { disposeClients, start } from "./client.js";

afterEach(async () => {
  await disposeClients();
  await removeTempDirs();
});

/**
 * In a plain Agent Skills collection the key completion offers the
 * specification's fields, worded as the specification words them, and the
 * hosts' keys; never the Gamma manifest's own keys.
 */
describe("manifest key completion in an Agent Skills collection", () => {
  it("offers the specification's fields with their limits, and no Gamma key", async () => {
    const root = await tempDir("gamma-lsp-spec");
    mkdirSync(join(root, "skills", "pdf"), { recursive: true });
    const text = "---\nname: pdf\n\n---\n\n# PDF\n";
    writeFileSync(join(root, "skills", "pdf", "SKILL.md"), text);
    const client = await start(root);
    await client.open("skills/pdf/SKILL.md", text);
    const items = await client.connection.sendRequest<CompletionItem[]>("textDocument/completion", { textDocument: { uri: client.uri("skills/pdf/SKILL.md") }, position: { line: 2, character: 0 } });
    const byLabel = new Map(items.map((item) => [item.label, item]));
    for (const key of ["description", "license", "compatibility", "metadata", "allowed-tools"]) expect([...byLabel.keys()], key).toContain(key);
    for (const key of ["name", "type", "requiresSkills", "conflictsWith", "toolNamespaces"]) expect([...byLabel.keys()], key).not.toContain(key);
    expect(String(byLabel.get("description")?.documentation)).toContain("1-1024 characters: what the skill does and when to use it");
    expect(String(byLabel.get("compatibility")?.documentation)).toContain("1-500 characters");
    expect(String(byLabel.get("metadata")?.documentation)).toContain("a map from string keys to string values");
    expect(String(byLabel.get("allowed-tools")?.documentation)).toContain("space-separated string");
  });
});
