import { createRequire } from "node:module";

export type YamlLibrary = typeof import("yaml");
let loadedYaml: YamlLibrary | undefined;

/** The full YAML 1.2 library, loaded on first use: plain frontmatter and plain data files never need it. */
export function yamlLibrary(): YamlLibrary {
  loadedYaml ??= createRequire(import.meta.url)("yaml") as YamlLibrary;
  return loadedYaml;
}
