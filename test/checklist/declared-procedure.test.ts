/**
 * A workflow's checklist is the procedure its skill declares: `Step N`
 * headings when it has them, else the list under a heading that names the
 * procedure, never a list about what comes after or outside it (Next steps,
 * When to use …) while another is there. init types a skill by that same
 * reading, the build compiles it, and an agent that follows the declared
 * steps passes the runtime's completion audit.
 */
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { lint } from "../../src/lint.js";
import type { SkillChecklist } from "../../src/protocol/checklist.js";
import { loadArtifacts } from "../../src/runtime/artifacts.js";
import type { AuditReport } from "../../src/runtime/audit/audit.js";
import { createGammaAgent } from "../../src/runtime/pi-adapter.js";
import { scriptedModel, stubExecutors } from "../../src/runtime/pi/scripted-model.pi-adapter.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

const fixtures = fileURLToPath(new URL("../fixtures/checklist/", import.meta.url));

describe("the checklist is the procedure the skill declares", () => {
  it("takes Step N headings over a list inside a step, a procedure heading (numbered or not) over another list, and passes over a When to use list", async () => {
    const result = await lint({ root: join(fixtures, "declared"), profile: "gamma" });
    const steps = Object.fromEntries(result.skills.map((skill) => [skill.name, skill.checklist?.map((step) => step.title)]));
    expect(steps["next-steps"]).toEqual(["Scan Components", "Detect Shared Code", "Analyze Functionality", "Verify Coupling"]);
    expect(steps["escalation-in-step"]).toEqual(["Install the CLI", "Refresh the templates", "Verify the sync"]);
    expect(steps["when-to-use"]).toEqual(["Collect the merged changes", "Draft one line per change", "Verify every line against its pull request"]);
    // A heading that names the steps declares its list whatever number precedes it: a section number or a count
    // numbers no part of several, so an earlier list of principles is not the checklist.
    expect(steps["numbered-section"]).toEqual(["Read the request", "Draft the headings", "Verify the outline covers the request"]);
    expect(steps["count-heading"]).toEqual(["List the audience's questions", "Order them into sections", "Check each section answers one question"]);
    expect(steps["count-steps"]).toEqual(["Read the description", "Run the tests locally", "Review the diff", "Squash the commits", "Confirm the main branch builds"]);
    expect(steps["count-article"]).toEqual(["Bump the version", "Build the package", "Check the packed files", "Publish the package"]);
    // So is a count after a preposition or an adverb (In 4 steps, Only 3 steps): no part is named by "In".
    expect(steps["count-preposition"]).toEqual(["Bump the version in package.json", "Tag the commit", "Publish the package", "Verify the registry shows the version"]);
    // A word and its number make a heading one part of several whatever follows them (Phase 1 Steps, Phase 1 - Steps,
    // as Phase 1: Steps): no one phase is declared as the whole checklist. With two phases of three steps the first is
    // a guess lint warns about; with a first phase of two steps the checklist is the first list that reads as a procedure.
    expect(steps["phase-steps"]).toEqual(["Tag the release", "Build the artifacts", "Check the checksums"]);
    expect(steps["phase-steps-short"]).toEqual(["Back up the database", "Apply the migration", "Verify the row counts", "Lift the freeze"]);
    // A shell comment in fenced code is no heading: "# Steps to collect the logs" declares nothing.
    expect(steps["comment-in-code"]).toEqual(["Build the image", "Push it to the registry", "Verify the rollout finished"]);
    // A table at the margin ends a Markdown list: the steps after it are compiled alone, and lint says the first ones are lost.
    expect(steps["split-by-table"]).toEqual(["Name the branch from its type and description", "Create it from the main branch", "Verify the branch tracks its remote"]);
    // With no other list, the one under Next steps is still the checklist, and lint says it is a guess.
    expect(steps["follow-ups-only"]).toEqual(["Tell the team", "Verify the archive is read-only"]);
    // Every other checklist is declared (or the only one that reads as a procedure) and verifies: lint has nothing to say about them.
    expect(result.diagnostics.map((d) => [d.file, d.line, d.severity, d.ruleId])).toEqual([
      // Two lists of three steps and no heading that names either: the first is taken, and lint says it is a guess.
      ["skills/comment-in-code/SKILL.md", 9, "warning", "skill/workflow-checklist-guess"],
      ["skills/follow-ups-only/SKILL.md", 13, "warning", "skill/workflow-checklist-guess"],
      ["skills/phase-steps/SKILL.md", 11, "warning", "skill/workflow-checklist-guess"],
      ["skills/split-by-table/SKILL.md", 19, "warning", "skill/workflow-checklist-guess"],
    ]);
    expect(result.diagnostics.find((d) => d.file === "skills/split-by-table/SKILL.md")?.message).toBe(
      "Unexpected checklist that starts at step 3, after a list of steps 1 to 2 at line 11: a table, a code block or a paragraph at the margin between them ends a Markdown list, so those steps are not compiled; expected the procedure as one list (indent what stands between its steps under the step before), or as Step N headings",
    );
  });

  it("init types a skill by the checklist the build compiles, and an agent that follows the declared steps passes the completion audit", async () => {
    const root = await tempDir("gamma-declared-");
    cpSync(join(fixtures, "declared-init"), root, { recursive: true });
    const created = await runCliInProcessFrom(root, "init");
    expect(created.code).toBe(0);
    const typed = created.stdout.split("\n").filter((line) => /^ {2}skills\//.test(line)).map((line) => line.trim().replace(/ +/g, " "));
    expect(typed).toEqual([
      'skills/domain-detection workflow (its checklist of 4 steps is under "Step-by-Step Process")',
      'skills/sync-plugin workflow (its checklist is 3 "Step N" headings)',
      'skills/onboarding reference (a list of 3 items under "Next steps", a heading about what comes after or outside the procedure)',
    ]);
    const built = await runCliInProcessFrom(root, "build");
    expect(built.code).toBe(0);
    const compiled = (name: string): string[] => (JSON.parse(readFileSync(join(root, "dist", "skills", `${name}.steps.json`), "utf8")) as SkillChecklist).steps.map((step) => step.title);
    const declared = ["Scan Components", "Detect Shared Code", "Analyze Functionality", "Verify Coupling"];
    expect(compiled("domain-detection")).toEqual(declared);
    expect(compiled("sync-plugin")).toEqual(["Install the CLI", "Refresh the templates", "Verify the sync"]);

    // The agent loads the skill, does each step it declares as a task that names the step, and reports.
    const artifacts = loadArtifacts({ distDir: join(root, "dist") });
    const scripted = await scriptedModel([
      { toolCalls: [{ name: "skill", arguments: { name: "domain-detection" } }] },
      { toolCalls: [{ name: "todo", arguments: { tasks: declared.map((title, at) => ({ id: `t${at + 1}`, title, step: `domain-detection#${at + 1}`, status: "complete" })) } }] },
      { toolCalls: [{ name: "message_user", arguments: { message: "Shared domain logic found in billing and orders.", blockOnUser: true } }] },
    ]);
    const audits: AuditReport[] = [];
    const { agent, controller, dispose } = createGammaAgent({
      artifacts,
      variant: "base",
      model: scripted.model,
      executors: stubExecutors(artifacts),
      onProtocolEvent: (event) => {
        if (event.type === "audit") audits.push(event.report);
      },
    });
    try {
      await agent.prompt(controller.buildTurnMessages({ text: "Where is business logic duplicated across our components?" }));
    } finally {
      dispose();
      scripted.dispose();
    }
    expect(audits.map((report) => [report.outcome, report.findings.map((finding) => finding.ruleId)])).toEqual([["pass", []]]);
  });
});
