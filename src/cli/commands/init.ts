import { Option, type Command } from "commander";
import { relative } from "node:path";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { escapeControls, messageRow } from "../../diagnostics/printable.js";
import {
  DEFAULT_AGENT_NAME,
  init,
  INIT_PROFILES,
  INIT_TEMPLATES,
  InitUsageError,
  rootSkillDestination,
  shellWord,
  type ChosenSkillType,
  type InitOptions,
  type InitProfile,
  type InitResult,
  type InitTemplate,
  type RootSkillMove,
} from "../../init.js";
import { CONFIG_FILE } from "../../pipeline/discover/source-paths.js";
import { EXIT_FINDINGS, EXIT_OK, EXIT_USAGE } from "../../diagnostics/exit-code.js";
import { commandHelpFooter } from "../options.js";

interface InitCommandOptions {
  template?: InitTemplate;
  profile?: InitProfile;
  name?: string;
  force?: boolean;
}

/**
 * Asks one question; the CLI passes a readline prompt only when stdin is a
 * terminal. Rejects with {@link InitCancelled} when the person ends the prompt
 * (Ctrl+C, Ctrl+D).
 */
export type Ask = (question: string, fallback: string) => Promise<string>;

/** The person ended a prompt: init stops before writing anything. */
export class InitCancelled extends Error {}

/** Exit code of an init cancelled at a prompt (128 + SIGINT, as a shell reports Ctrl+C). */
const EXIT_CANCELLED = 130;

export function registerInitCommand(program: Command, result: { exitCode: number }): void {
  program
    .command("init")
    .description("Scaffold a new project that builds at once: prompts, tool schemas, two example skills (or the skills already in the folder) and a config.")
    .argument("[dir]", "folder to create the project in", ".")
    .addOption(new Option("--template <name>", "agent: a neutral agent; gamma: a copy of the embedded Gamma project").choices([...INIT_TEMPLATES]))
    .addOption(new Option("--profile <name>", "gamma: an agent project; agentskills: a plain Agent Skills collection (skills/ and the config)").choices([...INIT_PROFILES]))
    .option("--name <name>", `the agent's name in its identity section (default "${DEFAULT_AGENT_NAME}")`)
    .option("--force", "overwrite files that already exist")
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `In a folder that already holds skills (a SKILL.md in skills/<name>/ or any folder below, .claude/skills
included, outside node_modules, dist and .git) and no prompts/prefix.hbs, init adds the agent around them and
no example skill: prompts/, schemas/tools/ and the config, whose "skills" globs find them and whose
"skillTypes" gives each skill that names no type one (a workflow only where the skill declares an
ordered procedure), printed with its reason for review, then what would fail the first build: the
skills' errors, else a token budget (budgets.catalogTokens, budgets.prefixTokens) the agent exceeds,
with the tokens it needs. The skills are never touched. A SKILL.md at the
folder's root (a skill published as its own repository) is no skill of the agent: when it is the only
one, init writes nothing, exits 2 and says where to move it (skills/<name>/, or a free skills/<name>-2/
when that holds something), with the line that does it from the folder init ran in; beside other skills
it is left out, and init says so with the same line.

Never overwrites a file: when any file of the scaffold already exists, init lists them, writes
nothing and exits 1; --force overwrites them, except the config, which keeps its settings (init adds
only the keys it lacks). The scaffold is written all or nothing: a file that cannot be written (a full
disk) leaves nothing behind and exits 2. On a terminal, init asks for each choice not given as a flag;
without one (CI, pipes) it takes the defaults: --template agent --profile gamma.`,
        exitCodes: "0 created, 1 files already exist (nothing written), 2 usage, a folder whose only skill is its root SKILL.md, a file that cannot be written (nothing written) or internal error, 130 cancelled at a prompt (nothing written).",
        examples: ["gamma-prompt init my-agent", "cd my-skills && gamma-prompt init", "gamma-prompt init my-agent --name \"Support agent\"", "gamma-prompt init gamma-copy --template gamma", "gamma-prompt init my-skills --profile agentskills"],
      }),
    )
    .action(async (dir: string, options: InitCommandOptions) => {
      result.exitCode = await runInitCommand(dir, options, process.stdin.isTTY ? terminalAsk() : undefined);
    });
}

export async function runInitCommand(dir: string, flags: InitCommandOptions, ask?: Ask): Promise<number> {
  const options: InitOptions = { dir };
  try {
    options.template = flags.template ?? (ask ? await askChoice(ask, "Template", "agent", INIT_TEMPLATES) : "agent");
    options.profile = flags.profile ?? (options.template === "agent" && ask ? await askChoice(ask, "Profile", "gamma", INIT_PROFILES) : "gamma");
    const name = flags.name ?? (options.template === "agent" && options.profile === "gamma" && ask ? await ask("Agent name", DEFAULT_AGENT_NAME) : undefined);
    if (name !== undefined) options.name = name;
    if (flags.force) options.force = true;
    let outcome = await init(options);
    if (!outcome.ok && ask && (await ask(`${outcome.existing.length} file${plural(outcome.existing.length)} already exist; overwrite? (y/N)`, "n")).toLowerCase().startsWith("y")) {
      outcome = await init({ ...options, force: true });
    }
    const errors = outcome.ok && outcome.skillTypes !== undefined ? await firstBuildErrors(outcome.dir) : [];
    // The budgets are measured on the rendered prefix, which a build renders only when the skills pass.
    const budgets = outcome.ok && outcome.skillTypes !== undefined && errors.length === 0 ? await firstBuildBudgets(outcome.dir) : [];
    return report(dir, options, outcome, errors, budgets);
  } catch (error) {
    if (error instanceof InitCancelled) {
      process.stderr.write("gamma-prompt init: cancelled; nothing was written\n");
      return EXIT_CANCELLED;
    }
    if (error instanceof InitUsageError) {
      process.stderr.write(`gamma-prompt init: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

function report(dir: string, options: InitOptions, outcome: InitResult, errors: readonly Diagnostic[], budgets: readonly BudgetOverrun[] = []): number {
  const shown = escapeControls(displayDir(dir, outcome.dir));
  if (!outcome.ok) {
    const kept = outcome.keptConfigKeys ?? [];
    const lines = [
      `gamma-prompt init: ${outcome.existing.length} file${plural(outcome.existing.length)} of the scaffold already exist${outcome.existing.length === 1 ? "s" : ""} in ${shown}; nothing was written:`,
      ...outcome.existing.map((path) => `  ${escapeControls(path)}${path === CONFIG_FILE && kept.length > 0 ? `  (--force keeps its ${kept.map((key) => `"${key}"`).join(", ")} and adds only what it lacks)` : ""}`),
      "Re-run with --force to overwrite them.",
    ];
    process.stderr.write(`${lines.join("\n")}\n`);
    return EXIT_FINDINGS;
  }
  const overwritten = new Set(outcome.existing);
  const what =
    outcome.skillTypes !== undefined ? "an agent around the skills already there" : options.profile === "agentskills" ? "an Agent Skills collection" : options.template === "gamma" ? "a copy of the Gamma project" : "a new agent";
  // A config that was already there keeps its profile.
  const profile = outcome.keptProfile ?? options.profile;
  const lines = [`Created ${what} in ${shown} (template ${options.template}, profile ${profile}): ${outcome.written.length} files`];
  for (const path of outcome.written) lines.push(`  ${escapeControls(path)}${overwritten.has(path) ? (path === CONFIG_FILE && (outcome.keptConfigKeys?.length ?? 0) > 0 ? `  (updated: ${keptKeys(outcome.keptConfigKeys ?? [])})` : "  (overwritten)") : ""}`);
  if (outcome.skillFolders !== undefined) lines.push("", ...foundSkills(outcome));
  if (outcome.rootSkill !== undefined) lines.push("", ...rootSkillLeftOut(outcome.rootSkill));
  if (outcome.skillTypes !== undefined && outcome.skillTypes.length > 0) lines.push("", ...chosenTypes(outcome.skillTypes));
  if (errors.length > 0) lines.push("", ...howToGoOn(errors, outcome.skillFolders ?? [], profile ?? "gamma"));
  if (budgets.length > 0) lines.push("", ...overBudget(budgets));
  lines.push("", "Next:");
  const cd = displayDir(dir, outcome.dir).replace(/\/$/, "");
  if (cd !== ".") lines.push(`  cd ${shellWord(cd)}`);
  if (profile === "agentskills" && outcome.skillTypes === undefined) lines.push("  npx gamma-prompt lint");
  else lines.push("  npx gamma-prompt build", "  npx gamma-prompt check");
  process.stdout.write(`${lines.join("\n")}\n`);
  return EXIT_OK;
}

/** The folder as the user named it, relative to the working folder when inside it. */
function displayDir(given: string, absolute: string): string {
  const rel = relative(process.cwd(), absolute).split("\\").join("/");
  const path = rel === "" ? "." : rel.startsWith("..") ? given : rel;
  return path.endsWith("/") ? path : `${path}/`;
}

/** Asks until the answer is one of `allowed` (a typo is asked again, not a failed run). */
async function askChoice<T extends string>(ask: Ask, what: string, fallback: T, allowed: readonly T[]): Promise<T> {
  for (;;) {
    const answer = (await ask(`${what} (${allowed.join("/")})`, fallback)).trim();
    const value = answer.toLowerCase();
    if ((allowed as readonly string[]).includes(value)) return value as T;
    process.stderr.write(`Unexpected ${what.toLowerCase()} "${answer}", expected one of ${allowed.join(", ")}\n`);
  }
}

function terminalAsk(): Ask {
  return async (question, fallback) => {
    // Loaded only on a terminal: every other command and every scripted init starts without it.
    const { createInterface } = await import("node:readline/promises");
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    // Ctrl+D closes the prompt without an answer; Ctrl+C rejects the question with an AbortError.
    const closed = new Promise<never>((_, reject) => rl.once("close", () => reject(new InitCancelled())));
    try {
      const answer = (await Promise.race([rl.question(`${question} [${fallback}]: `), closed])).trim();
      return answer === "" ? fallback : answer;
    } catch (error) {
      if (error instanceof InitCancelled || (error instanceof Error && error.name === "AbortError")) throw new InitCancelled();
      throw error;
    } finally {
      closed.catch(() => {});
      rl.close();
    }
  };
}

function plural(count: number): string {
  return count === 1 ? "" : "s";
}

/** What the config kept of itself. */
function keptKeys(keys: readonly string[]): string {
  return `kept ${keys.map((key) => `"${key}"`).join(", ")} as ${keys.length === 1 ? "it was" : "they were"}`;
}

/** How many skills init found, and where the config says they are. */
function foundSkills(outcome: InitResult): string[] {
  const count = outcome.skillFolders?.length ?? 0;
  const found = `Found ${count} skill${plural(count)} already there`;
  if (outcome.skillGlobs !== undefined) return [`${found}; "skills" in ${CONFIG_FILE} finds them:`, ...outcome.skillGlobs.map((glob) => `  ${escapeControls(glob)}`)];
  return [`${found} (${outcome.keptConfigKeys?.includes("skills") === true ? `as "skills" in ${CONFIG_FILE} names them` : "skills/*, the default layout"}).`];
}

/** A SKILL.md at the root beside the skills found: not one of the agent's skills, and how to make it one. */
function rootSkillLeftOut(move: RootSkillMove): string[] {
  return [
    `Left out: the skill at the root (SKILL.md), as an agent keeps each skill in a folder of its own.`,
    `${rootSkillDestination(move, "to add it, move it")}${move.command === undefined ? "." : ":"}`,
    ...(move.command === undefined ? [] : [`  ${move.command}`]),
    `Then run npx gamma-prompt lint: it says what else it needs (a "skills" glob, a type in "skillTypes").`,
  ];
}

/** The type init gave each skill without one, and why: workflows first, as they are the ones the runtime holds to their steps. */
function chosenTypes(chosen: readonly ChosenSkillType[]): string[] {
  // Folder names as found on disk, and reasons that may quote a heading: printed with their control characters escaped.
  const width = Math.max(...chosen.map((skill) => escapeControls(skill.folder).length));
  const workflows = chosen.filter((skill) => skill.type === "workflow");
  const references = chosen.filter((skill) => skill.type === "reference");
  const row = (skill: ChosenSkillType): string => `  ${escapeControls(skill.folder).padEnd(width)}  ${skill.type.padEnd(9)}  (${escapeControls(skill.reason)})`;
  return [
    `Skill types, written to "skillTypes" in ${CONFIG_FILE} (a type in a SKILL.md wins).`,
    `The runtime holds a workflow to its checklist, so init made a skill a workflow only where it declares`,
    `an ordered procedure: "Step N" headings, or 3 or more steps under a heading that names steps, a`,
    `procedure, a process, a workflow or a checklist, in English (a heading in another language is not`,
    `read as one). Review them; change a type in "skillTypes" where it is wrong (lint warns`,
    `skill/reference-checklist on a reference holding 3 or more numbered items):`,
    ...workflows.map(row),
    ...references.map(row),
  ];
}

/** A token budget the first build would exceed: the config key, what the build measured and the budget. */
interface BudgetOverrun {
  key: "catalogTokens" | "prefixTokens";
  measured: number;
  budget: number;
}

/** The budgets the first build would exceed, from the measures and budgets of the same compile the build runs (nothing is written). */
async function firstBuildBudgets(root: string): Promise<BudgetOverrun[]> {
  const { compileProject } = await import("../../pipeline/compile/compile.js");
  const budgets = (await compileProject(root)).tokenBudgets;
  if (budgets === undefined) return [];
  // In the order of their keys: catalogTokens, then prefixTokens.
  return (["catalogTokens", "prefixTokens"] as const).filter((key) => budgets[key].measured > budgets[key].budget).map((key) => ({ key, ...budgets[key] }));
}

/** What init says of a budget the first build would exceed, and the two ways on. */
function overBudget(overruns: readonly BudgetOverrun[]): string[] {
  const what = { catalogTokens: "skill catalog", prefixTokens: "static prefix" } as const;
  const needed = overruns.map((overrun) => `"${overrun.key}": ${overrun.measured}`).join(", ");
  return [
    `The first build will fail its token budgets:`,
    ...overruns.map((overrun) => `  the ${what[overrun.key]} is ${overrun.measured} tokens, over budgets.${overrun.key} (${overrun.budget})`),
    `The catalog lists every skill the model may load, and the static prefix holds it. Raise the budgets`,
    `in ${CONFIG_FILE} to at least what this agent needs ("budgets": { ${needed} }),`,
    `or split the skills into several agents (each a project whose "skills" or "ignore" takes a part of them).`,
  ];
}

/** Errors lint finds in the new project: each fails the first build. */
async function firstBuildErrors(root: string): Promise<Diagnostic[]> {
  const [{ lint }, { relativeToWorkingFolder }] = await Promise.all([import("../../lint.js"), import("../../diagnostics/rebase.js")]);
  // The build always judges by the gamma profile, whatever profile a kept config names for lint.
  const outcome = await lint({ root, checklists: false, profile: "gamma" });
  return relativeToWorkingFolder(
    outcome.diagnostics.filter((diagnostic) => diagnostic.severity === "error"),
    root,
  );
}

/** What the first build will say, and the two ways on: fix the skills, or leave them out until they are fixed. */
function howToGoOn(errors: readonly Diagnostic[], skillFolders: readonly string[], profile: string): string[] {
  // The skill folder (root-relative, as "ignore" takes it) of each error's file; the file is relative to the working folder.
  const folderOf = (file: string): string | undefined => skillFolders.filter((folder) => file === folder || file.endsWith(`/${folder}`) || file.startsWith(`${folder}/`) || file.includes(`/${folder}/`)).sort((a, b) => b.length - a.length)[0];
  const folders = [...new Set(errors.map((error) => folderOf(error.file)).filter((folder): folder is string => folder !== undefined))].sort();
  const lines = [
    `The first build will fail: lint finds ${errors.length} error${plural(errors.length)} in the skills:`,
    ...errors.map((error) => `  ${escapeControls(error.file)}:${error.line}:${error.column}  ${error.ruleId}  ${messageRow(error.message)}`),
    `Fix them, then build (npx gamma-prompt lint${profile === "gamma" ? "" : " --profile gamma"} lists them again).`,
  ];
  if (folders.length > 0) lines.push(`To build the other skills first, leave ${folders.length === 1 ? "this one" : "these"} out in ${CONFIG_FILE} until fixed:`, `  "ignore": [${folders.map((folder) => escapeControls(JSON.stringify(folder))).join(", ")}]`);
  return lines;
}
