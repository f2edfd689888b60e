/**
 * The folder of gamma-prompt's own package.json, which holds schemas/, the
 * embedded dist/ and lib/. Found by walking up from this module: it sits in
 * lib/runtime/ as tsc writes it, at the top of lib/ once the CLI bundles it
 * into a chunk, and in src/runtime/ under the test runner, so no fixed number
 * of `../` holds everywhere. Only a package.json that names gamma-prompt
 * counts: once an application bundles the runtime, the first one above the
 * bundle is the application's, and its folder is none of ours. (The
 * compiler's src/package-paths.ts is out of the runtime's import boundary.)
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let found: string | null | undefined;

/** The package root, or undefined when no gamma-prompt package.json lies above this module (a bundled runtime). */
export function packageRootDir(): string | undefined {
  if (found === undefined) {
    found = null;
    for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
      if (namesGammaPrompt(join(dir, "package.json"))) {
        found = dir;
        break;
      }
      if (dirname(dir) === dir) break;
    }
  }
  return found ?? undefined;
}

function namesGammaPrompt(file: string): boolean {
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { name?: unknown }).name === "gamma-prompt";
  } catch {
    // Missing, unreadable or not JSON: not gamma-prompt's.
    return false;
  }
}
