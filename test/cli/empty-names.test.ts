/**
 * A file or folder option or argument given an empty name (`--profile
 * "$PROFILE"` in CI with the variable unset) is one usage line naming it and
 * exit 2, in every command, before anything is read or written: never the
 * working folder taken as a file, a folder or a base, and never "no such file"
 * for a name that is not there. `--root ""` and `--config ""` say it with their
 * own advice (test/cli/project-root.test.ts, test/lint/profiles.test.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { init } from "../../src/init.js";
import { build } from "../../src/build.js";
import { createProgram } from "../../src/cli/program.js";
import { collectReport, ReportUsageError } from "../../src/report/report.js";
import { runCliInProcessFrom } from "../helpers/cli.js";
import { removeTempDirs, snapshotTree, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

let agent = "";

beforeAll(async () => {
  agent = join(await tempDir("gamma empty names"), "agent");
  expect((await init({ dir: agent })).ok).toBe(true);
  expect((await build({ root: agent, persistentCache: false })).ok).toBe(true);
}, 120_000);

const optionLine = (command: string, option: string, what: string): string => `gamma-prompt ${command}: ${option} names no ${what} (an empty name); pass it a path, or leave the option out\n`;

/** Every file or folder option of every command, with what it names (--root and --config are tested where they are read). */
const OPTIONS: ReadonlyArray<[command: string[], option: string, what: string]> = [
  [["build"], "--out", "folder"],
  [["check"], "--out", "folder"],
  [["watch"], "--out", "folder"],
  [["cost"], "--out", "folder"],
  [["cost"], "--profile", "file"],
  [["report"], "--out", "folder"],
  [["report"], "--base", "folder or git ref"],
  [["report"], "--profile", "file"],
  [["report"], "--evals", "file"],
  [["report"], "--baseline", "file"],
  [["report"], "--output", "file"],
  [["audit", "session.jsonl"], "--dist", "folder"],
  [["eval", "--replay"], "--dist", "folder"],
  [["eval", "--replay"], "--output", "file"],
  [["eval", "--replay"], "--baseline", "file"],
  [["mcp"], "--out", "folder"],
];

/** Every command's options that name a file or folder, as the program declares them. */
function declaredPathOptions(): string[] {
  const found: string[] = [];
  const walk = (command: Command, path: string[]): void => {
    for (const sub of command.commands) {
      const name = [...path, sub.name()];
      for (const option of sub.options) {
        if (/<(file|dir|dist-or-ref)>/.test(option.flags) && option.long !== "--root" && option.long !== "--config") found.push(`${name.join(" ")} ${option.long ?? ""}`);
      }
      walk(sub, name);
    }
  };
  walk(createProgram({ exitCode: 0 }), []);
  return found.sort();
}

describe("an empty file or folder option", () => {
  it("covers every file and folder option the commands declare", () => {
    expect(declaredPathOptions()).toEqual(OPTIONS.map(([command, option]) => `${command[0] ?? ""} ${option}`).sort());
  });

  it.each(OPTIONS)("%s %s \"\" is one usage line naming the option, exit 2, and dist/ is left as it was", async (command, option, what) => {
    const before = await snapshotTree(join(agent, "dist"));
    for (const given of [[option, ""], [`${option}=`]]) {
      const run = await runCliInProcessFrom(agent, ...command, ...given);
      expect(run, [...command, ...given].join(" ")).toEqual({ code: 2, stdout: "", stderr: optionLine(command[0] ?? "", option, what) });
    }
    expect(await snapshotTree(join(agent, "dist"))).toEqual(before);
  });
});

describe("an empty file or folder argument", () => {
  it.each([
    [["audit", ""], "gamma-prompt audit: the files argument names no file (an empty name); pass it a path\n"],
    [["audit", "session.jsonl", ""], "gamma-prompt audit: the files argument names no file (an empty name); pass it a path\n"],
    [["eval", "--replay", ""], "gamma-prompt eval: the scenarios argument names no file (an empty name); pass it a path, or leave it out\n"],
    [["init", ""], "gamma-prompt init: the dir argument names no folder (an empty name); pass it a path, or leave it out\n"],
  ])("%j is one usage line, exit 2", async (args, stderr) => {
    const config = readFileSync(join(agent, "gamma-prompt.config.json"), "utf8");
    expect(await runCliInProcessFrom(agent, ...args)).toEqual({ code: 2, stdout: "", stderr });
    // init "" never scaffolds into the working folder.
    expect(readFileSync(join(agent, "gamma-prompt.config.json"), "utf8")).toBe(config);
  });
});

describe("report with an empty base", () => {
  it("is refused by collectReport too, never compared with the build itself", async () => {
    const error = await collectReport({ root: agent, base: "" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ReportUsageError);
    expect((error as Error).message).toBe("--base names no folder or git ref (an empty name); pass the dist/ folder, the project or the git ref to compare with, or leave --base out");
  });
});
