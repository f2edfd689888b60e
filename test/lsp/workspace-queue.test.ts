/**
 * When the language server analyses: an edit made while nothing runs is
 * analysed at once (no quiet period by default), and the edits made while an
 * analysis runs are taken together by one next analysis, never one each. The
 * first analysis's skill findings can leave before the rest of the project is
 * checked.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { TextDocument } from "vscode-languageserver-textdocument";
import { afterAll, describe, expect, it } from "vitest";
import type { AnalyzeInput, ProjectAnalyzer } from "../../src/analyze.js";
import { ProjectWorkspace } from "../../src/lsp/workspace.js";
import { copyParts, removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { repoRoot } from "../build/helpers.js";

afterAll(removeTempDirs);

async function workspaceOn(debounceMs: number, onPublish: () => void = () => {}) {
  const root = await copyParts(repoRoot, ["skills"], join(await tempDir(), "collection"));
  const documents = new Map<string, TextDocument>();
  const workspace = new ProjectWorkspace(
    { root, debounceMs, reportsFileChanges: () => true, publish: () => onPublish(), log: () => {} },
    { all: () => [...documents.values()], get: (uri) => documents.get(uri) },
  );
  const analysed: number[] = [];
  workspace.onAnalysed(() => analysed.push(workspace.analysedVersion("skills/import/SKILL.md") ?? 0));
  const edit = (version: number): void => {
    const uri = workspace.paths.uriOf("skills/import/SKILL.md");
    documents.set(uri, TextDocument.create(uri, "markdown", version, `---\nname: import\ndescription: Use when importing, edit ${version}.\n---\n\nBody.\n`));
    workspace.touch("skills/import/SKILL.md");
  };
  await workspace.current();
  analysed.length = 0;
  return { workspace, analysed, edit };
}

describe("the language server's analysis queue", () => {
  it.each([
    { debounceMs: 0, when: "without a quiet period, all of them in one analysis" },
    { debounceMs: 40, when: "after the quiet period set, the last edit once" },
  ])("analyses edits made while nothing runs $when", async ({ debounceMs }) => {
    const { workspace, analysed, edit } = await workspaceOn(debounceMs);
    edit(1);
    edit(2);
    edit(3);
    await workspace.current();
    expect(analysed).toEqual([3]);
  });

  it("lets the connection send the first analysis's skill findings before the build's checks start", async () => {
    // The connection writes a message on a later turn of the event loop: the first analysis must give it one
    // between the skill findings and the rest of the project, or they would leave only when all of it is done.
    const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "gamma-prompt.config.json"], join(await tempDir(), "agent"));
    const documentUri = pathToFileURL(join(root, "skills", "import", "SKILL.md")).href;
    const document = TextDocument.create(documentUri, "markdown", 1, "---\nname: not-import\ndescription: Use when importing.\n---\n\nBody.\n");
    const events: string[] = [];
    const workspace = new ProjectWorkspace(
      { root, debounceMs: 0, reportsFileChanges: () => true, publish: (uri) => uri === documentUri && setImmediate(() => events.push("sent")), log: () => {} },
      { all: () => [document], get: (uri) => (uri === documentUri ? document : undefined) },
    );
    const { analyzer } = workspace as unknown as { analyzer: ProjectAnalyzer };
    const analyze = analyzer.analyze.bind(analyzer);
    analyzer.analyze = (input?: AnalyzeInput) => {
      events.push(input?.scope === "skills" ? "skills" : "project");
      return analyze(input);
    };
    workspace.start();
    await workspace.current();
    expect(events).toEqual(["skills", "sent", "project"]);
  });

  it("takes the edits made during an analysis together in one next analysis", async () => {
    let editDuringAnalysis: (() => void) | undefined;
    const { workspace, analysed, edit } = await workspaceOn(0, () => editDuringAnalysis?.());
    editDuringAnalysis = () => {
      editDuringAnalysis = undefined;
      edit(2);
      edit(3);
      edit(4);
    };
    edit(1);
    await workspace.current();
    await workspace.current();
    expect(analysed).toEqual([1, 4]);
  });
});
