import { Option, type Command } from "commander";
import { PROFILE_KEYS } from "../../cost/profile.js";
import { addProjectOptions, commandHelpFooter } from "../options.js";
import type { CostCommandOptions } from "./cost-action.js";


export function registerCostCommand(program: Command, result: { exitCode: number }): void {
  const command = program.command("cost").description("Price each prompt-cache policy per variant under a traffic profile, by simulating each provider's cache rules.");
  addProjectOptions(command, { rootDescription: "project root (dist/ must be built)", out: true })
    .option("--profile <file>", `traffic profile (JSON): ${PROFILE_KEYS.join(", ")}`)
    .addOption(new Option("--format <format>", "stylish: a table for people; json: one JSON document").choices(["stylish", "json"]).default("stylish"))
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `Reads dist/ (verified, with its cache plan) and simulates the traffic with the cache rules and
prices of data/prompt-caching.json: for Anthropic one system breakpoint or the plan's breakpoints,
with 5m or 1h for the static blocks; for OpenAI no key, a per-session key or a sharded key, with
in-memory or 24h retention. Prints, per model, policy and variant, the cached share of input tokens,
the input cost per 1,000 sessions, and what the first call of a session reads when its variant is cold.
Without --profile: 100,000 sessions an hour spread over the variants, 9 calls each.`,
        exitCodes: "0 priced, 2 usage error (no built dist/, bad profile) or internal error.",
        examples: ["gamma-prompt cost", "gamma-prompt cost --profile traffic.json --format json"],
      }),
    )
    .action(async (options: CostCommandOptions) => {
      const { runCostCommand } = await import("./cost-action.js");
      result.exitCode = await runCostCommand(options);
    });
}
