/**
 * The Pi packages the runtime and every command that runs an agent (eval)
 * need, and the Node version they need. They are optional peers: the
 * compiler works without them, so a missing one is a usage problem with one
 * line saying what to install, never a module-resolution error from deep
 * inside the module graph. package.json's peerDependencies and engines say
 * the same (test/package/pi-requirement.test.ts keeps them in step).
 */
import { messageOf } from "./error-message.js";

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
 * Throws {@link PiNotInstalledError} unless every one of `names` (by default
 * every Pi package) resolves from the module whose `import.meta.resolve` is
 * given. Resolving loads nothing, so the check costs no start-up; any error
 * but "not found" is not ours to rename and passes through.
 */
export function requirePiPackages(resolve: (specifier: string) => string, names: readonly string[] = piPackageNames()): void {
  const missing = unresolved(names, resolve);
  if (missing.length > 0) throw new PiNotInstalledError(missing);
}

type Imported<T extends Record<string, () => Promise<unknown>>> = { -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> };

/**
 * Imports the Pi packages the runtime needs at start-up, keyed by package
 * name, and throws one {@link PiNotInstalledError} when one is not there.
 * The imports' own failures decide, not a look on disk: a bundle that carries
 * Pi has no node_modules to find it in, yet every import succeeds. Only "not
 * found" for that very package counts as missing; any other failure (a
 * package of Pi's own that is missing, a syntax error) passes through
 * unchanged. The Pi packages imported later (pi-coding-agent, when a session
 * is created) are checked on disk with `resolve` wherever the imported ones
 * are on disk too; a bundle that loaded the others carries them as well.
 */
export async function importPiPackages<T extends Record<string, () => Promise<unknown>>>(imports: T, resolve: (specifier: string) => string): Promise<Imported<T>> {
  const names = Object.keys(imports);
  const settled = await Promise.allSettled(names.map((name) => (imports[name] as () => Promise<unknown>)()));
  const loaded: Record<string, unknown> = {};
  const missing: string[] = [];
  names.forEach((name, index) => {
    const result = settled[index] as PromiseSettledResult<unknown>;
    if (result.status === "fulfilled") loaded[name] = result.value;
    else if (isNotFoundFor(name, result.reason)) missing.push(name);
    else throw result.reason;
  });
  const later = piPackageNames().filter((name) => !names.includes(name));
  if (missing.length > 0 || names.some((name) => resolvesOnDisk(name, resolve))) missing.push(...unresolved(later, resolve));
  if (missing.length > 0) throw new PiNotInstalledError(piPackageNames().filter((name) => missing.includes(name)));
  return loaded as Imported<T>;
}

function unresolved(names: readonly string[], resolve: (specifier: string) => string): string[] {
  return names.filter((name) => {
    try {
      resolve(name);
      return false;
    } catch (error) {
      if (isModuleNotFound(error)) return true;
      throw error;
    }
  });
}

function resolvesOnDisk(name: string, resolve: (specifier: string) => string): boolean {
  try {
    resolve(name);
    return true;
  } catch {
    // Not found, or no resolver at all (a bundle's import.meta): not on disk.
    return false;
  }
}

/** Node's "not found" for the package `name` itself, not for a module that package imports. */
function isNotFoundFor(name: string, error: unknown): boolean {
  const message = messageOf(error);
  return isModuleNotFound(error) && (message.includes(`'${name}'`) || message.includes(`"${name}"`));
}

/** What a command says when the Pi it needs cannot load. */
const COMMAND_NEEDS_PI = `this command runs an agent on Pi, whose packages are not installed: ${INSTALL_LINE}`;

/** The one line for an error that is a Pi package failing to load, or undefined for any other error. */
export function missingPiMessage(error: unknown): string | undefined {
  if ((error as { code?: unknown } | undefined)?.code === PI_NOT_INSTALLED) return COMMAND_NEEDS_PI;
  if (!isModuleNotFound(error)) return undefined;
  const message = messageOf(error);
  return piPackageNames().some((name) => message.includes(`'${name}'`) || message.includes(`"${name}"`) || message.includes(`${name}/`)) ? COMMAND_NEEDS_PI : undefined;
}

function isModuleNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}
