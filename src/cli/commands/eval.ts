import { existsSync } from "node:fs";
import { join } from "node:path";
import { Option, type Command } from "commander";
import { EXIT_USAGE } from "../../diagnostics/exit-code.js";
import { commandHelpFooter } from "../options.js";
import { commandRoot, ROOT_DEFAULT } from "../project-root.js";

interface EvalCommandOptions {
  /** As given; undefined: the project found from the working folder up. */
  root?: string;
  dist?: string;
  model?: string;
  baseUrl?: string;
  runs?: string;
  concurrency: string;
  threshold: string;
  format: "stylish" | "json";
  output?: string;
  baseline?: string;
  record?: boolean;
  replay?: boolean;
  listModels?: string | boolean;
}

export function registerEvalCommand(program: Command, result: { exitCode: number }): void {
  program
    .command("eval")
    .description("Run evaluation scenarios through the real runtime and report pass rates with 95% confidence intervals")
    .argument("[scenarios...]", "scenario files (default: evals/*.yaml under --root)")
    .option("--root <dir>", `the project folder (${ROOT_DEFAULT})`)
    .option("--dist <dir>", "the dist/ to evaluate, relative to the root (or absolute)", "dist")
    .option("--model <provider/id>", "the model, from pi-ai's registry (its key comes from the environment)")
    .option("--base-url <url>", "another endpoint for the model's API (a proxy or gateway): an http:// or https:// URL, not with --replay")
    .option("--runs <n>", "runs per scenario, at most 10000 (default 1; with --replay, every recorded cassette)")
    .option("--concurrency <n>", "runs in flight at once", "4")
    .option("--threshold <share>", "a scenario passes when at least this share of its runs pass", "1")
    .addOption(new Option("--format <name>", "how results are printed").choices(["stylish", "json"]).default("stylish"))
    .option("--output <file>", "also write the JSON results document to this file")
    .option("--baseline <file>", "an earlier results document: flag regressions beyond noise")
    .option("--record", "store the model's replies as cassettes (evals/cassettes/<scenario>/<run>.json)")
    .option("--replay", "answer from the recorded cassettes (no key, no network)")
    .option("--list-models [provider]", "list pi-ai's providers, or one provider's model ids, and exit (with --format json: one JSON array of the names)")
    .addHelpText(
      "after",
      commandHelpFooter({
        about: `Each scenario runs N times on a Gamma agent (createGammaAgent on a real Pi Agent): its turns, its
runtime events routed with routeUpdate, its host tools answered from fixtures. A run passes when every
expectation holds; rates carry a 95% Wilson score interval. A regression against --baseline is a lower rate
whose 95% interval does not overlap the baseline's.`,
        exitCodes: "0 every run was evaluated, every scenario reached the threshold and nothing regressed, 1 a failing scenario, a regression, a stale cassette or a run whose model call got no reply (a provider error, a refused connection: not evaluated, whatever the threshold), a recording whose model call failed (its scenario's cassettes are left as they were) or a scenario file with problems, 2 usage: flags, an unknown model, a missing key, no scenarios (no evals/*.yaml and none named), missing cassettes, a cassettes or scenarios folder that cannot be read (or, to record, written), an unreadable baseline, a dist/ that fails verification.",
        examples: [
          "gamma-prompt eval --replay",
          "OPENAI_API_KEY=... gamma-prompt eval --model openai/gpt-5 --runs 10 --threshold 0.9",
          "gamma-prompt eval --model anthropic/claude-sonnet-4-5 --runs 5 --record",
          "gamma-prompt eval --model openai/gpt-5 --runs 10 --baseline results/main.json --output results/branch.json",
        ],
      }),
    )
    .action(async (scenarios: string[], options: EvalCommandOptions) => {
      const fail = (message: string): void => {
        process.stderr.write(`gamma-prompt eval: ${message}\n`);
        result.exitCode = EXIT_USAGE;
      };
      const [{ runEvals, EvalUsageError, MAX_RUNS }, { formatSummary, resultsProblem }, { canonicalJson }, { formatDiagnostics }, { ArtifactVerificationError }, { CommandFileError, checkCommandFileWritable, readCommandJson, writeCommandFile }] = await Promise.all([
        import("../../evals/index.js"),
        import("../../evals/results.js"),
        import("../../pipeline/emit/canonical-json.js"),
        import("../../diagnostics/reporters/index.js"),
        import("../../runtime/artifacts.js"),
        import("../files.js"),
      ]);
      if (options.listModels !== undefined) {
        const { modelCatalog } = await import("../../evals/pi-models.js");
        const catalog = await modelCatalog();
        const provider = typeof options.listModels === "string" ? options.listModels : undefined;
        if (provider !== undefined && !catalog.providers().includes(provider)) return fail(`Unexpected provider "${provider}", expected one of pi-ai's providers: ${catalog.providers().join(", ")}`);
        const names = provider === undefined ? catalog.providers() : catalog.modelIds(provider).map((id) => `${provider}/${id}`);
        // --format json: the same names as one JSON array of strings.
        process.stdout.write(options.format === "json" ? canonicalJson(names) : `${names.join("\n")}\n`);
        return;
      }
      // A folder with the scenarios (evals/) is where a build to evaluate belongs, sources or not: there the advice is to build.
      const located = await commandRoot("eval", options.root, { build: true, optional: true, ...(existsSync("evals") ? {} : { outDir: options.dist ?? "dist" }) });
      if ("error" in located) {
        process.stderr.write(`${located.error}\n`);
        result.exitCode = EXIT_USAGE;
        return;
      }
      const { root } = located;
      const runs = options.runs === undefined ? undefined : wholeNumber(options.runs);
      // Said with the text as typed: the library's own check only sees the number it became.
      if (runs !== undefined && !(runs >= 1)) return fail(`Unexpected --runs ${options.runs}, expected a whole number of at least 1`);
      if (runs !== undefined && runs > MAX_RUNS) return fail(`Unexpected --runs ${options.runs}, expected at most ${MAX_RUNS} runs per scenario`);
      const concurrency = wholeNumber(options.concurrency);
      if (!(concurrency >= 1)) return fail(`Unexpected --concurrency ${options.concurrency}, expected a whole number of at least 1`);
      // A decimal share only: Number() would also take "0x1", "1e0" or "Infinity".
      const threshold = /^(?:\d+\.?\d*|\.\d+)$/.test(options.threshold.trim()) ? Number(options.threshold) : Number.NaN;
      if (!(threshold >= 0 && threshold <= 1)) return fail(`Unexpected --threshold ${options.threshold}, expected a share from 0 to 1`);
      let baseline;
      if (options.baseline !== undefined) {
        let parsed: unknown;
        try {
          parsed = readCommandJson(options.baseline, "baseline");
        } catch (error) {
          if (error instanceof CommandFileError) return fail(error.message);
          throw error;
        }
        const problem = resultsProblem(parsed);
        if (problem !== undefined) return fail(`Unexpected baseline ${options.baseline}: ${problem}`);
        baseline = parsed as import("../../evals/results.js").EvalResults;
      }
      if (options.output !== undefined) {
        // Decided before the first run, like every usage error: a run never ends with results it cannot write.
        try {
          checkCommandFileWritable(options.output, "results");
        } catch (error) {
          if (error instanceof CommandFileError) return fail(error.message);
          throw error;
        }
      }
      const progress = process.stderr.isTTY ? progressBar(process.stderr) : undefined;
      let outcome;
      try {
        outcome = await runEvals({
          root,
          distDir: options.dist ?? "dist",
          ...(scenarios.length === 0 ? {} : { scenarios }),
          ...(options.model === undefined ? {} : { model: options.model }),
          ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
          ...(runs === undefined ? {} : { runs }),
          concurrency,
          threshold,
          ...(options.record === true ? { record: true } : {}),
          ...(options.replay === true ? { replay: true } : {}),
          ...(baseline === undefined ? {} : { baseline }),
          ...(progress === undefined ? {} : { onProgress: progress.update }),
        }, "cli");
      } catch (error) {
        if (error instanceof ArtifactVerificationError) {
          const { unbuiltFolderMessage } = await import("../unbuilt.js");
          return fail(unbuiltFolderMessage(error, options.dist ?? "dist", root, "run `gamma-prompt build` first") ?? `${error.message}\n(run \`gamma-prompt build\` first)`);
        }
        if (error instanceof EvalUsageError) return fail(error.message);
        throw error;
      } finally {
        progress?.clear();
      }
      if (outcome.results === undefined) {
        const counts = { errorCount: outcome.diagnostics.length, warningCount: 0 };
        process.stdout.write(formatDiagnostics(options.format, outcome.diagnostics, counts));
        result.exitCode = 1;
        return;
      }
      const document = canonicalJson(outcome.results);
      // The results first: paid for, they are shown even when the file cannot be written after all.
      process.stdout.write(options.format === "json" ? document : formatSummary(outcome.results, "cli"));
      result.exitCode = outcome.results.passed ? 0 : 1;
      if (options.output !== undefined) {
        try {
          writeCommandFile(options.output, document, "results");
        } catch (error) {
          if (error instanceof CommandFileError) return fail(error.message);
          throw error;
        }
      }
    });
}

/** NaN for anything but a whole number. */
function wholeNumber(text: string): number {
  return /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
}

/** `eval [########------------] 7/15 runs`, redrawn in place on a terminal. */
export function progressBar(stream: NodeJS.WritableStream): { update: (done: number, total: number) => void; clear: () => void } {
  const width = 24;
  let drawn = false;
  return {
    update: (done, total) => {
      const filled = total === 0 ? width : Math.round((done / total) * width);
      stream.write(`\r\u001B[2Keval [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} runs`);
      drawn = true;
    },
    clear: () => {
      if (drawn) stream.write("\r\u001B[2K");
    },
  };
}
