import { ProfileError } from "../../cost/profile.js";
import { EXIT_OK, EXIT_USAGE } from "../../diagnostics/exit-code.js";
import { resultsProblem, type EvalResults } from "../../evals/results.js";
import { ArtifactVerificationError } from "../../runtime/artifacts.js";
import { unbuiltFolderMessage } from "../unbuilt.js";
import { collectReport, ReportUsageError } from "../../report/report.js";
import { CommandFileError, readCommandJson, writeCommandFile } from "../files.js";
import { commandRoot, inputFile } from "../project-root.js";

export interface ReportCommandOptions {
  /** As given; undefined: the project found from the working folder up. */
  root?: string;
  out: string;
  base?: string;
  profile?: string;
  evals?: string;
  baseline?: string;
  lint: boolean;
  format: "html" | "markdown";
  output?: string;
}

class InputError extends Error {}

function readJson(root: string, file: string, what: string): unknown {
  return readCommandJson(inputFile(root, file), what, file);
}

function readResults(file: string, what: string): EvalResults {
  const parsed = readJson(".", file, what);
  const problem = resultsProblem(parsed);
  if (problem !== undefined) throw new InputError(`Unexpected ${what} ${file}: ${problem}`);
  return parsed as EvalResults;
}

export async function runReportCommand(given: ReportCommandOptions): Promise<number> {
  const located = await commandRoot("report", given.root, { build: true, optional: true, outDir: given.out });
  if ("error" in located) {
    process.stderr.write(`${located.error}\n`);
    return EXIT_USAGE;
  }
  const { root } = located;
  const options = { ...given, root };
  try {
    const profile = options.profile === undefined ? undefined : readJson(options.root, options.profile, "traffic profile");
    const evals = options.evals === undefined ? undefined : readResults(options.evals, "evaluation results");
    const evalBaseline = options.baseline === undefined ? undefined : readResults(options.baseline, "evaluation baseline");
    if (evalBaseline !== undefined && evals === undefined) throw new InputError("--baseline compares evaluation results: give --evals too");
    const data = await collectReport({
      root: options.root,
      outDir: options.out,
      lint: options.lint,
      ...(options.base === undefined ? {} : { base: options.base }),
      ...(profile === undefined ? {} : { profile }),
      ...(evals === undefined ? {} : { evals }),
      ...(evalBaseline === undefined ? {} : { evalBaseline }),
    });
    const otherBuild = data.evals?.otherBuild;
    if (otherBuild !== undefined) {
      // A warning, not an error: reporting an earlier build's results can be on purpose.
      process.stderr.write(`gamma-prompt report: warning: the evaluation results ${options.evals ?? ""} were measured on another build (dist ${otherBuild.resultsCacheKey.slice(0, 12)}; this build's prefix cache key is ${otherBuild.buildCacheKey.slice(0, 12)})\n`);
    }
    const text = options.format === "markdown" ? (await import("../../report/markdown.js")).renderMarkdown(data) : (await import("../../report/html.js")).renderHtml(data);
    if (options.output === undefined) process.stdout.write(text);
    else {
      writeCommandFile(options.output, text, "report");
      process.stdout.write(`wrote ${options.output} (${options.format === "markdown" ? "Markdown" : "HTML"}, ${Buffer.byteLength(text)} bytes)\n`);
    }
    return EXIT_OK;
  } catch (error) {
    if (error instanceof InputError || error instanceof CommandFileError || error instanceof ReportUsageError || error instanceof ProfileError || error instanceof ArtifactVerificationError) {
      const where = error instanceof ProfileError && options.profile !== undefined ? `the traffic profile ${options.profile}: ` : "";
      const unbuilt = error instanceof ArtifactVerificationError ? unbuiltFolderMessage(error, options.out, options.root, "run `gamma-prompt build` first") : undefined;
      process.stderr.write(`gamma-prompt report: ${unbuilt ?? `${where}${error.message}${error instanceof ArtifactVerificationError ? "\n(run `gamma-prompt build` first)" : ""}`}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}
