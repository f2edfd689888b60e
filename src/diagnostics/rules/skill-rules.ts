import type { RuleDefinition } from "./rule.js";

/**
 * Rules about skill manifests and their cross-references.
 * Rule ids are permanent: never rename or reuse one.
 */
export const skillRules = {
  // The tree and the file
  "skill/no-skills": { severity: "warning", description: "The project holds at least one skill where `skills` in the config (default `skills/*`) looks; lint fails unless `--allow-empty` (or the config sets it to `\"note\"`); build does not report it and writes an empty catalog." },
  "skill/missing-skill-file": { severity: "warning", description: "Every folder in skills/ holds a file named exactly `SKILL.md`." },
  "skill/unreadable-file": { severity: "error", description: "`SKILL.md` and every supporting file beside it can be read." },
  "skill/file-too-large": { severity: "error", description: "`SKILL.md` is at most 1 MiB." },
  "skill/empty-file": { severity: "error", description: "`SKILL.md` is not empty." },
  "skill/missing-frontmatter": { severity: "error", description: "`SKILL.md` starts with a `---` frontmatter line." },
  "skill/unclosed-frontmatter": { severity: "error", description: "The frontmatter is closed by a second `---` line." },
  // YAML
  "skill/yaml-syntax": { severity: "error", description: "The frontmatter is valid YAML 1.2 (quote a value that contains `: `)." },
  "skill/yaml-tab-indent": { severity: "error", description: "The frontmatter is indented with spaces, never tabs." },
  "skill/yaml-duplicate-key": { severity: "error", description: "No key appears twice in one mapping." },
  "skill/yaml-alias-limit": { severity: "error", description: "YAML aliases expand to at most 1,000 nodes (no \"billion laughs\")." },
  "skill/yaml-unsupported": { severity: "error", description: "The frontmatter uses plain YAML: no custom tags, no collection keys, no unknown aliases, no nesting deeper than 100 levels." },
  "skill/yaml-portable": {
    severity: "warning",
    description:
      "The frontmatter is YAML the Agent Skills reference validator (skills-ref) can read: block style only (no `[]` or `{}`), no anchors, aliases or tags, no tab outside quotes and comments, no `---` inside it; and YAML a strict YAML 1.2 parser reads too: no line of a quoted value or a flow collection left of the key that holds it. Under agentskills, and under gamma for a skill written in the portable spelling.",
  },
  "skill/frontmatter-not-mapping": { severity: "error", description: "The frontmatter is a mapping of keys to values." },
  // The manifest, checked against schemas/skill-manifest.schema.json
  "skill/missing-key": { severity: "error", description: "`name` and `description` are present, and `type` under the gamma profile." },
  "skill/value-type": { severity: "error", description: "Each value has the schema's type: strings, lists of strings, a string-to-string `metadata`." },
  "skill/unknown-key": { severity: "warning", description: "Only known keys are used; a near miss such as `requireSkills` suggests the known key." },
  "skill/schema-violation": { severity: "error", description: "A value meets its other schema limits (e.g. `compatibility` is 1–500 characters)." },
  "skill/name-format": { severity: "error", description: "`name` matches `^[a-z0-9]+(-[a-z0-9]+)*$` and has at most 64 code points." },
  "skill/name-mismatch": { severity: "error", description: "`name` equals the name of the skill's folder." },
  "skill/name-duplicate": { severity: "error", description: "No two skills share a name." },
  "skill/type-value": { severity: "error", description: "`type`, when present, is `workflow` or `reference` (another collection's categories belong in `metadata`); a warning for a top-level `type` under agentskills, whose specification defines none." },
  "skill/manifest-spelling": {
    severity: "error",
    description: "The design's fields (`type`, `requiresSkills`, `conflictsWith`, `toolNamespaces`) are written once, in one spelling per SKILL.md: top-level keys or their portable keys under `metadata` (`gamma-type`, …).",
  },
  "skill/portable-manifest": {
    severity: "warning",
    description: "Under the agentskills profile, the design's fields are written under `metadata` (`gamma-type: workflow`, `gamma-requires-skills: a b`), where Agent Skills validators accept them, not as top-level keys.",
  },
  "skill/allowed-tools-format": { severity: "warning", description: "`allowed-tools` is one space-separated string (`Read Bash(git:*)`), not a YAML list or a comma-separated string." },
  "skill/host-key-value": { severity: "warning", description: "A key a well-known host defines (`disable-model-invocation`, `user-invocable`, `version`, …) has the type that host reads." },
  "skill/description-whitespace": { severity: "warning", description: "`description` has no leading or trailing spaces inside its quotes." },
  "skill/description-empty": { severity: "error", description: "`description` is not blank." },
  "skill/description-length": { severity: "error", description: "`description` has at most 1,024 Unicode code points." },
  "skill/description-angle-bracket": { severity: "error", description: "`description` has no `<` or `>` (no XML tags in the catalog). Gamma profile only." },
  "skill/description-control-character": { severity: "error", description: "`description` has no control character but tab and line break (XML, the catalog's format, cannot hold one even escaped)." },
  "skill/description-trigger": { severity: "warning", description: "`description` says when to use the skill (`Use when …`, `Use to …`, `TRIGGER —`, `This skill should be used when …`, `For X, use the Y skill`, `Fires on …`, `…ときに使う`), not only what it is or does." },
  // Cross-references
  "skill/reference-unknown": { severity: "error", description: "Every name in `requiresSkills` and `conflictsWith` is a skill in the tree." },
  "skill/reference-self": { severity: "error", description: "A skill does not require or conflict with itself." },
  "skill/reference-repeated": { severity: "warning", description: "A name appears at most once in `requiresSkills` and once in `conflictsWith`." },
  "skill/requires-cycle": { severity: "error", description: "The `requiresSkills` graph has no cycle (the message shows the cycle's path)." },
  "skill/requires-conflict": { severity: "error", description: "A skill does not require, directly or through other requirements, a skill it conflicts with." },
  "skill/closure-conflict": { severity: "error", description: "No two skills in one skill's requirement closure conflict with each other." },
  "skill/conflict-one-sided": { severity: "warning", description: "A conflict is declared on both sides: when `a` lists `b` in `conflictsWith`, `b` lists `a`." },
  // The body
  "skill/workflow-checklist": { severity: "error", description: "A workflow skill's body contains its checklist of steps: an ordered list or numbered step headings (`## Step 1: …`, `### 1. …`, setext or emphasised alike)." },
  "skill/workflow-checklist-guess": { severity: "warning", description: "A workflow's compiled checklist is one its body declares (`Step N` headings, or a list under a heading that names its steps or the workflow), not a guess among several lists, a list of follow-ups, or the tail of a procedure something at the margin split." },
  "skill/workflow-verification": { severity: "warning", description: "At least one checklist step verifies the result (verify, check, inspect, confirm, review, validate, ensure, test, assert)." },
  "skill/body-too-deep": { severity: "error", description: "The body nests lists and block quotes at most 32 levels deep, as CommonMark reads it (code, HTML blocks and thematic breaks nest nothing)." },
  "skill/parse-failure": { severity: "error", description: "The file can be checked at all; anything else is reported here instead of stopping the run." },
  "skill/body-too-long": { severity: "warning", description: "The body is at most 500 lines, the Agent Skills specification's recommendation (move detail into references/)." },
  "skill/broken-link": { severity: "error", description: "Every relative Markdown link, image and reference definition in the body (`[x](references/y.md)`) names a file that exists (an absolute path: where it lies inside the project's folder)." },
  "skill/link-outside-skill": { severity: "warning", description: "A link in the body stays inside the skill's folder: one to a sibling skill or a plugin file (`../other/SKILL.md`) breaks for a skill installed on its own, and an absolute path (`/mnt/skills/user/x/SKILL.md`) names a place lint cannot see." },
  "skill/unresolved-path": { severity: "note", description: "A path written outside a link (`` `scripts/z.py` ``, \"see references/y.md\") names a file that exists in the skill's folder or a folder above it." },
  "skill/unreferenced-file": { severity: "note", description: "Every supporting file beside `SKILL.md` is named by the body (a link, a path, its file name or a folder above it) or by a Markdown file or script the body references." },
  "skill/reserved-closer": {
    severity: "warning",
    description: "The body holds no closing tag of a tag the runtime puts a body inside (`</skill>`, `</preloaded_skill>`, `</session_state>`): a body reaches the model as written, inside those wrappers, and such a closer ends one early.",
  },
  "skill/reference-checklist": { severity: "warning", description: "A reference skill is lookup material: its body is not shaped as a checklist (3 or more ordered steps, as a list or as numbered step headings)." },
  // Inline suppression comments
  "skill/unused-suppression": { severity: "warning", description: "A `# gamma-prompt-disable…` comment names a known rule that can be suppressed and suppresses at least one finding." },
} as const satisfies Record<string, RuleDefinition>;
