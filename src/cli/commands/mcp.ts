import { statSync } from "node:fs";
import type { Command } from "commander";
import { EXIT_OK, EXIT_USAGE } from "../../diagnostics/exit-code.js";
import { addProjectOptions, commandHelpFooter } from "../options.js";
import { commandRoot } from "../project-root.js";

interface McpCommandOptions {
  /** As given; undefined: the project found from the working folder up (else the working folder). */
  root?: string;
  out: string;
}

export function registerMcpCommand(program: Command, result: { exitCode: number }): void {
  const command = program.command("mcp").description("Run the MCP server for coding agents: lint, rule docs, fixes, cache impact, compiled prompts and the skills graph as tools.");
  addProjectOptions(command, { rootDescription: "project root: the folder that holds skills/ (and prompts/)", out: true })
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `A Model Context Protocol server over standard input and output. Coding agents start it themselves:
register \`npx gamma-prompt mcp\` (run in the project folder or below it; at a monorepo's root, add
--root and the project's folder) as a stdio MCP server. Tools: lint,
lint_text, explain_rule, fix_file (writes only with write: true), check_cache, show_variant,
skill_graph; resources: every rule's page and the output folder's manifest and variants. Paths are
relative to the project's root; nothing outside it is read.`,
        exitCodes: "0 once the client closes the connection, 2 usage error (--root is empty or not a folder).",
        examples: ["gamma-prompt mcp", "gamma-prompt mcp --root path/to/project"],
      }),
    )
    .action(async (options: McpCommandOptions) => {
      // A coding agent may start the server in a subfolder of the project, or where no project is yet.
      const located = await commandRoot("mcp", options.root, { optional: true });
      if ("error" in located) {
        process.stderr.write(`${located.error}\n`);
        result.exitCode = EXIT_USAGE;
        return;
      }
      const { root } = located;
      if (statSync(root, { throwIfNoEntry: false })?.isDirectory() !== true) {
        process.stderr.write(`gamma-prompt mcp: Unexpected --root ${root}: not a folder, expected the project folder\n`);
        result.exitCode = EXIT_USAGE;
        return;
      }
      // The SDK loads only here: no other command pays for it.
      const { runMcpServer } = await import("../../mcp/server.js");
      await runMcpServer({ root, outDir: options.out });
      result.exitCode = EXIT_OK;
    });
}
