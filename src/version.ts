import { packageRoot } from "./package-paths.js";
import { readFileSync } from "node:fs";

/** gamma-prompt's own version, read once from package.json next to the compiled sources. */
export const packageVersion: string = (
  JSON.parse(readFileSync(new URL("package.json", packageRoot), "utf8")) as { version: string }
).version;
