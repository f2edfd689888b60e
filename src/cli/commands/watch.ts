import { InvalidArgumentError, Option, type Command } from "commander";
import type { WatchEvent } from "../../watch/events.js";
import { EXIT_OK, EXIT_USAGE } from "../../diagnostics/exit-code.js";
import { MAX_DEBOUNCE_MS, MIN_DEBOUNCE_MS } from "../../watch/debounce.js";
import { addProjectOptions, commandHelpFooter } from "../options.js";
import { commandRoot } from "../project-root.js";
import { listenForStop } from "../stop-signals.js";

interface WatchCommandOptions {
  /** As given; undefined: the project found from the working folder up. */
  root?: string;
  out: string;
  format: "text" | "json";
  debounce: number;
}

export function registerWatchCommand(program: Command, result: { exitCode: number }): void {
  const command = program.command("watch").description("Build dist/, then rebuild it on every change to the sources.");
  addProjectOptions(command, { rootDescription: "project root", out: true })
    .addOption(
      new Option("--format <format>", "text: one line per build; json: one JSON event per line")
        .choices(["text", "json"])
        .default("text"),
    )
    .option("--debounce <ms>", `quiet period before a rebuild starts (at least ${MIN_DEBOUNCE_MS}, at most ${MAX_DEBOUNCE_MS})`, parseDebounce, 100)
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `Watches skills/, prompts/, schemas/, knowledge/ and gamma-prompt.config.json. A save with errors prints its
diagnostics and leaves the last good dist/ in place.

Everything goes to stdout. text: one line per build (what changed, what was written, how long it
took), a warning when the edit changed the static prefix every variant caches, and diagnostics in
lint's stylish format. json: one event object per line, for editor integrations.

On Ctrl-C a build in flight finishes writing first, so dist/ never keeps temporary files; a second
Ctrl-C stops at once. When its reader exits (\`watch --format json | head -1\`, an editor that quit),
watch stops the same way at its next event, after that build.`,
        exitCodes: "0 stopped by SIGINT or SIGTERM, or by the reader of its output exiting; 130 stopped at once by a second Ctrl-C (143 by a second SIGTERM); 2 usage error (bad option, no skills/ folder), the project root moved or deleted while watching, or standard output refused a write (a full disk).",
        examples: ["gamma-prompt watch", "gamma-prompt watch --root my-agent --format json"],
      }),
    )
    .action(async (given: WatchCommandOptions) => {
      const located = await commandRoot("watch", given.root);
      if ("error" in located) {
        process.stderr.write(`${located.error}\n`);
        result.exitCode = EXIT_USAGE;
        return;
      }
      result.exitCode = await runWatchCommand({ ...given, root: located.root });
    });
}

function parseDebounce(value: string): number {
  const ms = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(ms) || ms < MIN_DEBOUNCE_MS) {
    throw new InvalidArgumentError(`Expected a whole number of milliseconds, at least ${MIN_DEBOUNCE_MS} (a shorter pause can miss a save made right after another).`);
  }
  if (ms > MAX_DEBOUNCE_MS) throw new InvalidArgumentError(`Expected at most ${MAX_DEBOUNCE_MS} milliseconds (one minute).`);
  return ms;
}

async function runWatchCommand(options: WatchCommandOptions & { root: string }): Promise<number> {
  // Listen before the initial build starts: the default handler would kill the
  // process between a temp file's write and its rename.
  let requestStop: () => void = () => undefined;
  const stopRequested = new Promise<void>((resolveStop) => {
    requestStop = resolveStop;
  });
  // The first Ctrl-C or SIGTERM stops watch after the build in flight; a second one ends it at once.
  const stopListening = listenForStop(() => requestStop());
  // Its events are all watch has to say: once standard output is gone (the reader exited, EPIPE) or refuses
  // a write, it stops as on Ctrl-C, after the build in flight, instead of rebuilding for no one.
  const onOutputError = () => requestStop();
  process.stdout.on("error", onOutputError);
  try {
    // Loaded here, not at the top, so other commands and --help start fast.
    const [{ watch }, { ProjectRootError }, print] = await Promise.all([
      import("../../watch.js"),
      import("../../pipeline/discover/discover.js"),
      loadPrinter(options.format, options.root),
    ]);
    let handle;
    try {
      handle = await watch({ root: options.root, outDir: options.out, debounceMs: options.debounce, onEvent: print });
    } catch (error) {
      // Anything else is an internal fault: runCli reports it with its stack.
      if (!(error instanceof ProjectRootError)) throw error;
      process.stderr.write(`gamma-prompt watch: ${error.message}\n`);
      return EXIT_USAGE;
    }
    if (options.format === "text") {
      const folders = handle.watching === "any" ? "every folder of the project" : handle.watching.map((folder) => `${folder}/`).join(", ");
      process.stdout.write(`Watching ${folders} and gamma-prompt.config.json (Ctrl-C to stop)\n`);
    }
    // Nothing else holds the process once the watched folders are gone: without this it would end as if stopped.
    const stoppedItself = await Promise.race([stopRequested.then(() => undefined), handle.stoppedItself]);
    await handle.close();
    if (stoppedItself === undefined) return EXIT_OK;
    process.stderr.write(`gamma-prompt watch: stopped: ${stoppedItself}\n`);
    return EXIT_USAGE;
  } finally {
    stopListening();
    process.stdout.removeListener("error", onOutputError);
  }
}

async function loadPrinter(format: WatchCommandOptions["format"], root: string): Promise<(event: WatchEvent) => void> {
  const { formatWatchEvent, formatWatchEventJson, withFilesFromWorkingFolder } = await import("../../watch/format.js");
  if (format === "json") return (event) => process.stdout.write(formatWatchEventJson(withFilesFromWorkingFolder(event, root)));
  const { formatDiagnostics } = await import("../../diagnostics/reporters/index.js");
  return (built) => {
    const event = withFilesFromWorkingFolder(built, root);
    process.stdout.write(formatWatchEvent(event));
    if (event.type !== "error" && event.diagnostics.length > 0) {
      const counts = { errorCount: event.errorCount, warningCount: event.warningCount, noteCount: event.noteCount };
      process.stdout.write(formatDiagnostics("stylish", event.diagnostics, counts));
    }
  };
}
