/**
 * Evaluation scenarios (evals/*.yaml): read, validated against
 * schemas/eval-scenario.schema.json, then checked against the dist/ they run
 * on. Every problem is a diagnostic at the key or value it concerns; a file
 * with a problem is not run.
 */
import { createHash } from "node:crypto";
import { basename, relative, resolve, sep } from "node:path";
import { compareDiagnostics, createDiagnostic, FILE_START, type Diagnostic } from "../diagnostics/diagnostic.js";
import { parseYamlSource, rangeAt, type PathSegment, type PositionedSource } from "../pipeline/parse/positioned-source.js";
import { schemaDiagnostics } from "../pipeline/validate/schema-diagnostics.js";
import { packageSchemaValidator } from "../pipeline/validate/schema-validators.js";
import { readRegularFile } from "../protocol/regular-file.js";
import type { LoadedArtifacts } from "../runtime/artifacts.js";
import type { ArtifactReference, NamespaceLoadSource } from "../runtime/execution-state.js";
import { checkInjection } from "../runtime/injections/envelope.js";
import { RUNTIME_TOOL_NAMES } from "../protocol/runtime-tools.js";

/** A scenario larger than this is refused unread: scenarios are hand-written. */
export const MAX_SCENARIO_BYTES = 1024 * 1024;

export interface ArgsContain {
  readonly [argument: string]: string;
}

/** What a host tool returns for a call: the first fixture whose `argsContain` matches (one without it matches every call). */
export interface ToolFixture {
  argsContain?: ArgsContain;
  /** The tool result's text. */
  result?: string;
  /** The call fails with this message (the model sees an error result). */
  error?: string;
}

/** When an event is routed: before the user's turn k (1-based), or once the model has made its n-th tool call. */
export type EventPoint = { beforeTurn: number } | { afterToolCall: number };

export interface ScenarioEvent {
  at: EventPoint;
  /** A runtime injection envelope, routed with `routeUpdate`. */
  update: Record<string, unknown>;
}

/** Who loaded a namespace: the runtime's sources, or the variant, which sends it from session start. */
export type TraceNamespaceSource = NamespaceLoadSource | "variant";

export type Expectation =
  | { id: string; skillActivated: { name: string; beforeFirstTaskAction?: boolean } }
  | { id: string; skillNotActivated: { name: string } }
  | { id: string; namespaceLoaded: { name: string; loadedBy?: TraceNamespaceSource } }
  | { id: string; namespaceNotLoaded: { name: string } }
  | { id: string; stepsCompleted: { skill: string; steps: "required" | number[] } }
  | { id: string; toolCalled: { name: string; argsContain?: ArgsContain; min?: number; max?: number } }
  | { id: string; toolNotCalled: { name: string; argsContain?: ArgsContain; beforeFirstYield?: boolean } }
  | { id: string; yield: { turn?: number; blockOnUser?: boolean; asksQuestion?: boolean; contains?: string[] } }
  | { id: string; maxModelCalls: number }
  | { id: string; auditPasses: boolean };

export const EXPECTATION_KINDS = ["skillActivated", "skillNotActivated", "namespaceLoaded", "namespaceNotLoaded", "stepsCompleted", "toolCalled", "toolNotCalled", "yield", "maxModelCalls", "auditPasses"] as const;
export type ExpectationKind = (typeof EXPECTATION_KINDS)[number];

export interface Scenario {
  name: string;
  description?: string;
  variant: string;
  audit?: "off" | "report" | "block";
  /** The artifacts the task works on (the runtime's `setCurrentArtifacts`): updates naming them are steered into the run. */
  currentArtifacts?: ArtifactReference[];
  /** Skills each turn requires (the runtime's invocation enforcement, `buildTurnMessages({ requiredSkills })`). */
  requiredSkills?: string[];
  turns: string[];
  events?: ScenarioEvent[];
  tools?: Record<string, ToolFixture[]>;
  /** A run is stopped after this many model calls (default 40): a looping model cannot run up a bill. */
  maxModelCallsPerRun?: number;
  expect: Expectation[];
}

export interface LoadedScenario {
  scenario: Scenario;
  /** The file, relative to the working folder, with forward slashes. */
  file: string;
  /** The folder its cassettes live in: `<scenario folder>/cassettes/<name>/`. */
  cassetteDir: string;
  /** sha256 of the scenario's bytes. */
  sha256: string;
}

export const DEFAULT_MAX_MODEL_CALLS = 40;

/** Every tool a run can meet: the stable set, then each namespace's tools (served once it loads). */
export function declaredToolNames(artifacts: LoadedArtifacts): string[] {
  return [...artifacts.tools.map((tool) => tool.name), ...[...artifacts.namespaces.values()].flatMap((namespace) => namespace.tools.map((tool) => tool.name))];
}

export function expectationKind(expectation: Expectation): ExpectationKind {
  return EXPECTATION_KINDS.find((kind) => Object.hasOwn(expectation, kind)) as ExpectationKind;
}

/**
 * Reads and checks scenario files. Scenarios with problems are left out and
 * their diagnostics returned; names must be unique across all files.
 */
export function loadScenarios(paths: readonly string[], artifacts: LoadedArtifacts, cwd = process.cwd()): { scenarios: LoadedScenario[]; diagnostics: Diagnostic[] } {
  const scenarios: LoadedScenario[] = [];
  const diagnostics: Diagnostic[] = [];
  const byName = new Map<string, { file: string; located: PositionedSource }>();
  for (const path of paths) {
    const absolute = resolve(cwd, path);
    const file = relative(cwd, absolute).split(sep).join("/");
    const read = readScenarioText(absolute);
    if (typeof read !== "string") {
      diagnostics.push(createDiagnostic("eval/invalid-scenario", file, FILE_START, read.problem));
      continue;
    }
    const located = parseYamlSource({ path: file, text: read, contentHash: "" });
    if (!("document" in located)) {
      diagnostics.push(createDiagnostic("eval/invalid-scenario", file, rangeOf(located), located.message));
      continue;
    }
    const validate = packageSchemaValidator("eval-scenario");
    if (!validate(located.value)) {
      const kinds = kindProblems(located);
      // ajv counts an expectation's properties; the one-kind rule (or the unknown key) is said plainly instead.
      const errors = (validate.errors ?? []).filter((error) => !(/^\/expect\/\d+$/.test(error.instancePath) && (error.keyword === "maxProperties" || error.keyword === "minProperties")));
      diagnostics.push(...kinds, ...schemaDiagnostics("eval/invalid-scenario", located, errors, "scenario", "eval-scenario"));
      continue;
    }
    const scenario = located.value as Scenario;
    const problems = checkReferences(scenario, located, artifacts);
    const earlier = byName.get(scenario.name);
    if (earlier !== undefined) {
      problems.push(
        createDiagnostic("eval/duplicate-id", file, rangeAt(located, ["name"]), `Unexpected second scenario named "${scenario.name}", expected each scenario name once (cassettes are stored by name)`, {
          file: earlier.file,
          range: rangeAt(earlier.located, ["name"]),
          message: "first scenario with this name",
        }),
      );
    } else byName.set(scenario.name, { file, located });
    diagnostics.push(...problems);
    if (problems.length > 0) continue;
    const folder = absolute.slice(0, absolute.length - basename(absolute).length);
    scenarios.push({ scenario, file, cassetteDir: resolve(folder, "cassettes", scenario.name), sha256: createHash("sha256").update(read).digest("hex") });
  }
  return { scenarios, diagnostics: diagnostics.sort(compareDiagnostics) };
}

/** Expectations with no kind or several kinds, which the schema can only count as properties. */
function kindProblems(located: PositionedSource): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const list = (located.value as { expect?: unknown } | null)?.expect;
  if (!Array.isArray(list)) return diagnostics;
  list.forEach((item: unknown, index) => {
    if (typeof item !== "object" || item === null) return;
    const kinds = EXPECTATION_KINDS.filter((kind) => Object.hasOwn(item, kind));
    if (kinds.length === 1) return;
    const found = kinds.length === 0 ? "no kind" : `${kinds.length} kinds (${kinds.map((kind) => `\`${kind}\``).join(", ")})`;
    diagnostics.push(createDiagnostic("eval/invalid-scenario", located.file, rangeAt(located, ["expect", index]), `Unexpected expectation with ${found}, expected \`id\` and exactly one of ${EXPECTATION_KINDS.join(", ")}`));
  });
  return diagnostics;
}

function readScenarioText(path: string): string | { problem: string } {
  const read = readRegularFile(path, { maxBytes: MAX_SCENARIO_BYTES });
  switch (read.kind) {
    case "file":
      break;
    case "missing":
      return { problem: "Unexpected missing scenario file, expected a readable YAML file" };
    case "not-a-file":
      return { problem: `Unexpected ${read.what} where a scenario belongs, expected a regular YAML file` };
    case "too-large":
      return { problem: `Unexpected scenario of ${read.size} bytes, expected at most ${MAX_SCENARIO_BYTES}` };
    case "error":
      return { problem: `Unexpected unreadable scenario (${read.code}), expected a readable YAML file` };
  }
  const text = new TextDecoder("utf-8", { fatal: false }).decode(read.bytes);
  if (text.includes("\uFFFD")) return { problem: "Unexpected bytes that are not UTF-8, expected a UTF-8 YAML file" };
  return text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
}

function rangeOf(diagnostic: Diagnostic) {
  return { start: { line: diagnostic.line, column: diagnostic.column }, end: { line: diagnostic.endLine, column: diagnostic.endColumn } };
}

/** Names the scenario uses must exist in the dist/ it runs on; ids must be unique; events must be envelopes the runtime accepts. */
function checkReferences(scenario: Scenario, located: PositionedSource, artifacts: LoadedArtifacts): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const unknown = (path: PathSegment[], message: string) => diagnostics.push(createDiagnostic("eval/unknown-reference", located.file, rangeAt(located, path), message));
  const variants = Object.keys(artifacts.variants);
  if (!variants.includes(scenario.variant)) unknown(["variant"], `Unexpected variant "${scenario.variant}", expected one that dist/manifest.json lists: ${variants.join(", ")}`);
  const tools = declaredToolNames(artifacts);
  const declared = artifacts.namespaces.size === 0 ? "dist/tools.json declares" : "dist/tools.json or a namespace in dist/namespaces declares";
  const skill = (name: string, path: PathSegment[]) => {
    if (!artifacts.skills.has(name)) unknown(path, `Unexpected skill "${name}", expected one of dist/skills: ${[...artifacts.skills.keys()].sort().join(", ")}`);
  };
  const tool = (name: string, path: PathSegment[]) => {
    if (!tools.includes(name)) unknown(path, `Unexpected tool "${name}", expected one that ${declared}: ${tools.join(", ")}`);
  };
  const namespace = (name: string, path: PathSegment[]) => {
    const names = [...artifacts.namespaces.keys()];
    if (!names.includes(name)) unknown(path, `Unexpected tool namespace "${name}", expected one of dist/namespaces: ${names.join(", ") || "(none: the project declares no namespaces)"}`);
  };
  for (const name of Object.keys(scenario.tools ?? {})) {
    if (!tools.includes(name)) {
      diagnostics.push(createDiagnostic("eval/unknown-reference", located.file, rangeAt(located, ["tools", name], true), `Unexpected fixture for tool "${name}", expected one that ${declared}: ${tools.join(", ")}`));
    } else if ((RUNTIME_TOOL_NAMES as readonly string[]).includes(name)) {
      diagnostics.push(createDiagnostic("eval/unknown-reference", located.file, rangeAt(located, ["tools", name], true), `Unexpected fixture for "${name}", expected fixtures only for host tools (the runtime implements ${name})`));
    }
  }
  (scenario.requiredSkills ?? []).forEach((name, index) => {
    if (artifacts.skills.get(name)?.modelInvocable === false) unknown(["requiredSkills", index], `Unexpected required skill "${name}" with disable-model-invocation: true, expected a skill the model can load`);
    else skill(name, ["requiredSkills", index]);
  });
  const seenIds = new Map<string, number>();
  scenario.expect.forEach((expectation, index) => {
    const at = (...rest: PathSegment[]): PathSegment[] => ["expect", index, ...rest];
    const first = seenIds.get(expectation.id);
    if (first !== undefined) {
      diagnostics.push(
        createDiagnostic("eval/duplicate-id", located.file, rangeAt(located, at("id")), `Unexpected second expectation id "${expectation.id}", expected each id once per scenario (results are keyed by it)`, {
          file: located.file,
          range: rangeAt(located, ["expect", first, "id"]),
          message: "first expectation with this id",
        }),
      );
    } else seenIds.set(expectation.id, index);
    if ("skillActivated" in expectation) skill(expectation.skillActivated.name, at("skillActivated", "name"));
    if ("skillNotActivated" in expectation) skill(expectation.skillNotActivated.name, at("skillNotActivated", "name"));
    if ("namespaceLoaded" in expectation) namespace(expectation.namespaceLoaded.name, at("namespaceLoaded", "name"));
    if ("namespaceNotLoaded" in expectation) namespace(expectation.namespaceNotLoaded.name, at("namespaceNotLoaded", "name"));
    if ("toolCalled" in expectation) tool(expectation.toolCalled.name, at("toolCalled", "name"));
    if ("toolNotCalled" in expectation) tool(expectation.toolNotCalled.name, at("toolNotCalled", "name"));
    if ("yield" in expectation && expectation.yield.turn !== undefined && expectation.yield.turn > scenario.turns.length) {
      unknown(at("yield", "turn"), `Unexpected turn ${expectation.yield.turn}, expected 1 to ${scenario.turns.length} (the scenario's turns)`);
    }
    if ("stepsCompleted" in expectation) {
      const { skill: name, steps } = expectation.stepsCompleted;
      const loaded = artifacts.skills.get(name);
      if (loaded === undefined) skill(name, at("stepsCompleted", "skill"));
      else if (loaded.steps === undefined) unknown(at("stepsCompleted", "skill"), `Unexpected skill "${name}" without a compiled checklist, expected a workflow skill`);
      else if (Array.isArray(steps)) {
        const count = loaded.steps.length;
        steps.forEach((step, stepIndex) => {
          if (step > count) unknown(at("stepsCompleted", "steps", stepIndex), `Unexpected step ${step} of ${name}, expected 1 to ${count}`);
        });
      }
    }
  });
  (scenario.events ?? []).forEach((event, index) => {
    if ("beforeTurn" in event.at && event.at.beforeTurn > scenario.turns.length) {
      diagnostics.push(createDiagnostic("eval/invalid-event", located.file, rangeAt(located, ["events", index, "at", "beforeTurn"]), `Unexpected turn ${event.at.beforeTurn}, expected 1 to ${scenario.turns.length} (the scenario's turns)`));
    }
    const checked = checkInjection(event.update, { kinds: artifacts.injectionKinds });
    if (!checked.ok) {
      const field = checked.error.field.split("/").filter((part) => part !== "");
      diagnostics.push(createDiagnostic("eval/invalid-event", located.file, rangeAt(located, ["events", index, "update", ...field]), `Unexpected runtime event: ${checked.error.message}`));
    }
  });
  return diagnostics;
}
