import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { importPiPackages, missingPiMessage, PI_REQUIREMENT, PiNotInstalledError, requirePiPackages } from "../../src/protocol/pi-requirement.js";

const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { engines: { node: string }; peerDependencies: Record<string, string> };

describe("the Pi requirement a command names when Pi is missing", () => {
  it("is package.json's Pi peer dependencies and Node engine", () => {
    const piPeers = Object.entries(manifest.peerDependencies).filter(([name]) => name.startsWith("@earendil-works/"));
    expect(piPeers).toHaveLength(3);
    expect([...PI_REQUIREMENT.packages].sort()).toEqual(piPeers.map(([name, version]) => `${name}@${version}`).sort());
    expect(PI_REQUIREMENT.node).toBe(manifest.engines.node);
  });

  it("answers only a Pi package that failed to load", () => {
    const missing = Object.assign(new Error("Cannot find package '@earendil-works/pi-ai' imported from /x/lib/a.js"), { code: "ERR_MODULE_NOT_FOUND" });
    expect(missingPiMessage(missing)).toContain("npm install @earendil-works/pi-agent-core@");
    expect(missingPiMessage(Object.assign(new Error("Cannot find package 'yaml' imported from /x"), { code: "ERR_MODULE_NOT_FOUND" }))).toBeUndefined();
    expect(missingPiMessage(new Error("Cannot find package '@earendil-works/pi-ai'"))).toBeUndefined();
  });
});

describe("the check before the runtime loads Pi", () => {
  const notFound = (specifier: string) => Object.assign(new Error(`Cannot find package '${specifier}' imported from /x/lib/runtime/pi-adapter.js`), { code: "ERR_MODULE_NOT_FOUND" });

  it("names exactly the packages that do not resolve, with the install line", () => {
    const missing = (only: string) => (specifier: string) => {
      if (specifier === only) throw notFound(specifier);
      return `file:///x/node_modules/${specifier}/index.js`;
    };
    expect(() => requirePiPackages(() => "file:///x/index.js")).not.toThrow();
    let thrown: unknown;
    try {
      requirePiPackages(missing("@earendil-works/pi-coding-agent"));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PiNotInstalledError);
    expect((thrown as PiNotInstalledError).code).toBe("GAMMA_PROMPT_PI_NOT_INSTALLED");
    expect((thrown as PiNotInstalledError).missing).toEqual(["@earendil-works/pi-coding-agent"]);
    expect((thrown as Error).message).toBe(
      `gamma-prompt/runtime runs agents on Pi, and @earendil-works/pi-coding-agent is not installed: npm install ${PI_REQUIREMENT.packages.join(" ")} (Node ${PI_REQUIREMENT.node})`,
    );
    // A command that loads the runtime says its own line for the same error.
    expect(missingPiMessage(thrown)).toBe(`this command runs an agent on Pi, whose packages are not installed: npm install ${PI_REQUIREMENT.packages.join(" ")} (Node ${PI_REQUIREMENT.node})`);
  });

  it("lets any other resolution error through unchanged", () => {
    const denied = Object.assign(new Error("Package subpath './x' is not defined by exports"), { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" });
    expect(() =>
      requirePiPackages(() => {
        throw denied;
      }),
    ).toThrow(denied);
  });
});

describe("the runtime's import of Pi", () => {
  const CORE = "@earendil-works/pi-agent-core";
  const AI = "@earendil-works/pi-ai";
  const notFound = (specifier: string) => Object.assign(new Error(`Cannot find package '${specifier}' imported from /x/lib/runtime/pi/packages.pi-adapter.js`), { code: "ERR_MODULE_NOT_FOUND" });
  const onDisk = (specifier: string) => `file:///x/node_modules/${specifier}/index.js`;
  const nothingOnDisk = (specifier: string): string => {
    throw notFound(specifier);
  };

  it("returns what each import loaded", async () => {
    const loaded = await importPiPackages({ [CORE]: async () => ({ Agent: "agent" }), [AI]: async () => ({ ai: 1 }) }, onDisk);
    expect(loaded).toEqual({ [CORE]: { Agent: "agent" }, [AI]: { ai: 1 } });
  });

  it("trusts imports that succeed although nothing resolves on disk (a bundle that carries Pi)", async () => {
    const loaded = await importPiPackages({ [CORE]: async () => ({ Agent: "agent" }), [AI]: async () => ({}) }, nothingOnDisk);
    expect(loaded[CORE]).toEqual({ Agent: "agent" });
  });

  it("names the packages whose import was not found, and the later ones that do not resolve either", async () => {
    const refused = await importPiPackages({ [CORE]: () => Promise.reject(notFound(CORE)), [AI]: () => Promise.reject(notFound(AI)) }, nothingOnDisk).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PiNotInstalledError);
    expect((refused as PiNotInstalledError).missing).toEqual(["@earendil-works/pi-agent-core", "@earendil-works/pi-ai", "@earendil-works/pi-coding-agent"]);
  });

  it("on disk, names a later package that does not resolve although the imported ones do", async () => {
    const refused = await importPiPackages({ [CORE]: async () => ({}), [AI]: async () => ({}) }, (specifier) => {
      if (specifier === "@earendil-works/pi-coding-agent") throw notFound(specifier);
      return onDisk(specifier);
    }).catch((error: unknown) => error);
    expect((refused as PiNotInstalledError).missing).toEqual(["@earendil-works/pi-coding-agent"]);
  });

  it("lets through a not-found for a module the package itself imports, and any other failure", async () => {
    const inside = notFound("some-dependency-of-pi");
    await expect(importPiPackages({ [CORE]: () => Promise.reject(inside), [AI]: async () => ({}) }, onDisk)).rejects.toBe(inside);
    const broken = new SyntaxError("Unexpected token");
    await expect(importPiPackages({ [CORE]: async () => ({}), [AI]: () => Promise.reject(broken) }, nothingOnDisk)).rejects.toBe(broken);
  });
});
