/**
 * The Pi packages the runtime and every command that runs an agent (eval)
 * need, and the Node version they need. They are optional peers: the
 * compiler works without them, so a missing one is a usage problem with one
 * line saying what to install, never a module-resolution error from deep
 * inside the module graph. package.json's peerDependencies and engines say
 * the same (test/package/pi-requirement.test.ts keeps them in step).
 */
export const PI_REQUIREMENT = {
  packages: ["@earendil-works/pi-agent-core@1.6.0", "@earendil-works/pi-ai@1.6.0", "@earendil-works/pi-coding-agent@1.6.0"],
  node: ">=22.19",
} as const;

/** The `code` of the error that importing `gamma-prompt/runtime` throws when a Pi package cannot be found. */
export const PI_NOT_INSTALLED = "GAMMA_PROMPT_PI_NOT_INSTALLED";

/** The package names alone, without versions. */
export function piPackageNames(): string[] {
  return PI_REQUIREMENT.packages.map((spec) => spec.slice(0, spec.lastIndexOf("@")));
}

const INSTALL_LINE = `npm install ${PI_REQUIREMENT.packages.join(" ")} (Node ${PI_REQUIREMENT.node})`;

/**
 * Importing `gamma-prompt/runtime` without Pi. The message names what is
 * missing and the one command that installs every Pi package at the version
 * the runtime is built for.
 */
export class PiNotInstalledError extends Error {
  readonly code = PI_NOT_INSTALLED;

  constructor(readonly missing: readonly string[]) {
    super(`gamma-prompt/runtime runs agents on Pi, and ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not installed: ${INSTALL_LINE}`);
    this.name = "PiNotInstalledError";
  }
}

/**
 * Throws {@link PiNotInstalledError} unless every Pi package resolves from
 * the module whose `import.meta.resolve` is given. Resolving loads nothing,
 * so the check costs no start-up; any error but "not found" is not ours to
 * rename and passes through.
 */
export function requirePiPackages(resolve: (specifier: string) => string): void {
  const missing = piPackageNames().filter((name) => {
    try {
      resolve(name);
      return false;
    } catch (error) {
      if (isModuleNotFound(error)) return true;
      throw error;
    }
  });
  if (missing.length > 0) throw new PiNotInstalledError(missing);
}

/** What a command says when the Pi it needs cannot load. */
const COMMAND_NEEDS_PI = `this command runs an agent on Pi, whose packages are not installed: ${INSTALL_LINE}`;

/** The one line for an error that is a Pi package failing to load, or undefined for any other error. */
export function missingPiMessage(error: unknown): string | undefined {
  if ((error as { code?: unknown } | undefined)?.code === PI_NOT_INSTALLED) return COMMAND_NEEDS_PI;
  if (!isModuleNotFound(error)) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  return piPackageNames().some((name) => message.includes(`'${name}'`) || message.includes(`"${name}"`) || message.includes(`${name}/`)) ? COMMAND_NEEDS_PI : undefined;
}

function isModuleNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}
