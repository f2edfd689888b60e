import { packageManifest } from "./package-paths.js";

/** gamma-prompt's own version, read once from package.json next to the compiled sources. */
export const packageVersion: string = packageManifest.version;
