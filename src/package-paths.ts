/**
 * Locations inside the installed package. This module sits at the top of src/
 * (and of lib/ once compiled), so its URL anchors both, wherever a module that
 * needs a path lives. The compiler reads its schemas, rule pages, templates
 * and embedded defaults from there: bundled into an application, this module
 * finds no gamma-prompt package above it, and says so in one line at once
 * instead of failing later at the first file it reads.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The package root: holds package.json, schemas/ and the embedded dist/. */
export const packageRoot = new URL("../", import.meta.url);

/** The folder of the package's own modules: lib/ when installed, src/ under the test runner. */
export const moduleRoot = new URL("./", import.meta.url);

/** gamma-prompt's own package.json, read once. */
export const packageManifest: { name: string; version: string } = readPackageManifest();

/** One of the package's published JSON Schemas, by file name without `.schema.json`. */
export function packageSchemaUrl(name: string): URL {
  return new URL(`schemas/${name}.schema.json`, packageRoot);
}

function readPackageManifest(): { name: string; version: string } {
  let manifest: { name?: unknown; version?: unknown } | undefined;
  try {
    manifest = JSON.parse(readFileSync(new URL("package.json", packageRoot), "utf8")) as typeof manifest;
  } catch {
    // Missing or not JSON: refused below like any other folder that is not the package.
  }
  if (manifest?.name !== "gamma-prompt" || typeof manifest.version !== "string") {
    throw new Error(
      `gamma-prompt: the compiler must run from its installed package (node_modules/gamma-prompt), whose schemas, rule pages and templates it reads, and ${fileURLToPath(packageRoot)} is not that package: keep "gamma-prompt" out of the bundle (external), or run the gamma-prompt command`,
    );
  }
  return { name: manifest.name, version: manifest.version };
}
