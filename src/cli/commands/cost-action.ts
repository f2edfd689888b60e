import { cost, type CostResult } from "../../cost/cost.js";
import { formatCostTable, progressBar } from "../../cost/format.js";
import { ProfileError } from "../../cost/profile.js";
import { EXIT_OK, EXIT_USAGE } from "../../diagnostics/exit-code.js";
import { ArtifactVerificationError } from "../../runtime/artifacts.js";
import { unbuiltFolderMessage } from "../unbuilt.js";
import { CommandFileError, readCommandJson } from "../files.js";
import { commandRoot, inputFile } from "../project-root.js";

export interface CostCommandOptions {
  /** As given; undefined: the project found from the working folder up. */
  root?: string;
  out: string;
  profile?: string;
  format: "stylish" | "json";
}

export async function runCostCommand(given: CostCommandOptions): Promise<number> {
  const located = await commandRoot("cost", given.root, { build: true, optional: true, outDir: given.out });
  if ("error" in located) {
    process.stderr.write(`${located.error}\n`);
    return EXIT_USAGE;
  }
  const { root } = located;
  const options = { ...given, root };
  let profile: unknown;
  if (options.profile !== undefined) {
    try {
      profile = readCommandJson(inputFile(options.root, options.profile), "traffic profile", options.profile);
    } catch (error) {
      const why = error instanceof CommandFileError ? error.message : `cannot read the traffic profile ${options.profile}: ${(error as Error).message}`;
      process.stderr.write(`gamma-prompt cost: ${why}\n`);
      return EXIT_USAGE;
    }
  }
  const tty = process.stderr.isTTY === true && options.format === "stylish";
  let result: CostResult;
  try {
    result = cost({
      root: options.root,
      outDir: options.out,
      profile,
      ...(tty ? { onProgress: (fraction: number) => process.stderr.write(`\r${progressBar(fraction)}`) } : {}),
    });
  } catch (error) {
    if (error instanceof ProfileError || error instanceof ArtifactVerificationError) {
      if (tty) process.stderr.write("\n");
      // A profile's wrong value is named with the file it came from, as its JSON errors are.
      const where = error instanceof ProfileError && options.profile !== undefined ? `the traffic profile ${options.profile}: ` : "";
      const unbuilt = error instanceof ArtifactVerificationError ? unbuiltFolderMessage(error, options.out, options.root, "run `gamma-prompt build` first") : undefined;
      process.stderr.write(`gamma-prompt cost: ${unbuilt ?? `${where}${error.message}${error instanceof ArtifactVerificationError ? "\n(run `gamma-prompt build` first)" : ""}`}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  if (tty) process.stderr.write("\r\u001b[2K");
  process.stdout.write(options.format === "json" ? `${JSON.stringify(result, null, 2)}\n` : formatCostTable(result));
  return EXIT_OK;
}
