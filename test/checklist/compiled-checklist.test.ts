import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { lint } from "../../src/lint.js";
import type { SkillChecklist } from "../../src/protocol/checklist.js";
import type { DistManifest } from "../../src/protocol/dist-manifest.js";
import { ArtifactVerificationError, loadArtifacts } from "../../src/runtime/artifacts.js";
import { tempDir } from "../runtime/helpers/dist.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const fixture = fileURLToPath(new URL("../fixtures/checklist/titles/", import.meta.url));

describe("compiled checklists: the steps lint reads, as build writes them", () => {
  it("reads titles, optional marks, verification and numbering from the checklist list, by either parse path", async () => {
    const result = await lint({ root: fixture });
    expect(result.errorCount).toBe(0);
    const steps = Object.fromEntries(result.skills.map((skill) => [skill.name, skill.checklist]));
    expect(steps["scanned"]).toEqual([
      { number: 3, title: "Gather inputs", optional: false, verifies: false, line: 15 },
      { number: 4, title: "Research", optional: true, verifies: false, line: 16 },
      { number: 5, title: "Ask the user", optional: true, verifies: false, line: 17 },
      { number: 6, title: "Plain step without a bold lead", optional: false, verifies: false, line: 18 },
      { number: 7, title: "Verify the result", optional: false, verifies: true, line: 19 },
    ]);
    // The HTML block makes the line scanner hand over to remark; the steps come out the same way.
    expect(steps["quoted"]).toEqual([
      { number: 1, title: "Gather inputs", optional: false, verifies: false, line: 13 },
      { number: 2, title: "Research", optional: true, verifies: false, line: 14 },
      { number: 3, title: "Verify the result", optional: false, verifies: true, line: 15 },
    ]);
  });

  it("leaves a task-list box ([ ], [x]) out of a step's title, by either parse path", async () => {
    const result = await lint({ root: fileURLToPath(new URL("../fixtures/checklist/task-list/", import.meta.url)), profile: "gamma" });
    expect(result.errorCount).toBe(0);
    const steps = Object.fromEntries(result.skills.map((skill) => [skill.name, skill.checklist?.map((step) => [step.number, step.title, step.optional, step.verifies])]));
    expect(steps["scanned"]).toEqual([
      [1, "All bash blocks use the heredoc wrapper", false, false],
      [2, "Run the tests", false, true],
      [3, "Update the changelog", true, false],
      [4, "[] Not a task box, so kept", false, false],
      [5, "Verify the result against the brief", false, true],
    ]);
    expect(steps["quoted"]).toEqual([
      [1, "Gather inputs", false, false],
      [2, "Research", true, false],
      [3, "Verify the result", false, true],
    ]);
  });

  it("is the list under a heading that names it, else the first of three or more steps, and lint judges that list", async () => {
    const result = await lint({ root: fileURLToPath(new URL("../fixtures/checklist/choice/", import.meta.url)), profile: "gamma" });
    const steps = Object.fromEntries(result.skills.map((skill) => [skill.name, skill.checklist?.map((step) => [step.number, step.title, step.verifies])]));
    // Two kinds of files listed before the procedure are not its steps: the numbered headings are.
    expect(steps["short-list-first"]).toEqual([
      [1, "Draft the body", false],
      [2, "Verify the draft", true],
      [3, "Send it for review", true],
    ]);
    expect(steps["named-list"]).toEqual([
      [1, "Bump the version", false],
      [2, "Tag the commit", false],
    ]);
    // The checklist the runtime enforces has no verifying step, whatever a later list says: lint says so.
    expect(result.diagnostics.map((d) => [d.file, d.line, d.ruleId])).toEqual([["skills/named-list/SKILL.md", 11, "skill/workflow-verification"]]);
  });

  it("takes a setext heading (text underlined with --- or ===) that names the checklist as the ATX one, and a thematic break or the frontmatter's closer for none", async () => {
    const result = await lint({ root: fileURLToPath(new URL("../fixtures/checklist/setext-heading/", import.meta.url)), profile: "gamma" });
    const steps = Object.fromEntries(result.skills.map((skill) => [skill.name, skill.checklist]));
    expect(steps["dash-underline"]).toEqual([
      { number: 1, title: "Bump the version", optional: false, verifies: false, line: 12 },
      { number: 2, title: "Verify the tag names the version", optional: false, verifies: true, line: 13 },
    ]);
    // A heading of two lines, its underline after the second.
    expect(steps["equals-underline"]).toEqual([
      { number: 1, title: "Bump the version", optional: false, verifies: false, line: 18 },
      { number: 2, title: "Verify the tag names the version", optional: false, verifies: true, line: 19 },
    ]);
    // After a blank line --- is a thematic break, not an underline; the frontmatter's closing --- underlines nothing in the body.
    expect(steps["thematic-break"]?.map((step) => step.line)).toEqual([18, 19, 20]);
    expect(steps["frontmatter-closer"]?.map((step) => step.line)).toEqual([11, 12, 13]);
    expect(result.diagnostics.map((d) => [d.file, d.line, d.ruleId])).toEqual([]);
  });

  it("reads step headings in every form CommonMark gives them: setext underlines, emphasis around the step number, the number alone", async () => {
    const result = await lint({ root: fileURLToPath(new URL("../fixtures/checklist/heading-forms/", import.meta.url)) });
    expect(result.diagnostics.filter((diagnostic) => diagnostic.ruleId.startsWith("skill/workflow-"))).toEqual([]);
    const steps = Object.fromEntries(result.skills.map((skill) => [skill.name, skill.checklist]));
    // A setext heading's step is on its text line, not on its underline.
    expect(steps["setext"]).toEqual([
      { number: 1, title: "Collect the changes", optional: false, verifies: false, line: 9 },
      { number: 2, title: "Verify the build", optional: false, verifies: true, line: 14 },
    ]);
    // Emphasis around the number, or around the whole heading, is not part of the title; a bold lead after the number is the title, as in a list item.
    expect(steps["emphasis"]).toEqual([
      { number: 1, title: "Collect the changes", optional: false, verifies: false, line: 9 },
      { number: 2, title: "Verify the build", optional: false, verifies: true, line: 13 },
      { number: 3, title: "Publish", optional: false, verifies: false, line: 17 },
    ]);
    // A heading that is only its step number takes its title from the text under it: its bold lead or first sentence.
    expect(steps["bare"]).toEqual([
      { number: 1, title: "Collect the merged changes", optional: false, verifies: false, line: 9 },
      { number: 2, title: "Tag the release", optional: true, verifies: false, line: 13 },
      { number: 3, title: "Verify the build passes on the tagged commit", optional: false, verifies: true, line: 17 },
    ]);
  });

  it("takes a step's text from the next line when its marker stands alone, and no step from an ellipsis or an empty item", async () => {
    const result = await lint({ root: fileURLToPath(new URL("../fixtures/checklist/placeholders/", import.meta.url)) });
    expect(result.skills.map((skill) => skill.checklist)).toEqual([
      [
        { number: 1, title: "Read the skills folder", optional: false, verifies: false, line: 9 },
        { number: 2, title: "Compare it with the catalog", optional: false, verifies: false, line: 10 },
        { number: 3, title: "Verify the list against the catalog", optional: false, verifies: true, line: 12 },
      ],
    ]);
  });

  it("with checklists: false, the same findings and skills, without the checklists", async () => {
    const full = await lint({ root: fixture });
    const bare = await lint({ root: fixture, checklists: false });
    expect(bare.diagnostics).toEqual(full.diagnostics);
    expect(bare.skills.every((skill) => skill.checklist === undefined)).toBe(true);
    expect(bare.skills).toEqual(full.skills.map(({ checklist: _checklist, ...skill }) => skill));
  });

  it("the embedded default's dist/ carries one steps artifact per workflow skill, listed and hashed in the manifest", () => {
    const manifest = JSON.parse(readFileSync(join(root, "dist/manifest.json"), "utf8")) as DistManifest;
    const withChecklist = Object.entries(manifest.skills).filter(([, info]) => info.checklist !== undefined).map(([name]) => name);
    expect(withChecklist).toEqual(["deck-generation", "drive-files", "gml-editing", "import"]);
    const deck = JSON.parse(readFileSync(join(root, "dist/skills/deck-generation.steps.json"), "utf8")) as SkillChecklist;
    expect(manifest.skills["deck-generation"]?.checklist).toEqual({ file: "skills/deck-generation.steps.json", sha256: manifest.artifacts["skills/deck-generation.steps.json"]?.sha256, steps: 14 });
    expect(deck.source).toBe("skills/deck-generation/SKILL.md");
    expect(deck.steps.filter((step) => step.optional).map((step) => step.title)).toEqual(["Ask for blocking information", "Research"]);
    expect(deck.steps[6]).toEqual({ number: 7, title: "Validate", optional: false, verifies: true, line: 24 });
    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    expect(artifacts.skills.get("deck-generation")?.steps).toEqual(deck.steps);
    expect(artifacts.skills.get("gml-authoring")?.steps).toBeUndefined();
  });

  it("a tampered steps artifact is refused before anything runs", () => {
    const copy = tempDir("gamma-steps-");
    cpSync(join(root, "dist"), copy, { recursive: true });
    const file = join(copy, "skills/import.steps.json");
    writeFileSync(file, readFileSync(file, "utf8").replace('"optional": false', '"optional": true '));
    let error: unknown;
    try {
      loadArtifacts({ distDir: copy });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ArtifactVerificationError);
    expect((error as ArtifactVerificationError).problems).toEqual([expect.objectContaining({ file: "skills/import.steps.json", kind: "changed" })]);
  });

  it("the todo tool declares the optional step field a task uses to name its checklist step", () => {
    const tools = JSON.parse(readFileSync(join(root, "dist/tools.json"), "utf8")) as Array<{ name: string; parameters: { properties: { tasks: { items: { properties: Record<string, { pattern?: string }>; required: string[] } } } } }>;
    const item = tools.find((tool) => tool.name === "todo")?.parameters.properties.tasks.items;
    expect(item?.properties["step"]?.pattern).toBe("^[a-z0-9]+(-[a-z0-9]+)*#[1-9][0-9]*$");
    expect(new RegExp(item?.properties["step"]?.pattern ?? "").test("deck-generation#7")).toBe(true);
    expect(item?.required).not.toContain("step");
  });
});
