/**
 * `init` in a folder that already holds skills: where it finds them, the
 * types it gives the ones that name none (a workflow only where the skill
 * declares an ordered procedure, with the step count of the checklist the
 * build compiles), and a config of the collection's own, whose settings
 * survive `--force`. One fixture folder per case under
 * test/fixtures/init-existing/, copied to a temporary folder; the output init
 * prints and the config it writes are golden files beside the fixture.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { lint } from "../../src/lint.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { readGolden } from "../helpers/golden.js";
import { removeTempDirs, snapshotTree, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

// The compile as it is, but for its diagnostics' messages, reworded while `reworded.on` (numbers with thousands
// separators): what init says of the budgets must not depend on that wording.
const reworded = vi.hoisted(() => ({ on: false }));
vi.mock("../../src/pipeline/compile/compile.js", async (importOriginal) => {
  const compile = await importOriginal<typeof import("../../src/pipeline/compile/compile.js")>();
  return {
    ...compile,
    compileProject: async (...args: Parameters<typeof compile.compileProject>) => {
      const compiled = await compile.compileProject(...args);
      if (!reworded.on) return compiled;
      return { ...compiled, diagnostics: compiled.diagnostics.map((diagnostic) => ({ ...diagnostic, message: diagnostic.message.replace(/\d{4,}/g, (digits) => Number(digits).toLocaleString("en-US")) })) };
    },
  };
});

const fixtures = fileURLToPath(new URL("../fixtures/init-existing/", import.meta.url));

async function copyOf(name: string): Promise<string> {
  const root = await tempDir(`gamma-init-${name}`);
  cpSync(join(fixtures, name), root, { recursive: true });
  return root;
}

/** A folder of 70 skills whose catalog is over the default budgets.catalogTokens. */
async function tooManySkills(name: string): Promise<string> {
  const root = await tempDir(name);
  for (let index = 1; index <= 70; index++) {
    mkdirSync(join(root, "skills", `s${index}`), { recursive: true });
    const description = `Use when the user asks about topic number ${index} of the handbook, its history, its rules and every exception the team has agreed on over the years.`;
    writeFileSync(join(root, "skills", `s${index}`, "SKILL.md"), `---\nname: s${index}\ndescription: ${description}\n---\n\n# Topic ${index}\n\nA fact.\n`);
  }
  return root;
}

/** The one shell line init printed to move a root SKILL.md. */
function printedLine(output: string): string {
  const lines = output.split("\n").filter((line) => line.startsWith("  mkdir -p "));
  expect(lines, output).toHaveLength(1);
  return (lines[0] ?? "").trim();
}

/** Runs a line as a user pasting it into a shell in `cwd` would. */
function runLine(line: string, cwd: string, shell = "sh"): string {
  return execFileSync(shell, ["-c", line], { cwd, encoding: "utf8" });
}

/** What would act on a terminal or a CI log: init never prints it. */
const unsafe = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;

describe("init around skills already there", () => {
  it("types a skill whose frontmatter does not parse yet, so mending it as the message says is enough; --force later types the skills added since and adds no example skill", async () => {
    const root = await tempDir("gamma-init-mend");
    mkdirSync(join(root, "skills", "ok"), { recursive: true });
    mkdirSync(join(root, "skills", "broken"), { recursive: true });
    writeFileSync(join(root, "skills", "ok", "SKILL.md"), "---\nname: ok\ndescription: Use when a user asks for ok.\n---\n\n# Ok\n");
    const broken = "---\nname: broken\ndescription: Use when status: conflict shows up.\n---\n\n# Broken\n\nResolve it.\n";
    writeFileSync(join(root, "skills", "broken", "SKILL.md"), broken);
    expect((await runCliInProcessFrom(root, "init")).code).toBe(0);
    expect(Object.keys(readJson(join(root, "gamma-prompt.config.json"))["skillTypes"] as object)).toEqual(["skills/broken", "skills/ok"]);
    // Mended as the YAML error says: the value quoted. The first build passes.
    writeFileSync(join(root, "skills", "broken", "SKILL.md"), broken.replace("description: Use when status: conflict shows up.", 'description: "Use when status: conflict shows up."'));
    expect((await runCliInProcessFrom(root, "build")).code).toBe(0);
    // A skill added later, and init --force as its refusal advises: the new skill typed, no template example added.
    mkdirSync(join(root, "skills", "later"), { recursive: true });
    writeFileSync(join(root, "skills", "later", "SKILL.md"), "---\nname: later\ndescription: Use when a skill is added after init.\n---\n\n# Later\n");
    expect((await runCliInProcessFrom(root, "init")).code).toBe(1);
    expect((await runCliInProcessFrom(root, "init", "--force")).code).toBe(0);
    expect(Object.keys(readJson(join(root, "gamma-prompt.config.json"))["skillTypes"] as object)).toEqual(["skills/broken", "skills/ok", "skills/later"]);
    expect(readdirSync(join(root, "skills")).sort()).toEqual(["broken", "later", "ok"]);
    expect((await runCliInProcessFrom(root, "build")).code).toBe(0);
  });

  it("lists a skill's folder problems beside its frontmatter error, so mending what it lists makes the first build pass", async () => {
    const root = await tempDir("gamma-init-all-errors");
    mkdirSync(join(root, "skills", "big", "assets"), { recursive: true });
    writeFileSync(join(root, "skills", "big", "SKILL.md"), "---\nname: big\ndescription: Use when the data file is needed.\nmetadata:\n  count: 2\n---\n\n# Big\n\nRead [the data](assets/data.txt).\n");
    writeFileSync(join(root, "skills", "big", "assets", "data.txt"), "x".repeat(1_200_000));
    const run = await runCliInProcessFrom(root, "init");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("skill/value-type");
    expect(run.stdout).toContain("skill/supporting-file-too-large");
    // Both mended as the messages say: the value quoted, the file made smaller. The first build passes.
    writeFileSync(join(root, "skills", "big", "SKILL.md"), readFileSync(join(root, "skills", "big", "SKILL.md"), "utf8").replace("count: 2", 'count: "2"'));
    writeFileSync(join(root, "skills", "big", "assets", "data.txt"), "x".repeat(1_000));
    expect((await runCliInProcessFrom(root, "build")).code).toBe(0);
  });

  it("types a workflow only where the skill declares an ordered procedure, and prints the step count of the checklist the build compiles", async () => {
    const root = await copyOf("types");
    const created = await runCliInProcessFrom(root, "init");
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    expect(created.stdout).toBe(readGolden(join(fixtures, "types.init.txt"), created.stdout));
    const config = readJson(join(root, "gamma-prompt.config.json"));
    // Two branches of 3 and 5 steps, and a list of principles under "Guidelines": no declared procedure, so references.
    // A skill with its own type (here under metadata) gets no entry.
    expect(config["skillTypes"]).toEqual({
      "skills/deploy-app": "reference",
      "skills/principles": "reference",
      "skills/release": "workflow",
      "skills/rollout": "workflow",
    });

    const built = await runCliInProcessFrom(root, "build", "--format", "json");
    expect(built.code).toBe(0);
    // Each workflow's printed step count is the one the runtime enforces.
    for (const [name, count] of [...created.stdout.matchAll(/^ {2}skills\/(\S+) +workflow +\(its checklist (?:of (\d+) steps|is (\d+) "Step N" headings)/gm)].map((match) => [match[1] ?? "", Number(match[2] ?? match[3])] as const)) {
      const steps = (readJson(join(root, "dist", "skills", `${name}.steps.json`))["steps"] as unknown[]).length;
      expect(steps, name).toBe(count);
    }
    // No workflow without a verifying step: no warning on a type init chose.
    const findings = (JSON.parse(built.stdout) as { diagnostics: Array<{ file: string; ruleId: string }> }).diagnostics;
    expect(findings.filter((finding) => finding.ruleId.startsWith("skill/workflow-"))).toEqual([]);
    // The references that hold a numbered list are the ones init's output names with that list: lint warns on them, as init said.
    const warned = findings.filter((finding) => finding.ruleId === "skill/reference-checklist").map((finding) => finding.file.split("/")[1]);
    const listed = [...created.stdout.matchAll(/^ {2}skills\/(\S+) +reference +\(a list of \d+ items/gm)].map((match) => match[1]);
    expect(warned.sort()).toEqual(listed.sort());
  });

  it("finds SKILL.md files outside skills/*, dot folders included (not in node_modules, .git or dist), and writes the skills globs that match exactly them", async () => {
    const root = await copyOf("layout");
    // Never searched: dependencies and tooling state (made here: neither can be committed inside a fixture).
    for (const folder of ["node_modules/dep/skills/dep-skill", ".git/skills/dep-skill"]) {
      mkdirSync(join(root, folder), { recursive: true });
      writeFileSync(join(root, folder, "SKILL.md"), "---\nname: dep-skill\ndescription: Use never.\n---\n\n# Dependency\n");
    }
    const created = await runCliInProcessFrom(root, "init");
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    expect(created.stdout).toBe(readGolden(join(fixtures, "layout.init.txt"), created.stdout));
    expect(created.stdout).not.toContain("skills/draft-outline");
    const config = readJson(join(root, "gamma-prompt.config.json"));
    expect(config["skills"]).toEqual([".claude/skills/*", "plugins/*/skills/*", "tools/lone"]);

    const linted = await lint({ root });
    expect(linted.skills.map((skill) => skill.name).sort()).toEqual(["alpha-one", "alpha-two", "beta-one", "beta-two", "helper", "lone"]);
    expect(linted.errorCount).toBe(0);
    // The old dist/ holds files no build wrote, which build refuses to replace: the agent builds once it is gone.
    rmSync(join(root, "dist"), { recursive: true });
    const built = await runCliInProcessFrom(root, "build");
    expect(built.stderr).not.toContain(" error ");
    expect(built.code).toBe(0);
  });

  it("names the skill folder, in any layout, in the ignore entry for a skill that would fail the first build", async () => {
    const root = await tempDir("gamma-init-broken");
    for (const name of ["good", "bad"]) {
      mkdirSync(join(root, "plugins", "tools", "skills", name), { recursive: true });
      const body = name === "bad" ? "See [the guide](references/missing.md).\n" : "- A fact.\n";
      writeFileSync(join(root, "plugins", "tools", "skills", name, "SKILL.md"), `---\nname: ${name}\ndescription: Use when the user asks about ${name}.\n---\n\n# ${name}\n\n${body}`);
    }
    const created = await runCliInProcessFrom(root, "init");
    expect(created.code).toBe(0);
    expect(created.stdout).toContain("The first build will fail: lint finds 1 error in the skills:\n  plugins/tools/skills/bad/SKILL.md:");
    expect(created.stdout).toContain('\n  "ignore": ["plugins/tools/skills/bad"]\n');
  });

  // A folder name may hold a line break (a forged `::warning` workflow command in CI), ESC (a terminal command) or a bidi control.
  it("prints hostile skill folder names in the type table and the list of errors as one line of plain text each, then lint and build do too", async () => {
    const root = await tempDir("gamma-init-hostile");
    const folders = ["x\n::warning::hello\u001b[8m", "y\u202e\u2028z"];
    for (const folder of folders) {
      mkdirSync(join(root, "skills", folder), { recursive: true });
      writeFileSync(join(root, "skills", folder, "SKILL.md"), `---\nname: x\ndescription: Use when the user asks about x.\n---\n\n# X\n\n- A fact.\n`);
    }
    writeFileSync(join(root, "skills", folders[0] ?? "", "notes\n::error file=README.md,line=1::Build compromised\u001b[8m.md"), "x\n");
    const created = await runCliInProcessFrom(root, "init");
    const linted = await runCliInProcessFrom(root, "lint");
    const built = await runCliInProcessFrom(root, "build");
    for (const [command, run] of Object.entries({ init: created, lint: linted, build: built })) {
      const output = run.stdout + run.stderr;
      expect(output, command).not.toMatch(unsafe);
      expect(output.split("\n").filter((line) => line.startsWith("::")), command).toEqual([]);
      expect(output, command).toContain("skills/x\\u000a::warning::hello\\u001b[8m");
    }
    expect(created.stdout).toContain("\n  skills/x\\u000a::warning::hello\\u001b[8m  reference  (");
    expect(created.stdout).toContain("\n  skills/y\\u202e\\u2028z                    reference  (");
    expect(linted.stdout).toContain("\n    the file: skills/x\\u000a::warning::hello\\u001b[8m/notes\\u000a::error file=README.md,line=1::Build compromised\\u001b[8m.md:1:1\n");
    expect(built.code).toBe(1);
  });

  it("says which heading words it reads, never that a heading in another language names no procedure", async () => {
    const root = await tempDir("gamma-init-headings");
    for (const [name, heading] of [["en", "Workflow"], ["zh", "工作流程"], ["triage", "Triage"]] as const) {
      mkdirSync(join(root, "skills", name), { recursive: true });
      writeFileSync(join(root, "skills", name, "SKILL.md"), `---\nname: ${name}\ndescription: Use when testing headings.\n---\n\n# ${name}\n\n## ${heading}\n\n1. Read the input.\n2. Write the output.\n3. Verify the output.\n`);
    }
    const created = await runCliInProcessFrom(root, "init");
    expect(created.code).toBe(0);
    const rows = created.stdout.split("\n").filter((line) => line.startsWith("  skills/"));
    expect(rows).toEqual([
      '  skills/en      workflow   (its checklist of 3 steps is under "Workflow")',
      '  skills/triage  reference  (a list of 3 items under "Triage", a heading with none of the English words Steps, Procedure, Process, Workflow, Checklist)',
      '  skills/zh      reference  (a list of 3 items under "工作流程", a heading with none of the English words Steps, Procedure, Process, Workflow, Checklist)',
    ]);
    expect(created.stdout).toContain("procedure, a process, a workflow or a checklist, in English (a heading in another language is not\nread as one).");
    expect(created.stdout).not.toContain("no heading naming steps or a procedure");
  });

  it("says when the first build will exceed a token budget, by how much, and the budgets that let it pass", async () => {
    const root = await tooManySkills("gamma-init-budgets");
    const created = await runCliInProcessFrom(root, "init");
    expect(created.code).toBe(0);
    expect(created.stdout).toBe(readGolden(join(fixtures, "budgets.init.txt"), created.stdout));
    const said = /^The first build will fail its token budgets:\n {2}the skill catalog is (\d+) tokens, over budgets\.catalogTokens \(4000\)\n/m.exec(created.stdout);
    expect(said, created.stdout).not.toBeNull();
    expect(created.stdout).toContain(`("budgets": { "catalogTokens": ${said?.[1]} })`);
    const failed = await runCliInProcessFrom(root, "build", "--format", "json");
    expect(failed.code).toBe(1);
    expect((JSON.parse(failed.stdout) as { diagnostics: Array<{ ruleId: string; message: string }> }).diagnostics.filter((d) => d.ruleId.startsWith("budget/") && d.ruleId !== "budget/prefix-below-cache-minimum").map((d) => d.message)).toEqual([
      `Unexpected skill catalog of ${said?.[1]} tokens, expected at most 4000 (budgets.catalogTokens)`,
    ]);
    // The budgets init names let the build pass.
    const configPath = join(root, "gamma-prompt.config.json");
    writeFileSync(configPath, JSON.stringify({ ...readJson(configPath), budgets: { catalogTokens: Number(said?.[1]) } }, null, 2));
    expect((await runCliInProcessFrom(root, "build")).code).toBe(0);
  }, 60_000);

  it("takes the budget numbers from what the compile measured, whatever words its diagnostics use", async () => {
    const root = await tooManySkills("gamma-init-budgets-reworded");
    reworded.on = true;
    try {
      const created = await runCliInProcessFrom(root, "init");
      expect(created.code).toBe(0);
      expect(created.stdout).toBe(readFileSync(join(fixtures, "budgets.init.txt"), "utf8"));
    } finally {
      reworded.on = false;
    }
  }, 60_000);

  it("writes nothing in a folder whose only skill is a SKILL.md at its root, and says where to move it; once moved, writes the agent around it", async () => {
    const root = await copyOf("root-skill");
    const before = await snapshotTree(root);
    let said = "";
    for (const args of [[], ["--force"], ["--template", "gamma"]]) {
      const refused = await runCliInProcessFrom(root, "init", ...args);
      expect(refused.code, args.join(" ")).toBe(2);
      expect(refused.stdout).toBe("");
      expect(refused.stderr).toBe(readGolden(join(fixtures, "root-skill.init.txt"), refused.stderr));
      expect(await snapshotTree(root)).toEqual(before);
      said = refused.stderr;
    }
    // The guide shows this output as it is.
    expect(readFileSync(fileURLToPath(new URL("../../docs/guide/skills.md", import.meta.url)), "utf8")).toContain(`$ npx gamma-prompt init\n${said}`);
    // The command it prints, done as printed, makes the skill one init finds.
    const command = /^ {2}mkdir -p (\S+) && mv (.+) (\S+)\/$/m.exec(said);
    expect(command?.slice(1)).toEqual(["skills/release-notes", "SKILL.md references", "skills/release-notes"]);
    mkdirSync(join(root, "skills/release-notes"), { recursive: true });
    for (const entry of ["SKILL.md", "references"]) cpSync(join(root, entry), join(root, "skills/release-notes", entry), { recursive: true });
    for (const entry of ["SKILL.md", "references"]) rmSync(join(root, entry), { recursive: true });
    const created = await runCliInProcessFrom(root, "init");
    expect(created.code).toBe(0);
    expect(created.stdout).toContain("Found 1 skill already there (skills/*, the default layout).");
    expect((await runCliInProcessFrom(root, "build")).code).toBe(0);
  });

  it("prints the line that moves a root SKILL.md with paths from the folder init ran in (init my-skill)", async () => {
    const parent = await tempDir("gamma-init-root-skill-parent");
    cpSync(join(fixtures, "root-skill"), join(parent, "my-skill"), { recursive: true });
    const refused = await runCliInProcessFrom(parent, "init", "my-skill");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(readGolden(join(fixtures, "root-skill.parent.init.txt"), refused.stderr));
    // Pasted where init ran, the line moves the skill; the same init then writes the agent around it.
    runLine(printedLine(refused.stderr), parent);
    expect(readdirSync(join(parent, "my-skill")).sort()).toEqual(["README.md", "skills"]);
    expect(readdirSync(join(parent, "my-skill", "skills", "release-notes")).sort()).toEqual(["SKILL.md", "references"]);
    const created = await runCliInProcessFrom(parent, "init", "my-skill");
    expect(created.code).toBe(0);
    expect(created.stdout).toContain("Found 1 skill already there (skills/*, the default layout).");
    expect((await runCliInProcessFrom(join(parent, "my-skill"), "build")).code).toBe(0);
  });

  it("never sends a root SKILL.md onto a skill folder that holds something: says so and names a free folder, which the line moves it to", async () => {
    // Beside other skills: skills/notes/ holds the skill notes, and the root skill is named notes too.
    const root = await copyOf("root-skill-taken");
    const theirs = readFileSync(join(root, "skills", "notes", "SKILL.md"));
    const ours = readFileSync(join(root, "SKILL.md"));
    const created = await runCliInProcessFrom(root, "init");
    expect(created.code).toBe(0);
    expect(created.stdout).toBe(readGolden(join(fixtures, "root-skill-taken.init.txt"), created.stdout));
    runLine(printedLine(created.stdout), root);
    expect(readdirSync(join(root, "skills", "notes"))).toEqual(["SKILL.md"]);
    expect(readFileSync(join(root, "skills", "notes", "SKILL.md"))).toEqual(theirs);
    expect(readdirSync(join(root, "skills", "notes-2")).sort()).toEqual(["SKILL.md", "references"]);
    expect(readFileSync(join(root, "skills", "notes-2", "SKILL.md"))).toEqual(ours);
    // Named as init says, it is a skill of its own beside the other; lint asks only for its type, as init said it would.
    writeFileSync(join(root, "skills", "notes-2", "SKILL.md"), ours.toString("utf8").replace("name: notes", "name: notes-2"));
    const linted = await lint({ root });
    expect(linted.diagnostics.map((finding) => [finding.ruleId, finding.file])).toEqual([["skill/missing-key", "skills/notes-2/SKILL.md"]]);
    expect(linted.skills.map((skill) => skill.name)).toEqual(["notes"]);

    // The only skill, with files of another kind in skills/release-notes/: init writes nothing and names a free folder.
    const alone = await copyOf("root-skill-folder-taken");
    const refused = await runCliInProcessFrom(alone, "init");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(readGolden(join(fixtures, "root-skill-folder-taken.init.txt"), refused.stderr));
    runLine(printedLine(refused.stderr), alone);
    expect(readdirSync(join(alone, "skills", "release-notes"))).toEqual(["README.md"]);
    expect(readdirSync(join(alone, "skills", "release-notes-2")).sort()).toEqual(["SKILL.md", "references"]);
  });

  // A folder name may hold a line break (a forged `::warning` workflow command in CI), ESC, a bidi control, quotes and `$`.
  it("prints a hostile folder name escaped in its messages and quoted in the lines it prints, which still reach that folder", async () => {
    const parent = await tempDir("gamma-init-root-skill-hostile");
    const folder = `it's "x"\n::warning::$HOME\u001b[8m\u202e`;
    const escaped = `it's "x"\\u000a::warning::$HOME\\u001b[8m\\u202e`;
    cpSync(join(fixtures, "root-skill"), join(parent, folder), { recursive: true });
    const refused = await runCliInProcessFrom(parent, "init", folder);
    expect(refused.code).toBe(2);
    expect(refused.stderr).not.toMatch(unsafe);
    expect(refused.stderr.split("\n").filter((line) => line.startsWith("::"))).toEqual([]);
    expect(refused.stderr.startsWith(`gamma-prompt init: "${escaped}" holds a skill at its root (SKILL.md) and no other:`)).toBe(true);
    // The printed line quotes the folder for a shell that reads $'…' (bash, zsh, ksh).
    runLine(printedLine(refused.stderr), parent, "bash");
    expect(readdirSync(join(parent, folder)).sort()).toEqual(["README.md", "skills"]);

    const created = await runCliInProcessFrom(parent, "init", folder);
    expect(created.code).toBe(0);
    expect(created.stdout + created.stderr).not.toMatch(unsafe);
    expect(created.stdout.split("\n")[0]).toBe(`Created an agent around the skills already there in ${escaped}/ (template agent, profile gamma): 21 files`);
    const cd = created.stdout.split("\n").filter((line) => line.startsWith("  cd "));
    expect(cd).toHaveLength(1);
    expect(runLine(`${cd[0]?.trim()} && pwd -P`, parent, "bash")).toBe(`${realpathSync(join(parent, folder))}\n`);
  });

  it("says it left a root SKILL.md out when it writes the agent around other skills", async () => {
    const root = await copyOf("root-skill-beside");
    const created = await runCliInProcessFrom(root, "init");
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    expect(created.stdout).toBe(readGolden(join(fixtures, "root-skill-beside.init.txt"), created.stdout));
    expect((await lint({ root })).skills.map((skill) => skill.name)).toEqual(["notes"]);
  });

  it("predicts the first build's errors by the gamma profile the build applies, whatever profile a kept config names for lint", async () => {
    const root = await tempDir("gamma-init-kept-profile");
    mkdirSync(join(root, "skills", "tables"), { recursive: true });
    writeFileSync(join(root, "skills", "tables", "SKILL.md"), "---\nname: tables\ndescription: Use when the user asks for a <table> in a deck.\n---\n\n# Tables\n\n- A fact.\n");
    writeFileSync(join(root, "gamma-prompt.config.json"), `${JSON.stringify({ profile: "agentskills" }, null, 2)}\n`);
    // Under the collection's own profile lint passes; the build will not.
    expect((await runCliInProcessFrom(root, "lint")).code).toBe(0);
    const created = await runCliInProcessFrom(root, "init", "--force");
    expect(created.code).toBe(0);
    expect(created.stdout).toContain("The first build will fail: lint finds 1 error in the skills:\n  skills/tables/SKILL.md:3:");
    expect(created.stdout).toContain("skill/description-angle-bracket");
    expect(created.stdout).toContain("Fix them, then build (npx gamma-prompt lint --profile gamma lists them again).");
    expect((await runCliInProcessFrom(root, "build")).code).toBe(1);
  });

  it("keeps a config of the collection's own: refuses without --force, naming what --force keeps; with it, adds only the keys and types it lacks", async () => {
    const root = await copyOf("layout");
    const own = {
      profile: "agentskills",
      skills: ["plugins/*/skills/*"],
      ignore: ["plugins/beta/skills/beta-two"],
      rules: { "skill/description-trigger": "off" },
      skillTypes: { "plugins/alpha/**": "reference" },
    };
    writeFileSync(join(root, "gamma-prompt.config.json"), `${JSON.stringify(own, null, 2)}\n`);
    const before = await snapshotTree(root);
    const refused = await runCliInProcessFrom(root, "init");
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain('  gamma-prompt.config.json  (--force keeps its "profile", "skills", "ignore", "rules", "skillTypes" and adds only what it lacks)\n');
    expect(await snapshotTree(root)).toEqual(before);

    const forced = await runCliInProcessFrom(root, "init", "--force");
    expect(forced.stderr).toBe("");
    expect(forced.code).toBe(0);
    expect(forced.stdout).toBe(readGolden(join(fixtures, "layout-own-config.init.txt"), forced.stdout));
    const config = readFileSync(join(root, "gamma-prompt.config.json"), "utf8");
    expect(config).toBe(readGolden(join(fixtures, "layout-own-config.config.json"), config));
    // Every setting as it was; the one skill the config's own skillTypes does not cover (and does not ignore) is typed.
    expect(JSON.parse(config)).toEqual({ ...own, $schema: "https://unpkg.com/gamma-prompt/schemas/config.schema.json", skillTypes: { "plugins/alpha/**": "reference", "plugins/beta/skills/beta-one": "reference" } });
  });
});
