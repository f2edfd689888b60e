import type { Command } from "commander";

export function registerLintCommand(program: Command, _result: { exitCode: number }): void {
  program.command("lint").description("Validate skill manifests and their cross-references.");
}
