import type { Command } from "commander";

export function registerWatchCommand(program: Command, _result: { exitCode: number }): void {
  program.command("watch").description("Rebuild dist/ on every change.");
}
