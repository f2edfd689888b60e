import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { ruleAnchor, ruleRegistry, type RuleId } from "../../src/diagnostics/rules/index.js";
import { existsSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

import { HOST_KEYS } from "../../src/pipeline/validate/host-keys.js";
import { docPage } from "../helpers/docs.js";
import { createProgram } from "../../src/cli/program.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
/** The shared collections the build check uses sit beside the repository on developer machines, never inside it. */
const corpus = ["../shared/realworld-skills", "../../shared/realworld-skills"].map((path) => fileURLToPath(new URL(path, new URL("../../", import.meta.url)))).find((path) => existsSync(path));

const readme = docPage("README.md").text;
const skillsGuide = docPage("docs/guide/skills.md").text;
const cliReference = docPage("docs/reference/cli.md").text;
const packageJson = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as {
  bin: Record<string, string>;
  files: string[];
  exports: Record<string, unknown>;
};

describe("the manual and package.json stay true", () => {
  it("documents every rule id with its severity and description", () => {
    for (const [ruleId, rule] of Object.entries(ruleRegistry)) {
      // The anchor is what each diagnostic's `url` points at.
      expect(readme, ruleId).toContain(`| <a id="${ruleAnchor(ruleId as RuleId)}"></a>\`${ruleId}\` | ${rule.severity} | ${rule.description.replace(/\|/g, "\\|")} |`);
    }
  });

  it("documents every host key in the host key table", () => {
    for (const { key, hosts, meaning } of HOST_KEYS) expect(skillsGuide, key).toContain(`| \`${key}\` | ${hosts} |`), expect(skillsGuide).toContain(` | ${meaning} |`);
  });

  it("shows the labelled corpus's table exactly as scripts/corpus-table.mjs prints it", () => {
    const run = spawnSync(process.execPath, ["scripts/corpus-table.mjs", "corpus"], { cwd: repoRoot, encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(skillsGuide).toContain(run.stdout);
  });

  it("shows each command's synopsis exactly as the CLI defines its arguments, options and choices", () => {
    // A synopsis block is one whose text starts with `gamma-prompt <command> `; a long one wraps onto indented lines.
    // A command with subcommands (`postgres migrate`) has one block per subcommand, keyed by both names.
    const synopses = new Map(
      [...cliReference.matchAll(/^```\n(gamma-prompt ([a-z]+(?: [a-z]+)*) [\s\S]*?)^```$/gm)].map((match) => [match[2] as string, (match[1] as string).replace(/\s+/g, " ").trim()]),
    );
    const synopsis = (command: Command, name: string): string => {
      const args = command.registeredArguments.map((argument) => {
        const argumentName = `${argument.name().toUpperCase()}${argument.variadic ? "..." : ""}`;
        return argument.required ? argumentName : `[${argumentName}]`;
      });
      const options = command.options
        .filter((option) => !option.hidden)
        .map((option) => {
          const value = option.argChoices?.join("|") ?? /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1]?.toUpperCase();
          // A value the option may go without is shown in brackets of its own: `[--list-models [PROVIDER]]`.
          return `[${option.long ?? option.short}${value === undefined ? "" : option.optional ? ` [${value}]` : ` ${value}`}]`;
        });
      return ["gamma-prompt", name, ...args, ...options].join(" ");
    };
    const expected = new Map(
      createProgram({ exitCode: 0 }).commands.flatMap((command) =>
        command.commands.length === 0
          ? [[command.name(), synopsis(command, command.name())] as const]
          : command.commands.map((sub) => [`${command.name()} ${sub.name()}`, synopsis(sub, `${command.name()} ${sub.name()}`)] as const),
      ),
    );
    expect(Object.fromEntries(synopses)).toEqual(Object.fromEntries(expected));
  });

  // Building seven real collections takes about 15 s, a quarter of the suite: it runs on request (GAMMA_CORPUS_BUILD=1).
  it.skipIf(corpus === undefined || process.env["GAMMA_CORPUS_BUILD"] !== "1")("shows build-collections' table for the real collections exactly as the script prints it", () => {
    const run = spawnSync(process.execPath, ["scripts/build-collections.mjs", corpus ?? ""], { cwd: repoRoot, encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(skillsGuide).toContain(`\n\`\`\`\n$ node scripts/build-collections.mjs ../shared/realworld-skills\n${run.stdout}\`\`\`\n`);
  });

  it("states the Node.js the package needs before anything else, as package.json's engines says", () => {
    const engines = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { engines: { node: string } }).engines.node;
    const first = /Node(?:\.js)? (\d+(?:\.\d+)*)/.exec(readme);
    expect(`>=${first?.[1]}`).toBe(engines);
    expect(first?.index ?? Number.POSITIVE_INFINITY).toBeLessThan(readme.indexOf("## A five-minute tour"));
  });

  it("shows the two set-up commands for a fresh machine", () => {
    expect(readme).toContain("npm install && npx gamma-prompt build");
    expect(readme).toContain("npm install && npm test");
  });

  it("ships the CLI from lib/ and the artifacts and schemas with the package", () => {
    expect(packageJson.bin["gamma-prompt"]).toBe("lib/cli/bin.cjs");
    expect(packageJson.files).toEqual(expect.arrayContaining(["lib", "dist", "schemas"]));
    expect(Object.keys(packageJson.exports)).toEqual(expect.arrayContaining([".", "./runtime"]));
  });
});
