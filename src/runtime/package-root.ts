/**
 * The folder of gamma-prompt's own package.json, which holds schemas/, the
 * embedded dist/ and lib/. Found by walking up from this module: it sits in
 * lib/runtime/ as tsc writes it, at the top of lib/ once the CLI bundles it
 * into a chunk, and in src/runtime/ under the test runner, so no fixed number
 * of `../` holds everywhere. (The compiler's src/package-paths.ts is out of
 * the runtime's import boundary.)
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let found: string | null | undefined;

/** The package root, or undefined when no package.json lies above this module. */
export function packageRootDir(): string | undefined {
  if (found === undefined) {
    found = null;
    for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
      if (existsSync(join(dir, "package.json"))) {
        found = dir;
        break;
      }
      if (dirname(dir) === dir) break;
    }
  }
  return found ?? undefined;
}
