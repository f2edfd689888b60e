import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * The one switch that rewrites golden files: `UPDATE_GOLDEN=1 npx vitest run …`,
 * then review the change with git diff. Without it no test ever writes a
 * golden file, and a missing one fails: a new or renamed fixture cannot pass
 * by recording whatever it produced on its first run.
 */
export const UPDATE_GOLDEN = process.env["UPDATE_GOLDEN"] === "1";

export class MissingGoldenError extends Error {
  constructor(path: string) {
    super(`missing golden file ${path}; run the test with UPDATE_GOLDEN=1 and review what it wrote`);
    this.name = "MissingGoldenError";
  }
}

/** The golden file's text: first rewritten from `actual` under UPDATE_GOLDEN=1, an error when it does not exist. */
export function readGolden(path: string, actual: string): string {
  if (UPDATE_GOLDEN) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
  }
  if (!existsSync(path)) throw new MissingGoldenError(path);
  return readFileSync(path, "utf8");
}
