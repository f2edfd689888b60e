import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { InjectionKindArtifact } from "../../../src/protocol/dist-manifest.js";
import type { RuntimeInjection } from "../../../src/runtime/injections/index.js";

export const fixturesDir = fileURLToPath(new URL("../../fixtures/injections/", import.meta.url));

export function fixturePath(relative: string): string {
  return `${fixturesDir}${relative}`;
}

/** The kinds table as dist/injections.json carries it. */
export const kinds = JSON.parse(readFileSync(fixturePath("kinds.json"), "utf8")) as InjectionKindArtifact[];

export function listFixtures(folder: string, extension: string): Array<{ name: string; text: string }> {
  return readdirSync(fixturePath(folder))
    .filter((name) => name.endsWith(extension))
    .sort()
    .map((name) => ({ name, text: readFileSync(fixturePath(`${folder}/${name}`), "utf8") }));
}

let counter = 0;

/** A valid event with overrides; ids and times count up so order is predictable. */
export function event(overrides: Partial<RuntimeInjection> = {}): RuntimeInjection {
  counter++;
  const seconds = String(counter % 60).padStart(2, "0");
  const minutes = String(Math.floor(counter / 60) % 60).padStart(2, "0");
  return {
    id: `evt_${String(counter).padStart(5, "0")}`,
    kind: "system_note",
    occurredAt: `2026-03-01T10:${minutes}:${seconds}Z`,
    source: "server",
    delivery: "next_turn",
    requiresDecision: false,
    summary: `Note ${counter}.`,
    ...overrides,
  };
}
