/**
 * What each tool takes and returns, as JSON Schema: the agent reads these
 * (with each tool's description, which says when to call it), the server
 * checks arguments against the input schemas, and clients may check the
 * structured results against the output schemas.
 */

type Schema = Record<string, unknown>;

const string = { type: "string" } as const;
const integer = { type: "integer", minimum: 0 } as const;
const number = { type: "number" } as const;
const boolean = { type: "boolean" } as const;
const strings = { type: "array", items: string } as const;
const object = (properties: Record<string, Schema>, required: readonly string[] = Object.keys(properties)): Schema => ({ type: "object", properties, required, additionalProperties: false });
/** An object whose further fields may grow (library records passed on whole). */
const open = (properties: Record<string, Schema>, required: readonly string[] = Object.keys(properties)): Schema => ({ type: "object", properties, required });

const related = object({ file: string, line: integer, column: integer, endLine: integer, endColumn: integer, message: string });

/** One finding: where (root-relative file, 1-based line and UTF-16 column), how bad, which rule, its doc, and its safe fix if it has one. */
export const DIAGNOSTIC_SCHEMA: Schema = object(
  {
    file: string,
    line: integer,
    column: integer,
    endLine: integer,
    endColumn: integer,
    severity: { enum: ["error", "warning", "note"] },
    ruleId: string,
    message: string,
    url: string,
    related,
    fix: { type: "string", description: "What `lint --fix` (and the fix_file tool) would change for this finding; absent when it has no safe fix." },
  },
  ["file", "line", "column", "endLine", "endColumn", "severity", "ruleId", "message", "url"],
);

const counts = { errorCount: integer, warningCount: integer, noteCount: integer };
const diagnostics = { type: "array", items: DIAGNOSTIC_SCHEMA } as const;

const LINT_OUTPUT = object({ root: string, scope: string, profile: { enum: ["gamma", "agentskills"] }, ...counts, diagnostics });
const LINT_TEXT_OUTPUT = object({ path: string, profile: { enum: ["gamma", "agentskills"] }, ...counts, diagnostics });

const EXPLAIN_OUTPUT = object({ id: string, severity: { enum: ["error", "warning", "note"] }, description: string, text: string, bad: string, good: string, url: string, docPath: string });

const FIX_OUTPUT = object(
  {
    file: string,
    written: boolean,
    notFixed: { type: "string", description: "Why the file's fixes were not made although it has some (it is a symbolic link: fix the file it points to); absent otherwise." },
    fixes: { type: "array", items: object({ line: integer, column: integer, ruleId: string, message: string }) },
    diff: { type: "string", description: "A unified diff of the file (empty when nothing to fix); `git apply` takes it." },
    remaining: { ...diagnostics, description: "The file's findings once the fixes are made." },
  },
  ["file", "written", "fixes", "diff", "remaining"],
);

const blockState = { enum: ["intact", "changed", "invalidated", "new"] };
const CHECK_CACHE_OUTPUT = object(
  {
    ok: { type: "boolean", description: "The output folder is exactly what the sources build to." },
    ...counts,
    diagnostics,
    drift: { type: "array", items: open({ artifact: string, kind: string }) },
    invalidatesSharedPrefix: boolean,
    comparison: object(
      {
        intact: boolean,
        variants: { type: "array", items: object({ name: string, blocks: { type: "array", items: object({ name: string, tokens: integer, cumulativeTokens: integer, state: blockState }) } }) },
        removedVariants: strings,
        changes: { type: "array", items: open({ file: string, kind: { enum: ["added", "removed", "changed"] }, invalidates: { type: "array", items: object({ variant: string, blocks: strings }) } }, ["file", "kind", "invalidates"]) },
        invalidation: { type: "array", items: object({ variant: string, tokens: integer, openaiTokens: integer, dollarsPer1000Sessions: { type: "object", additionalProperties: number } }) },
        costDelta: { type: "array", items: object({ provider: string, model: string, policy: string, variant: string, before: number, after: number }) },
        costDeltaProblem: string,
      },
      ["intact", "variants", "removedVariants", "changes", "invalidation", "costDelta"],
    ),
    comparisonProblem: string,
  },
  ["ok", "errorCount", "warningCount", "noteCount", "diagnostics", "drift", "invalidatesSharedPrefix"],
);

const SHOW_VARIANT_OUTPUT = object({
  variant: string,
  from: { enum: ["sources", "output"], description: "sources: built in memory from the sources as they are; output: the output folder's copy (the sources have errors)." },
  text: { type: "string", description: "The system prompt, byte for byte what variants/<variant>.md holds." },
  blocks: {
    type: "array",
    items: object(
      { name: string, source: string, tokens: integer, cumulativeTokens: integer, breakpoint: boolean, system: object({ start: integer, end: integer }) },
      ["name", "source", "tokens", "cumulativeTokens", "breakpoint"],
    ),
  },
});

const SKILL_GRAPH_OUTPUT = object(
  {
    skill: string,
    type: { enum: ["workflow", "reference"], description: "Absent for a skill that names no type (the Agent Skills profile)." },
    description: string,
    path: string,
    requires: strings,
    requiredBy: strings,
    conflicts: strings,
    activation: { type: "array", items: object({ name: string, requiredBy: string, type: { enum: ["workflow", "reference"] }, unknown: { const: true } }, ["name", "requiredBy"]) },
    activationConflicts: { type: "array", items: { type: "array", items: string, minItems: 2, maxItems: 2 } },
    toolNamespaces: strings,
    preloadedBy: { ...strings, description: "The variants that preload it; absent when that is not known (see preloadsUnknown)." },
    preloadedFrom: { enum: ["sources", "output"], description: "Where preloadedBy comes from: the sources' build, or while they have errors the output folder's last build." },
    preloadsUnknown: { type: "string", description: "Why preloadedBy is absent: the sources have errors and the output folder has no build that passes verification." },
  },
  ["skill", "description", "path", "requires", "requiredBy", "conflicts", "activation", "activationConflicts", "toolNamespaces"],
);

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Schema;
  outputSchema: Schema;
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint: boolean; openWorldHint: false };
}

const pathArgument = (description: string): Schema => ({ type: "string", minLength: 1, description });
const readOnly = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

export const TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
    name: "lint",
    title: "Lint skills",
    description:
      "Check skills (SKILL.md frontmatter and body, links, requires/conflicts between skills) and, in a project with prompts/, its other sources but the templates (check_cache builds those): the findings `gamma-prompt lint` reports, as data. Call it after writing or changing a skill and before saying the work is done; pass `path` to keep only one skill folder's or one file's findings (a path lint reads nothing in is refused, never answered clean). Each finding names its rule (explain_rule tells why) and, when it has one, its safe fix (fix_file makes it).",
    inputSchema: object({ path: pathArgument("A skill folder or file, relative to the project root (default: the whole project).") }, []),
    outputSchema: LINT_OUTPUT,
    annotations: readOnly,
  },
  {
    name: "lint_text",
    title: "Lint an unsaved SKILL.md",
    description:
      "Check the text of a SKILL.md before writing it to disk, against the rest of the project as it is on disk (names, requires, conflicts): the skill rules' findings for that file. Call it while drafting a skill, then write the file and call lint. `path` is where the file will live (default skills/<name>/SKILL.md from its `name:`).",
    inputSchema: object(
      {
        text: { type: "string", description: "The whole SKILL.md: frontmatter and body." },
        path: pathArgument("Where the file will be written, relative to the project root, ending in SKILL.md."),
      },
      ["text"],
    ),
    outputSchema: LINT_TEXT_OUTPUT,
    annotations: readOnly,
  },
  {
    name: "explain_rule",
    title: "Explain a rule",
    description: "What a rule checks and why, with a bad and a good example and its documentation URL (as `gamma-prompt explain RULE`). Call it when a finding's message is not enough to know how to fix it.",
    inputSchema: object({ rule: { type: "string", minLength: 1, description: "A rule id, e.g. skill/description-trigger." } }),
    outputSchema: EXPLAIN_OUTPUT,
    annotations: readOnly,
  },
  {
    name: "fix_file",
    title: "Make the safe fixes in a SKILL.md",
    description:
      "The safe, mechanical fixes `lint --fix` makes in one SKILL.md's frontmatter (a missing type, allowed-tools written as a list, spaces inside a quoted description), returned as a unified diff. Call it for findings that carry a `fix`; it writes the file only with `write: true`, so call it first without to see the diff.",
    inputSchema: object({ path: pathArgument("The SKILL.md, relative to the project root."), write: { type: "boolean", default: false, description: "Write the fixed file (default false: only return the diff)." } }, ["path"]),
    outputSchema: FIX_OUTPUT,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: "check_cache",
    title: "What the sources would do to the prompt cache",
    description:
      "Compare the sources as they are now with the committed output folder (dist/), writing nothing: check's verdict and drift, and per variant which cached blocks stay intact, change or are invalidated, the files behind them, the tokens that go uncached and the default cache policies' input cost per 1,000 sessions before and after (the figures `report --base` shows). Call it before committing a change to prompts, skills or tool schemas of a project with prompts/.",
    inputSchema: object({}, []),
    outputSchema: CHECK_CACHE_OUTPUT,
    annotations: readOnly,
  },
  {
    name: "show_variant",
    title: "A variant's compiled prompt",
    description:
      "A variant's system prompt exactly as the build writes it (built in memory from the sources; while they have errors, the output folder's copy), with its cache plan's blocks: name, source, tokens, running total, breakpoint and byte range. Call it to see what the model will be sent, or where an edit lands in the cache.",
    inputSchema: object({ variant: { type: "string", minLength: 1, description: "A variant name from prompts/variants.yaml, e.g. base." } }),
    outputSchema: SHOW_VARIANT_OUTPUT,
    annotations: readOnly,
  },
  {
    name: "skill_graph",
    title: "The skills graph around a skill",
    description:
      "What a skill requires and what requires it, what it conflicts with (declared on either side), what activating it brings in (in the runtime's order, with conflicts inside that set and the tool namespaces it loads) and the variants that preload it. Call it before adding or removing a requirement or a conflict, or renaming a skill.",
    inputSchema: object({ skill: { type: "string", minLength: 1, description: "A skill name." } }),
    outputSchema: SKILL_GRAPH_OUTPUT,
    annotations: readOnly,
  },
];
