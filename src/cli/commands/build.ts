import type { Command } from "commander";

export function registerBuildCommands(program: Command, _result: { exitCode: number }): void {
  program.command("build").description("Render byte-stable artifacts into dist/.");
  program.command("check").description("Verify that dist/ matches its sources.");
}
