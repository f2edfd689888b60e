import { isAbsolute, relative, resolve, sep } from "node:path";
import { InvalidArgumentError, Option, type Command } from "commander";
import { EXIT_FINDINGS, EXIT_USAGE, exitCodeFor } from "../../diagnostics/exit-code.js";
import type { Severity } from "../../diagnostics/diagnostic.js";
import { escapeControls } from "../../diagnostics/printable.js";
import type { ReporterName } from "../../diagnostics/reporters/index.js";
import { addProjectOptions, commandHelpFooter, reporterFormatOption } from "../options.js";
import { commandRoot, namedPathsRoot } from "../project-root.js";

interface LintCommandOptions {
  /** As given; undefined: the project found from the working folder up. */
  root?: string;
  format: ReporterName;
  maxWarnings?: number;
  profile?: "gamma" | "agentskills";
  allowEmpty?: boolean;
  fix?: boolean;
  fixDryRun?: boolean;
  config?: string;
}

export function registerLintCommand(program: Command, result: { exitCode: number }): void {
  const command = program
    .command("lint")
    .description("Validate skill manifests, their bodies, their links and their cross-references (requires, conflicts).")
    .argument("[paths...]", "files or folders to report on (default: the whole project); the project is the one that holds them");
  addProjectOptions(command, { rootDescription: "project root: the folder that holds skills/", out: false })
    .addOption(reporterFormatOption())
    .addOption(new Option("--profile <name>", "rules to apply (default: the config's profile, else detected)").choices(["gamma", "agentskills"]))
    .option("--max-warnings <n>", "fail when there are more than n warnings", parseMaxWarnings)
    .option("--config <file>", "config file to read instead of gamma-prompt.config.json in the root (globs stay relative to the root)")
    .option("--allow-empty", "pass when no skill is found")
    .option("--fix", "make the safe fixes in the frontmatter (type, allowed-tools, description spaces, the portable spelling) and print each")
    .option("--fix-dry-run", "print the fixes --fix would make as a unified diff; write nothing")
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `Checks every SKILL.md where the config's \`skills\` looks (default skills/*): the frontmatter against the
profile's rules, the body's links and shape, and the cross-references between skills.

Profiles: gamma (type required; the default for a project with prompts/prefix.hbs) and agentskills (exactly the open
Agent Skills specification; the default for any other folder). Under agentskills the project is a skills
collection: its other folders (a prompts/ of its own) are not checked unless it has the agent files init
writes (prompts/prefix.hbs, prompts/variants.yaml, prompts/injections.yaml, schemas/tools/order.json).
The summary line names the one that ran.

Named files or folders (\`gamma-prompt lint skills/x/SKILL.md\`, as a pre-commit hook passes the staged
files) limit what is reported, and fixed, to them; the whole project is still read, so a finding that
depends on another skill is the same. The project is the nearest one at or above them (a folder named that
is a project is its own root), or --root; paths are relative to the working folder.

--fix changes only the frontmatter, and only for a finding this run reports: it inserts a missing \`type\`
under the gamma profile (workflow when the body has a checklist of 3 or more steps, else reference, unless
that type would bring a finding the other does not, such as toolNamespaces on a reference; as gamma-type
under metadata unless the skill writes the design's fields at the top level or its frontmatter holds YAML
other Agent Skills tools cannot read, then as type after name),
rewrites a list or comma-separated \`allowed-tools\` as the space-separated string, trims the spaces
inside a quoted description, and (under agentskills) moves the design's top-level fields under metadata
(gamma-type, gamma-requires-skills, …) and writes flow-style YAML as blocks, so Agent Skills validators
accept the skill: \`gamma-prompt lint --profile agentskills --fix\` moves a Gamma project. Everything else
keeps its bytes (comments, key order, CRLF, BOM); each file is replaced at once (temporary file and
rename; a file it may not write stops the run before any is written). A fix that would bring a finding,
or widen what a suppression comment covers, is not made, and a \`not fixed\` line says why, as for a file
behind a symbolic or hard link. It prints file:line:column, rule and change for each fix; a second run finds nothing to fix. The exit code then reflects the findings that remain.
--fix-dry-run prints the same changes as a unified diff on stdout (the remaining findings on stderr;
with --format json both are in the document) and writes nothing. Its paths start in the working folder
when it holds the project, else in the project root: apply it there (git apply, or patch -p1).`,
        exitCodes:
          "0 no errors (and warnings within --max-warnings), 1 an error, more warnings than --max-warnings or no skill found (without --allow-empty, unless the config sets skill/no-skills to \"note\"), 2 usage (no skills/ folder under --root, said with where SKILL.md files are instead; a --config that is missing, a folder or an empty name, a fixed file --fix cannot write) or internal error.",
        examples: [
          "gamma-prompt lint",
          "gamma-prompt lint --root path/to/project",
          "gamma-prompt lint path/to/collection",
          "gamma-prompt lint skills/deck-outline/SKILL.md",
          "gamma-prompt lint --profile agentskills",
          "gamma-prompt lint --root vendor/skills-collection --config lint.config.json",
          "gamma-prompt lint --max-warnings 0",
          "gamma-prompt lint --fix",
          "gamma-prompt lint --profile agentskills --fix",
          "gamma-prompt lint --fix-dry-run > fixes.diff",
          "gamma-prompt lint --format json > lint.json",
          "gamma-prompt lint --format github",
          "gamma-prompt lint --format sarif > lint.sarif",
        ],
      }),
    )
    .action(async (paths: string[], options: LintCommandOptions) => {
      result.exitCode = await runLint(paths, options);
    });
}

async function runLint(paths: string[], given: LintCommandOptions): Promise<number> {
  if (given.fix && given.fixDryRun) {
    process.stderr.write("gamma-prompt lint: --fix and --fix-dry-run exclude each other; pass one\n");
    return EXIT_USAGE;
  }
  if (given.config !== undefined) {
    // Checked before the project is looked for: a --config that names no file is the whole message.
    const { namedConfigProblem } = await import("../../pipeline/validate/lint-config.js");
    const problem = namedConfigProblem(given.config);
    if (problem !== undefined) {
      process.stderr.write(`gamma-prompt lint: ${problem}; pass --config with the path of an existing file\n`);
      return EXIT_USAGE;
    }
  }
  // Named paths choose the project (the one holding them) and what is reported; with --config the layout is
  // the config's, so the working folder may hold no skills/ of its own.
  const located = paths.length > 0 ? await namedPathsRoot("lint", paths, given.root) : await commandRoot("lint", given.root, { optional: given.config !== undefined });
  if ("error" in located) {
    process.stderr.write(`${located.error}\n`);
    return EXIT_USAGE;
  }
  const options = { ...given, root: located.root };
  const reported = "paths" in located && !located.paths.includes(".") ? { paths: located.paths } : {};
  // Loaded here, not at the top, so other commands and --help start fast.
  const [{ lint, ProjectRootError, ConfigFileError, FixWriteError }, { formatDiagnostics }, { relativeForFormat, workingFolderPath }] = await Promise.all([
    import("../../lint.js"),
    import("../../diagnostics/reporters/index.js"),
    import("../../diagnostics/rebase.js"),
  ]);
  const fix = options.fix ? "write" : options.fixDryRun ? "dry-run" : undefined;
  let outcome;
  try {
    // The command prints findings only, so it skips the checklists the library's `skills` would carry.
    outcome = await lint({ root: options.root, checklists: false, ...reported, ...(options.profile ? { profile: options.profile } : {}), reportEmpty: options.allowEmpty !== true, ...(fix ? { fix } : {}), ...(options.config !== undefined ? { config: options.config } : {}) });
  } catch (error) {
    if (error instanceof ProjectRootError) {
      // A root whose skills sit under another layout is told where they are; any other wants another root.
      process.stderr.write(`gamma-prompt lint: ${error.message}${error.skillPatterns.length > 0 ? ", or pass --root with the folder that holds skills/" : "; pass --root with the folder that holds skills/"}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof ConfigFileError) {
      process.stderr.write(`gamma-prompt lint: ${error.message}; pass --config with the path of an existing file\n`);
      return EXIT_USAGE;
    }
    if (error instanceof FixWriteError) {
      // Files named as the findings name them: relative to the working folder.
      const { describeFsError } = await import("../../protocol/path-problem.js");
      process.stderr.write(`gamma-prompt lint: ${error.describe(workingFolderPath(options.root), describeFsError)}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  // Files relative to the working folder, whatever --root is; github's and sarif's to the repository's root in Actions.
  const diagnostics = relativeForFormat(options.format, outcome.diagnostics, options.root);
  const counts = { errorCount: outcome.errorCount, warningCount: outcome.warningCount, noteCount: outcome.noteCount };
  if (fix && outcome.fixes && outcome.fixedFiles) {
    const { fixesDiff } = await import("../../pipeline/fix/unified-diff.js");
    const { fixLines } = await import("../../diagnostics/reporters/stylish.js");
    const rebase = workingFolderPath(options.root);
    // `git apply` and `patch -p1` read a diff's paths from the folder they run in and refuse `../`: the paths
    // start in the working folder when it holds the project, else (lint run inside the project, or beside it)
    // in the project root, where the diff then applies.
    const toRoot = relative(process.cwd(), resolve(options.root)).split(sep).join("/");
    const fromWorkingFolder = toRoot === "" || (toRoot !== ".." && !toRoot.startsWith("../") && !isAbsolute(toRoot));
    const diff = fix === "dry-run" ? fixesDiff(outcome.fixedFiles, fromWorkingFolder ? rebase : (file) => file) : "";
    if (!fromWorkingFolder && diff !== "") process.stderr.write(`gamma-prompt lint: the diff's paths are relative to the project root ${escapeControls(toRoot)}/: apply it there (cd ${escapeControls(toRoot)} && git apply)\n`);
    // The lint result is the report's context, its files named as the findings are (a file --fix leaves as it
    // is, a symbolic link or a file changed while lint ran, is named with the reason: its findings stay, and count).
    const context = {
      ...outcome,
      fixes: outcome.fixes.map((record) => ({ ...record, file: rebase(record.file) })),
      ...(outcome.fixesSkipped ? { fixesSkipped: outcome.fixesSkipped.map((entry) => ({ ...entry, file: rebase(entry.file) })) } : {}),
      ...(fix === "dry-run" ? { fixDiff: diff } : {}),
    };
    const report = formatDiagnostics(options.format, diagnostics, context);
    if (options.format === "json" || (options.format === "stylish" && fix === "write")) {
      // The fixes are in the document; stylish lists those written before the findings left.
      process.stdout.write(report);
    } else if (options.format === "stylish") {
      // The diff alone on stdout, so it can go straight to `git apply`.
      process.stdout.write(diff);
      process.stderr.write(report);
    } else {
      // github and sarif keep stdout for their own document.
      process.stderr.write(diff + fixLines(context));
      process.stdout.write(report);
    }
  } else {
    process.stdout.write(formatDiagnostics(options.format, diagnostics, outcome));
  }
  reportWhyFailed(outcome.diagnostics, counts, options.maxWarnings);
  return exitCodeAfterLint(outcome.diagnostics, counts, options.maxWarnings);
}

/**
 * Why a run without errors fails (too many warnings, no skill found), on stderr in every format: stdout keeps
 * the format's own document, whose counts show no error.
 */
function reportWhyFailed(diagnostics: ReadonlyArray<{ ruleId: string; severity: Severity }>, counts: { errorCount: number; warningCount: number }, maxWarnings: number | undefined): void {
  if (counts.errorCount > 0) return;
  if (diagnostics.some(failsForNoSkills)) {
    process.stderr.write("gamma-prompt lint: no skill found, which fails the run (skill/no-skills); pass --allow-empty when an empty project is intended\n");
  }
  if (maxWarnings !== undefined && counts.warningCount > maxWarnings) {
    process.stderr.write(`gamma-prompt lint: ${counts.warningCount} warnings, more than --max-warnings ${maxWarnings}\n`);
  }
}

/** An empty project is only a warning, but a run that checked nothing must not pass by accident. */
function exitCodeAfterLint(diagnostics: ReadonlyArray<{ ruleId: string; severity: Severity }>, counts: { errorCount: number; warningCount: number }, maxWarnings: number | undefined): number {
  if (diagnostics.some(failsForNoSkills)) return EXIT_FINDINGS;
  return exitCodeFor(counts, maxWarnings);
}

/** A `skill/no-skills` finding fails the run, as a warning (its own severity) or an error; the config's `"note"` keeps it in view and passes, as a note never fails a run. */
function failsForNoSkills(diagnostic: { ruleId: string; severity: Severity }): boolean {
  return diagnostic.ruleId === "skill/no-skills" && diagnostic.severity !== "note";
}

function parseMaxWarnings(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("expected a whole number of 0 or more.");
  return Number(value);
}
