/**
 * Locations inside the installed package. This module sits at the top of src/
 * (and of lib/ once compiled), so its URL anchors both, wherever a module that
 * needs a path lives.
 */

/** The package root: holds package.json, schemas/ and the embedded dist/. */
export const packageRoot = new URL("../", import.meta.url);

/** The folder of the package's own modules: lib/ when installed, src/ under the test runner. */
export const moduleRoot = new URL("./", import.meta.url);

/** One of the package's published JSON Schemas, by file name without `.schema.json`. */
export function packageSchemaUrl(name: string): URL {
  return new URL(`schemas/${name}.schema.json`, packageRoot);
}
