/**
 * The Pi packages a command that runs an agent needs (eval), and the Node
 * version they need. They are optional peers: the compiler works without
 * them, so a missing one is a usage problem with one line saying what to
 * install, never a stack trace. package.json's peerDependencies and engines
 * say the same (test/package/pi-requirement.test.ts keeps them in step).
 */
export const PI_REQUIREMENT = {
  packages: ["@earendil-works/pi-agent-core@1.6.0", "@earendil-works/pi-ai@1.6.0", "@earendil-works/pi-coding-agent@1.6.0"],
  node: ">=22.19",
} as const;

/** The package names alone, without versions. */
export function piPackageNames(): string[] {
  return PI_REQUIREMENT.packages.map((spec) => spec.slice(0, spec.lastIndexOf("@")));
}

/** The one line for an error that is a Pi package failing to load, or undefined for any other error. */
export function missingPiMessage(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return undefined;
  const message = error instanceof Error ? error.message : String(error);
  if (!piPackageNames().some((name) => message.includes(`'${name}'`) || message.includes(`"${name}"`) || message.includes(`${name}/`))) return undefined;
  return `this command runs an agent on Pi, whose packages are not installed: npm install ${PI_REQUIREMENT.packages.join(" ")} (Node ${PI_REQUIREMENT.node})`;
}
