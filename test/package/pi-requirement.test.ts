import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { missingPiMessage, PI_REQUIREMENT } from "../../src/cli/pi-requirement.js";

const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { engines: { node: string }; peerDependencies: Record<string, string> };

describe("the Pi requirement a command names when Pi is missing", () => {
  it("is package.json's peer dependencies and Node engine", () => {
    expect([...PI_REQUIREMENT.packages].sort()).toEqual(Object.entries(manifest.peerDependencies).map(([name, version]) => `${name}@${version}`).sort());
    expect(PI_REQUIREMENT.node).toBe(manifest.engines.node);
  });

  it("answers only a Pi package that failed to load", () => {
    const missing = Object.assign(new Error("Cannot find package '@earendil-works/pi-ai' imported from /x/lib/a.js"), { code: "ERR_MODULE_NOT_FOUND" });
    expect(missingPiMessage(missing)).toContain("npm install @earendil-works/pi-agent-core@");
    expect(missingPiMessage(Object.assign(new Error("Cannot find package 'yaml' imported from /x"), { code: "ERR_MODULE_NOT_FOUND" }))).toBeUndefined();
    expect(missingPiMessage(new Error("Cannot find package '@earendil-works/pi-ai'"))).toBeUndefined();
  });
});
