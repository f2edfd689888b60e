/**
 * dist/ folders for runtime tests. `sampleDist` writes a small dist that
 * follows the manifest contract (real sha256 and byte counts); `prepareDist`
 * copies the real embedded-default dist/ when it exists and verifies, and
 * falls back to the sample otherwise. Each call returns a fresh temp folder.
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";
import type { CachePlan, CachePlanBlock } from "../../../src/protocol/cache-plan.js";
import type { DistManifest, InjectionKindArtifact, SkillInfo, ToolSchemaArtifact, VariantName } from "../../../src/protocol/dist-manifest.js";
import { loadArtifacts } from "../../../src/runtime/artifacts.js";

/** The real dist/ the tests copy: the repository's own, or GAMMA_DIST when set. */
export const repoDist = process.env["GAMMA_DIST"] ?? fileURLToPath(new URL("../../../dist/", import.meta.url));

const created: string[] = [];
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temp folder, removed after the test file's tests. */
export function tempDir(prefix = "gamma-runtime-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** A temp copy of the real dist/ if it exists and verifies, else the sample dist. */
export function prepareDist(): string {
  if (existsSync(join(repoDist, "manifest.json"))) {
    try {
      loadArtifacts({ distDir: repoDist });
      const copy = tempDir();
      cpSync(repoDist, copy, { recursive: true });
      return copy;
    } catch {
      // The real dist is mid-rebuild or broken: the sample keeps the runtime tests meaningful.
    }
  }
  return sampleDist();
}

interface SampleSkill {
  name: string;
  type: "workflow" | "reference";
  requiresSkills: string[];
  conflictsWith: string[];
  body: string;
}

export const SAMPLE_SKILLS: readonly SampleSkill[] = [
  { name: "ask-user-questions", type: "reference", requiresSkills: [], conflictsWith: [], body: "# Asking the user\n\nAsk only blocking questions.\n" },
  { name: "deck-generation", type: "workflow", requiresSkills: ["gml-authoring", "gml-cli"], conflictsWith: ["import"], body: "# Deck generation\n\n1. Understand the request.\n2. Write the outline.\n3. Verify with `gml validate`.\n" },
  { name: "gml-authoring", type: "reference", requiresSkills: [], conflictsWith: [], body: "# GML authoring\n\nCards hold blocks.\n" },
  { name: "gml-cli", type: "reference", requiresSkills: [], conflictsWith: [], body: "# gml CLI\n\n`gml render --out deck.png`\n" },
  { name: "gml-editing", type: "workflow", requiresSkills: ["gml-authoring", "gml-cli", "ask-user-questions"], conflictsWith: [], body: "# GML editing\n\n1. Read the deck.\n2. Edit.\n3. Verify.\n" },
  { name: "import", type: "workflow", requiresSkills: ["gml-authoring", "gml-cli"], conflictsWith: ["deck-generation"], body: "# Import\n\n1. Run `gml import`.\n2. Verify.\n" },
];

const TOOL_ORDER = ["read", "bash", "write", "edit", "todo", "subagent", "show_gamma", "show_file", "skill", "message_user"];

function toolSchema(name: string): ToolSchemaArtifact {
  const object = (properties: Record<string, unknown>, required: string[]) => ({ type: "object", properties, required, additionalProperties: false });
  const str = { type: "string" };
  const parameters: Record<string, Record<string, unknown>> = {
    read: object({ path: str }, ["path"]),
    bash: object({ command: str }, ["command"]),
    write: object({ path: str, content: str }, ["path", "content"]),
    edit: object({ path: str, edits: { type: "array", items: object({ oldText: str, newText: str }, ["oldText", "newText"]) } }, ["path", "edits"]),
    todo: object(
      {
        tasks: {
          type: "array",
          items: object({ id: str, title: str, status: { type: "string", enum: ["pending", "in_progress", "complete", "blocked"] }, note: str }, ["id", "title", "status"]),
        },
      },
      ["tasks"],
    ),
    subagent: object({ task: str }, ["task"]),
    show_gamma: object({ ref: str }, ["ref"]),
    show_file: object({ path: str }, ["path"]),
    skill: object({ name: { type: "string", enum: SAMPLE_SKILLS.map((skill) => skill.name) } }, ["name"]),
    message_user: object({ message: str, blockOnUser: { type: "boolean" } }, ["message", "blockOnUser"]),
  };
  return { name, description: `The ${name} tool.`, parameters: parameters[name] ?? object({}, []) };
}

const KINDS: InjectionKindArtifact[] = (
  [
    ["system_note", "next_turn"],
    ["system_guidance", "steer"],
    ["system_update", "steer"],
    ["client_view", "next_turn"],
    ["artifact_update", "steer"],
    ["workspace_update", "steer"],
    ["background_result", "follow_up"],
  ] as const
).map(([kind, delivery]) => ({ kind, tag: kind, meaning: `Meaning of ${kind}.`, action: `Action for ${kind}.`, delivery }));

const sha = (text: string | Buffer): string => createHash("sha256").update(text).digest("hex");

/** Writes the sample dist into a fresh temp folder (or `dir`) and returns the folder. */
export function sampleDist(dir = tempDir()): string {
  const files = new Map<string, string>();
  const catalog =
    "<available_skills>\n" +
    SAMPLE_SKILLS.map((skill) => `  <skill name="${skill.name}" type="${skill.type}" path="skills/${skill.name}/SKILL.md">\n    Use for ${skill.name}.\n  </skill>`).join("\n") +
    "\n</available_skills>";
  const prefix = `# Gamma\n\nYou build presentations.\n\n${catalog}\n\nYour task state and active skills survive context compaction. Continue until completion.\n`;
  files.set("prefix.md", prefix);
  files.set("catalog.xml", `${catalog}\n`);
  files.set("tools.json", `${JSON.stringify(TOOL_ORDER.map(toolSchema), null, 2)}\n`);
  files.set("injections.json", `${JSON.stringify(KINDS, null, 2)}\n`);
  const preloads: Record<VariantName, string[]> = { base: [], "deck-generation": ["deck-generation", "gml-authoring", "gml-cli"], import: ["import", "gml-authoring", "gml-cli"] };
  for (const [variant, names] of Object.entries(preloads)) {
    const suffix = names
      .map((name) => {
        const skill = SAMPLE_SKILLS.find((candidate) => candidate.name === name);
        return `<preloaded_skill name="${name}" type="${skill?.type}">\n${skill?.body}</preloaded_skill>\n`;
      })
      .join("\n");
    files.set(`variants/${variant}.md`, names.length === 0 ? prefix : `${prefix}# Preloaded skills\n\n${suffix}`);
  }
  for (const skill of SAMPLE_SKILLS) files.set(`skills/${skill.name}.md`, skill.body);
  files.set("cache-plan.json", `${JSON.stringify(samplePlan(files), null, 2)}\n`);

  const artifacts: DistManifest["artifacts"] = {};
  for (const [file, text] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const path = join(dir, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    artifacts[file] = { sha256: sha(text), bytes: Buffer.byteLength(text) };
  }
  const entry = (file: string) => ({ file, sha256: artifacts[file]?.sha256 ?? "" });
  const skills: Record<string, SkillInfo> = {};
  for (const skill of SAMPLE_SKILLS) {
    skills[skill.name] = { ...entry(`skills/${skill.name}.md`), type: skill.type, description: `Use for ${skill.name}.`, requiresSkills: skill.requiresSkills, conflictsWith: skill.conflictsWith, tokens: 10 };
  }
  const variantInfo = (name: VariantName) => ({ ...entry(`variants/${name}.md`), bytes: artifacts[`variants/${name}.md`]?.bytes ?? 0, tokens: 100, preloadedSkills: preloads[name] ?? [], sharedPrefixTokens: 90, cacheableTokens: 0 });
  const manifest: DistManifest = {
    manifestVersion: 1,
    generator: { name: "gamma-prompt", version: "0.1.0" },
    templateEngine: { name: "handlebars", version: "4.7.10" },
    tokenizer: { name: "gpt-tokenizer", version: "4.0.0", encoding: "o200k_base" },
    artifacts,
    staticPrefix: { ...entry("prefix.md"), bytes: artifacts["prefix.md"]?.bytes ?? 0, tokens: 90, toolsSha256: artifacts["tools.json"]?.sha256 ?? "", cacheKey: sha("key") },
    catalog: { ...entry("catalog.xml"), tokens: 40 },
    tools: { ...entry("tools.json"), order: TOOL_ORDER },
    injections: entry("injections.json"),
    cachePlan: entry("cache-plan.json"),
    variants: { base: variantInfo("base"), "deck-generation": variantInfo("deck-generation"), import: variantInfo("import") },
    skills,
  };
  writeFileSync(join(dir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  return dir;
}

/** The plan the compiler would write for the sample texts (token counts are placeholders). */
function samplePlan(files: ReadonlyMap<string, string>): CachePlan {
  const prefix = files.get("prefix.md") ?? "";
  const tools = files.get("tools.json") ?? "";
  const prefixBytes = Buffer.byteLength(prefix);
  const toolsBlock: CachePlanBlock = { name: "tools", source: "tools.json", bytes: Buffer.byteLength(tools), sha256: sha(tools), tokens: 50, cumulativeTokens: 50, breakpoint: true };
  const prefixBlock: CachePlanBlock = { name: "static-prefix", source: "prefix.md", system: { start: 0, end: prefixBytes }, bytes: prefixBytes, sha256: sha(prefix), tokens: 90, cumulativeTokens: 140, breakpoint: true };
  const variants: CachePlan["variants"] = {};
  for (const name of ["base", "deck-generation", "import"]) {
    const file = `variants/${name}.md`;
    const tail = Buffer.from(files.get(file) ?? "").subarray(prefixBytes);
    const blocks = [toolsBlock, prefixBlock];
    if (tail.length > 0) {
      blocks.push({ name: "variant-tail", source: file, system: { start: prefixBytes, end: prefixBytes + tail.length }, bytes: tail.length, sha256: sha(tail), tokens: 30, cumulativeTokens: 170, breakpoint: true });
    }
    variants[name] = { blocks };
  }
  return { planVersion: 1, variants };
}
