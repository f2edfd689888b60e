import type { RuleDefinition } from "./rule.js";

/**
 * Rules about knowledge notes (knowledge/<id>.md).
 * Rule ids are permanent: never rename or reuse one.
 */
export const knowledgeRules = {
  "knowledge/file-too-large": { severity: "error", description: "A knowledge note is at most 1 MiB." },
  "knowledge/frontmatter": { severity: "error", description: "A note starts with YAML frontmatter between `---` lines that parses to a mapping." },
  "knowledge/missing-key": { severity: "error", description: "`id`, `name`, `scope` and `source` are present." },
  "knowledge/unknown-key": { severity: "warning", description: "Only the keys of schemas/knowledge-note.schema.json are used; a near miss suggests the known key." },
  "knowledge/schema-violation": { severity: "error", description: "A value meets schemas/knowledge-note.schema.json (types, `source` is `user` or `system`, lengths, no `<`, `>`, control character, Unicode line or paragraph separator, bidirectional control or Unicode tag character (U+E0000 to U+E007F) in `name` and `scope`; `scope` may hold tabs, line feeds and carriage returns, `name` tabs only)." },
  "knowledge/id-format": { severity: "error", description: "`id` matches `^[a-z0-9]+(-[a-z0-9]+)*$` and has at most 64 code points (the skill name rules)." },
  "knowledge/id-mismatch": { severity: "error", description: "`id` equals the note's file name without `.md`." },
  "knowledge/id-duplicate": { severity: "error", description: "No two notes share an id." },
  "knowledge/scope-trigger": { severity: "warning", description: "`scope` states when the note applies in direct terms: `Use for …`, `Use when …`." },
  "knowledge/empty-body": { severity: "error", description: "A note has a body: the facts or constraints it holds." },
  "knowledge/checklist-body": { severity: "warning", description: "A note holds facts or constraints, not a procedure: its body is not an ordered list of 3 or more steps." },
  "knowledge/body-over-inline-limit": { severity: "warning", description: "A body fits `knowledge.inlineBytes` (default 8,192 bytes); a larger one is returned as a path for focused reading." },
  "knowledge/unknown-skill": { severity: "error", description: "Every name in `appliesTo.skills` is a skill in skills/." },
  "knowledge/unknown-tool": { severity: "error", description: "Every name in `appliesTo.tools` is a tool the agent declares, in schemas/tools/ or a tool namespace." },
  "knowledge/fetch-tool-missing": { severity: "error", description: "An agent with knowledge notes declares `read_workspace_rule`, the only tool that fetches a note." },
  "tool/knowledge-id-parameter": { severity: "error", description: "The `read_workspace_rule` tool has a string `knowledgeId` parameter without an `enum` (live notes exist too)." },
} as const satisfies Record<string, RuleDefinition>;
