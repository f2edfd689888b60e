import { InvalidArgumentError, type Command } from "commander";
import { EXIT_OK, EXIT_USAGE } from "../../diagnostics/exit-code.js";
import { commandHelpFooter } from "../options.js";
import { MAX_DEBOUNCE_MS } from "../../watch/debounce.js";

interface LspCommandOptions {
  stdio?: boolean;
  debounce: number;
}

export function registerLspCommand(program: Command, result: { exitCode: number }): void {
  program
    .command("lsp")
    .description("Run the language server: diagnostics, completion, navigation, rename and cache costs in the editor.")
    .option("--stdio", "speak the Language Server Protocol over standard input and output")
    .option("--debounce <ms>", `quiet period after an edit before the project is analysed again (0: at once, at most ${MAX_DEBOUNCE_MS}; edits made during an analysis go to the next)`, parseMilliseconds, 0)
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `Each workspace folder's project is found as the CLI finds one (the folder, or the nearest one above
it with gamma-prompt.config.json or skills/), and a file opened elsewhere is analysed in the project
found from its own folder. Open buffers are judged as if saved; the server never writes a file. Editors start it themselves: point the client at \`gamma-prompt lsp --stdio\` for
Markdown (SKILL.md, knowledge notes), Handlebars (prompts/*.hbs), YAML and JSON files of the project.`,
        exitCodes: "0 after the client's shutdown and exit (or its pipes closed after shutdown), 1 when the session ends without shutdown or a frame header cannot be read, 2 usage error (no --stdio).",
        examples: ["gamma-prompt lsp --stdio"],
      }),
    )
    .action(async (options: LspCommandOptions) => {
      if (!options.stdio) {
        process.stderr.write("gamma-prompt lsp: pass --stdio (the only transport)\n");
        result.exitCode = EXIT_USAGE;
        return;
      }
      const [{ startLanguageServer }, { stdioConnection }] = await Promise.all([import("../../lsp/server.js"), import("../../lsp/transport.js")]);
      // A body that is not JSON, or JSON that is no message, is answered as JSON-RPC says, and the server goes on.
      const { connection, reader, writer } = stdioConnection(process.stdin, process.stdout);
      // The connection ends the process itself on `exit` (0 after `shutdown`, 1 without it); until then the command stays pending.
      await new Promise<void>((resolveClosed) => {
        connection.onExit(() => resolveClosed());
        const server = startLanguageServer(connection, { debounceMs: options.debounce });
        // The client went away without `exit`: the same codes.
        const ended = (): void => process.exit(server.shutDown() ? EXIT_OK : 1);
        process.stdin.once("end", ended);
        process.stdin.once("close", ended);
        // The client closed the pipe the answers go to: nothing can be answered any more. Ending at once also keeps
        // the connection from logging the failed write on that same pipe, which would end in a stack trace.
        process.stdout.once("error", ended);
        writer.onError(ended);
        writer.onClose(ended);
        // A frame header that cannot be read (no or no numeric Content-Length) leaves no place where the next
        // message starts: every later answer would be lost, so the server says why and stops.
        reader.onError((error) => {
          process.stderr.write(`gamma-prompt lsp: ${(error.message.split("\n")[0] ?? "").replace(/\.$/, "")}; the input cannot be read past it, so the server stops\n`);
          process.exit(1);
        });
      });
      result.exitCode = EXIT_OK;
    });
}

function parseMilliseconds(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("Expected a whole number of milliseconds, 0 or more.");
  if (Number(value) > MAX_DEBOUNCE_MS) throw new InvalidArgumentError(`Expected at most ${MAX_DEBOUNCE_MS} milliseconds (one minute).`);
  return Number(value);
}
