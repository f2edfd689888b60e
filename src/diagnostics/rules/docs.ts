import { ruleRegistry, type RuleId } from "./index.js";

/**
 * One paragraph per rule: what it checks and why, with a bad and a good
 * example. `gamma-prompt explain RULE` prints it, SARIF carries it as each
 * rule's help (its helpUri is every diagnostic's url, the rule's row in the
 * README's rule table), and
 * docs/rules/<id>.md holds it as a page in the package (scripts/rule-docs.mjs
 * writes those from this table; a test keeps them in step).
 */
export interface RuleDoc {
  text: string;
  bad: string;
  good: string;
}

/** A rule added without an entry here is still explained, from its registry line; test/lint/profiles.test.ts fails until every registered rule has its own. */
export function ruleDoc(id: RuleId): RuleDoc {
  return RULE_DOCS[id] ?? { text: ruleRegistry[id].description, bad: "(no example written yet)", good: "(no example written yet)" };
}

const fm = (...lines: string[]): string => ["---", ...lines, "---"].join("\n");

export const RULE_DOCS: Partial<Record<RuleId, RuleDoc>> = {
  "skill/no-skills": {
    text: "A lint run that finds no skill checked nothing, and passing would hide a wrong --root or a layout the defaults do not cover (skills/.curated/*, plugins/*/skills/*). Folders that hold a skill.md or Skill.md, or nothing, hold no skill: the run still fails, with skill/missing-skill-file on each folder (or without it, when that rule is off). The message names where SKILL.md files were found instead, searching five folders deep (`packages/*/.apm/skills/*`): one glob per folder that holds skills, folders that differ in one name folded into one `*` (`skills/*/*`), those outside dot folders first (`.github/skills/*` and `.agent/skills/*` are most often copies for one host), all of them up to five, else the first four and how many more. A root with no skills/ folder at all is a usage error (exit 2) with the same hint. As the finding is a warning, a line on stderr says why the run failed, in every format (`gamma-prompt lint: no skill found, which fails the run`). Set to \"note\" in the config's `rules`, it is shown and the run passes, as a note never fails a run; \"off\" hides it too. Set `skills` in gamma-prompt.config.json (gamma-prompt init writes it), or pass --allow-empty when an empty project is intended.",
    bad: "skills/.curated/pdf/SKILL.md   (default layout skills/* finds nothing)",
    good: '{ "skills": ["skills/.curated/*"] }',
  },
  "skill/missing-skill-file": {
    text: "Each folder the layout names is one skill and must hold a file named exactly SKILL.md. Hosts look for that exact name (case matters on Linux), so skill.md or a folder without the file is silently skipped by the agent. A symbolic link in its place whose target is missing or loops back on itself is reported the same way: the skill it stood for is gone from every host. A folder whose subfolders hold skills no glob names (`skills/group/outline/SKILL.md` under `skills/*`, one level too deep), with or without a README beside them, is reported as that group: every run would otherwise leave them out without a word, so the finding names them and the glob that finds them, to add to `skills` in the config in use (the `lint --config` file when one is given), rather than a SKILL.md for the group itself (subfolders the config's `ignore` leaves out are not counted). Once the globs name them (`skills/group/*` beside `skills/*`), the folder is a group of skills and needs no SKILL.md of its own, README or not, unless a Markdown file in it is a skill under another name (`Skill.markdown`, or a `pdf.md` that opens with a skill's `name` and `description`), which is reported. Otherwise a folder that holds files but no Markdown file is not reported: it holds no attempt at a skill but scripts or assets the skills beside it share (`skills/_lib/`). An empty folder is reported too.",
    bad: "skills/pdf/skill.md",
    good: "skills/pdf/SKILL.md",
  },
  "skill/unreadable-file": {
    text: "SKILL.md must be readable by the user running the linter; a permission problem or a folder named SKILL.md would make every host skip the skill.",
    bad: "chmod 000 skills/pdf/SKILL.md",
    good: "chmod 644 skills/pdf/SKILL.md",
  },
  "skill/file-too-large": {
    text: "A SKILL.md over 1 MiB is refused unread: a skill is read whole by a model, and a file that size is almost always generated data that belongs in a supporting file.",
    bad: "skills/data/SKILL.md   (3 MB of tables)",
    good: "skills/data/SKILL.md + skills/data/references/tables.csv",
  },
  "skill/empty-file": {
    text: "An empty SKILL.md has no name and no description, so no host can list it; it is usually a file created and never written.",
    bad: "(an empty file)",
    good: fm("name: pdf", "description: Use when the user asks to fill or merge PDF forms.") + "\n\n# PDF forms",
  },
  "skill/missing-frontmatter": {
    text: "A skill starts with YAML frontmatter between --- lines; hosts read the name and description there, and a file without it is skipped.",
    bad: "# PDF forms\n\nUse when …",
    good: fm("name: pdf", "description: Use when the user asks to fill PDF forms.") + "\n\n# PDF forms",
  },
  "skill/unclosed-frontmatter": {
    text: "The frontmatter ends at a second --- line. Without it the whole file would be read as YAML and fail, or the body would be lost.",
    bad: "---\nname: pdf\ndescription: Use when …\n\n# PDF forms",
    good: fm("name: pdf", "description: Use when …") + "\n\n# PDF forms",
  },
  "skill/yaml-syntax": {
    text: "The frontmatter must be valid YAML 1.2. The usual mistake is a plain value containing \": \", which YAML reads as a nested key; quote such values. A line inside the frontmatter that starts with `---` but holds more (a stray `--- Apache-2.0`), or text after a `...` line, starts a second YAML document: the message names the line and the way out (remove it, or write its text as a key's value). A quoted value or a flow collection whose later lines start at the margin, left of the key that holds it, is not reported here: YAML 1.2 refuses it, but PyYAML, js-yaml and skills-ref read it, and so does gamma-prompt, with a skill/yaml-portable warning where the Agent Skills profile applies.",
    bad: "description: Use when: the user asks for a PDF",
    good: 'description: "Use when: the user asks for a PDF"',
  },
  "skill/yaml-tab-indent": {
    text: "YAML forbids tabs for indentation, and parsers disagree on what they mean; indent with spaces.",
    bad: "metadata:\n\tauthor: me",
    good: "metadata:\n  author: me",
  },
  "skill/yaml-duplicate-key": {
    text: "A key written twice silently keeps one value in most parsers and a different one in others; each key must appear once per mapping.",
    bad: "name: pdf\nname: pdf-forms",
    good: "name: pdf-forms",
  },
  "skill/yaml-alias-limit": {
    text: "YAML aliases can expand exponentially (\"billion laughs\"); gamma-prompt stops at 1,000 expanded nodes so hostile frontmatter stays cheap to check.",
    bad: "a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]   # … ten levels deep",
    good: "metadata:\n  author: me",
  },
  "skill/yaml-unsupported": {
    text: "Frontmatter is plain data: custom tags (!!python/object), collections used as keys and aliases without anchors are refused, because hosts read them differently or execute them. So are lists and mappings nested deeper than 100 levels, in flow (`[`, `{`) or block style (`- ` items, `key:` keys, nested by indentation or written on one line as `- - x`): the finding is at the bracket, dash or key that opens level 101 (the frontmatter's own mapping is level 1), found before any parser recurses. No manifest needs them, and parsers run out of stack on a few hundred to a few thousand.",
    bad: "name: !!python/object:os.system pdf",
    good: "name: pdf",
  },
  "skill/yaml-portable": {
    text: "The Agent Skills reference validator (skills-ref) parses frontmatter with strictyaml, which refuses much of what YAML 1.2 allows: flow collections such as requiresSkills: [] or {a: b}, anchors (&a), aliases (*a), tags (!!str), and a tab anywhere but inside quotes, block scalars and comments. It also ends the frontmatter at the first ---, even one inside a value or a comment, and then reads something else. Each case was checked against skills-ref. A flow list written as allowed-tools is advised as the one space-separated string skill/allowed-tools-format asks for (allowed-tools: Read Grep), which is portable too, so following either finding settles both; only when a tool's pattern holds a space, which no such string keeps whole, is it advised as a block list. --fix writes a one-line flow list or mapping of plain words as a block (allowed-tools as that string) and a tab between tokens as a space; the rest needs a person. The other way round, a quoted value or a flow collection whose later lines start left of the key (or the `-`) that holds it, as a long description wrapped at the margin (`description: \"Use for all Rust questions.` with `Triggers on: cargo, rustc\"` on the next line at column 1), is read by skills-ref, PyYAML and js-yaml, which count no indentation inside quotes and brackets, but refused by a YAML 1.2 parser that keeps to the specification's indentation rule (such as the npm package yaml). gamma-prompt reads the value as they do (the lines folded into one with spaces, as PyYAML reads them), so it is no skill/yaml-syntax error, and reports here the first such line of each value, with the column its lines must reach: indent them past the key. A value only a document marker (`...` at the margin) or another mistake keeps from being read stays a skill/yaml-syntax error. Under the agentskills profile, and under gamma for a skill written in the portable spelling.",
    bad: fm("name: pdf", "description: Use when filling PDF forms.", "compatibility: !!str Requires poppler\t# for pdftotext"),
    good: fm("name: pdf", "description: Use when filling PDF forms.", "compatibility: Requires poppler # for pdftotext"),
  },
  "skill/frontmatter-not-mapping": {
    text: "The frontmatter must be a mapping of keys to values; a list, a lone scalar or nothing at all gives no name or description.",
    bad: "---\n- pdf\n- Use when …\n---",
    good: fm("name: pdf", "description: Use when …"),
  },
  "skill/missing-key": {
    text: "name and description are required by the Agent Skills specification: the catalog lists a skill by them. Under the gamma profile type is required too, because the runtime treats workflow and reference skills differently; lint --fix inserts it, guessed from the body (workflow when it has a checklist of 3 or more steps), never as a type that would bring a finding of its own (toolNamespaces on a reference, a workflow whose checklist has no verifying step): when both would, it inserts none and says why. In a skill without a name, description or (gamma profile) type the build can read, the finding stays an error whatever the config's `rules` or an inline suppression say: the build would otherwise leave the skill out without a word.",
    bad: fm("name: pdf"),
    good: fm("name: pdf", "description: Use when the user asks to fill PDF forms."),
  },
  "skill/value-type": {
    text: "Each value must have the type the manifest schema gives it. YAML turns unquoted 1.10 into the number 1.1 and yes into true, so strings that look like numbers must be quoted; metadata values are strings. Quoting does not mend a list or a mapping where a string belongs: the message says to join the items into one string, or, under metadata, to give each entry a metadata key of its own. In a skill without a name, description or (gamma profile) type the build can read, the finding stays an error whatever the config's `rules` or an inline suppression say: the build would otherwise leave the skill out without a word.",
    bad: "metadata:\n  version: 1.10",
    good: 'metadata:\n  version: "1.10"',
  },
  "skill/unknown-key": {
    text: "Keys that neither the Agent Skills specification, Gamma nor a well-known host defines are ignored by every host, so a typo (requireSkills) silently drops what it meant. The message suggests the key meant.",
    bad: "requireSkills:\n  - pdf",
    good: "requiresSkills:\n  - pdf",
  },
  "skill/schema-violation": {
    text: "A value meets the schema's other limits, such as compatibility being 1–500 characters or license not being empty, as the Agent Skills specification requires.",
    bad: 'compatibility: ""',
    good: "compatibility: Requires Python 3.11 and poppler",
  },
  "skill/name-format": {
    text: "A name is 1–64 lowercase ASCII letters, digits and hyphens, with no leading, trailing or double hyphen (the Agent Skills specification). Hosts use it as an identifier and a folder name.",
    bad: "name: PDF_Forms",
    good: "name: pdf-forms",
  },
  "skill/name-mismatch": {
    text: "The specification requires the name to equal the skill's folder name; hosts that index by folder and hosts that index by name would otherwise disagree about which skill is which.",
    bad: "skills/pdf-forms/SKILL.md with name: pdf",
    good: "skills/pdf-forms/SKILL.md with name: pdf-forms",
  },
  "skill/name-duplicate": {
    text: "Two skills with one name shadow each other, and which one wins depends on the host and the file order. In an agent names are unique across the whole project: the runtime loads a skill by its name alone (the `skill` tool, `dist/skills/<name>.md`, the manifest), so under the gamma profile, in an agent linted under agentskills, and in every build, two skills of one name clash whatever plugins hold them, and the finding names both files. There the finding stays an error whatever the config's `rules` or an inline suppression say, as the build would otherwise keep one skill and drop the other. Only a plain collection linted under the agentskills profile scopes names by plugin, as its hosts name a plugin's skills `plugin:skill`: a plugin is a folder with `.claude-plugin/plugin.json`, or, under a `.claude-plugin/marketplace.json`, the folder holding the `skills/` folder a skill sits in (a marketplace's plugin needs no manifest of its own), so there `plugins/a/skills/setup` and `plugins/b/skills/setup` do not clash; to build such a collection as an agent, rename one of them or leave it out with `ignore`.",
    bad: "skills/pdf/SKILL.md and plugins/docs/skills/pdf/SKILL.md, both name: pdf",
    good: "name: pdf and name: docs-pdf",
  },
  "skill/type-value": {
    text: "type is Gamma's contract key: workflow (an ordered procedure the agent must follow) or reference (lookup material). A collection that already uses type for its own categories should move them under metadata, or drop type under the agentskills profile. Under the agentskills profile a top-level type is a warning, not an error: the Agent Skills specification defines no type, so another value (type: perspective, type: component) may be the collection's own taxonomy, and calling it wrong is a guess about someone else's field. gamma-type under metadata is Gamma's own key, so a wrong value there stays an error under either profile, and under the gamma profile a top-level type is Gamma's and stays an error too (the build reads it). In a skill without a name, description or (gamma profile) type the build can read, the finding stays an error whatever the config's `rules` or an inline suppression say: the build would otherwise leave the skill out without a word.",
    bad: "type: checklist",
    good: "type: workflow\nmetadata:\n  category: checklist",
  },
  "skill/manifest-spelling": {
    text: "Each of the design's fields (type, requiresSkills, conflictsWith, toolNamespaces) has two spellings: a top-level key, and a portable key under metadata (gamma-type, gamma-requires-skills, gamma-conflicts-with, gamma-tool-namespaces) that Agent Skills validators accept. A SKILL.md uses one of them: a field written in both places, with one value or two, or a manifest that mixes the spellings, leaves a reader to guess which counts. The message names both places; --fix moves the top-level keys under metadata when no value disagrees.",
    bad: fm("name: pdf", "description: Use when filling PDF forms.", "type: workflow", "metadata:", "  gamma-type: reference"),
    good: fm("name: pdf", "description: Use when filling PDF forms.", "metadata:", "  gamma-type: workflow"),
  },
  "skill/portable-manifest": {
    text: "skills-ref, Anthropic's quick_validate.py and Codex refuse keys outside the Agent Skills specification, so a skill with a top-level type or requiresSkills cannot be published or installed elsewhere. The specification's extension point is metadata, a map of strings: write type as gamma-type and each list as one space-separated string (gamma-requires-skills: a b); an empty list is left out. gamma-prompt reads both spellings the same. Under the agentskills profile; --fix (and the language server's quick fix) moves the fields, keeping comments and the order of everything else.",
    bad: fm("name: deck", "type: workflow", "description: Use when building a deck.", "requiresSkills:", "  - gml-cli", "  - style"),
    good: fm("name: deck", "description: Use when building a deck.", "metadata:", "  gamma-type: workflow", "  gamma-requires-skills: gml-cli style"),
  },
  "skill/allowed-tools-format": {
    text: "The Agent Skills specification defines allowed-tools as one space-separated string. A YAML list or a comma-separated string is read differently by each host (Claude Code accepts both, other hosts may not), so it is a warning; --fix rewrites it, except when a tool's pattern holds a space (Bash(npx expo *)), which one space-separated string cannot keep whole.",
    bad: "allowed-tools: Read, Grep, Bash(git:*)",
    good: "allowed-tools: Read Grep Bash(git:*)",
  },
  "skill/host-key-value": {
    text: "Keys that well-known hosts define (disable-model-invocation, user-invocable, argument-hint, model, version, …) are recognised, not flagged as unknown; but each must have the type its host reads, or the host misreads it silently (\"false\" in quotes is a true-ish string).",
    bad: 'disable-model-invocation: "false"',
    good: "disable-model-invocation: false",
  },
  "skill/description-whitespace": {
    text: "Spaces inside the quotes at the start or end of a description are carried into every catalog and cost tokens for nothing; --fix trims them.",
    bad: 'description: " Use when the user asks for a PDF. "',
    good: 'description: "Use when the user asks for a PDF."',
  },
  "skill/description-empty": {
    text: "A blank description gives the model nothing to match a task against, so the skill is never chosen; Codex and Pi skip such skills.",
    bad: 'description: "   "',
    good: "description: Use when the user asks to fill PDF forms.",
  },
  "skill/description-length": {
    text: "The specification caps a description at 1,024 characters (counted as Unicode code points); Codex drops the whole skill beyond that. Move detail into the body.",
    bad: "description: (1,068 characters)",
    good: "description: Use when … (under 1,024 characters; details in the body)",
  },
  "skill/description-angle-bracket": {
    text: "Under the gamma profile the catalog is XML, and a < or > in a description can open or close a tag the model then misreads; Anthropic's validator refuses them too. The agentskills profile allows them, as the specification does.",
    bad: "description: Use for <ViewTransition> animations.",
    good: "description: Use for React ViewTransition animations.",
  },
  "skill/description-control-character": {
    text: "A YAML escape such as \"\\e\" or \"\\x01\" puts a control character into the description, and with it into dist/catalog.xml and every prefix that embeds the catalog. XML 1.0 cannot hold C0 control characters other than tab, line feed and carriage return, not even as a character reference, so the catalog would no longer be well-formed for any reader. The finding points at the escape.",
    bad: 'description: "Use when coloring \\e[31m terminal output."',
    good: "description: Use when coloring terminal output with ANSI escape codes.",
  },
  "skill/description-trigger": {
    text: "The description is how the model decides to load a skill, so it must say when to use it, not only what it is or does (the specification: \"what the skill does and when to use it\"). Any usage condition counts, in the wordings real collections use: \"Use when …\", \"Use it/this skill when/to/for …\", \"Use skill if …\", \"Use rdkit for …\", \"Use at workday start\", \"TRIGGER when/—\", \"This skill should be used when …\", \"Load this skill … when …\", \"Invoke when …\", the verbs inflected (\"Activates when …\", \"is used when …\", \"Activates for requests involving …\", \"Auto-invoked when/for …\", \"Auto-activates on …\"), \"Trigger with 'check for todos'\", \"WHEN: …\" as a label, \"Use BEFORE/for …\", a when-clause such as \"when building new UI\", \"when an idea, feature, or concept has been discussed\" or \"before making changes\", a sentence that opens with the condition (\"When …\", \"CRITICAL - Before any file write, …\"), the boundary with other skills (\"For X, use the Y skill\", \"X → other-skill\", \"Not for …\"), \"Preferred for …\", \"Applies to tasks involving …\", \"Fires on …\", \"Say … to start\", a hand-off (\"hand off to pptx-build\"), and Japanese or Chinese, simplified or traditional (\"…ときに使う\", \"…ときにトリガーする\", \"「…」と言われたら使う\", \"…場面で使用\", \"「…」では必ず使う\", \"…時は必ずロードする\", \"…の整理で使う。\", \"…では使わない\", \"…时使用\", \"…時使用\", \"…后使用\", \"…之前使用\", \"当用户要求…时\", \"使用此 Skill 當使用者提及…\" or \"当你需要…\" with or without the closing 時, \"触发词：…\", \"适用于…\", \"使用场景：…\", \"使用时：…\", \"使用时机：…\", \"使用场合：…\", \"在以下情况下使用\", \"用于…\" opening a sentence or a clause). A description written in another language (Spanish, German, Russian, Korean, …) is not judged: the forms are known for English, Chinese and Japanese only, and a finding elsewhere would be a guess. That holds for one that mixes such a language with English keywords too (\"Jira workflow for epics. Активируется при epic, story, sprint\"): a fifth of its letters in a script the rule does not read (Cyrillic, Hangul, Arabic, …), or as many words in it as English function words, and it is not judged. A skill with `disable-model-invocation: true` is not judged either: it is kept out of the model's catalog and only the user invokes it, so no model chooses it by its description. On the labelled corpus its precision is in the README's rule table.",
    bad: "description: Toolkit for styling artifacts with a theme.",
    good: "description: Toolkit for styling artifacts with a theme. Use when the user asks to restyle slides, docs or pages.",
  },
  "skill/reference-unknown": {
    text: "Every name in requiresSkills and conflictsWith must be a skill in the project; a stale name means a requirement is never loaded or a conflict never enforced. A near miss gets a \"did you mean\", offering only names every rule accepts: a skill's folder name, the name skill/name-mismatch asks for, never a name skill/name-format rejects. A reference to a folder whose skill is named otherwise says so: fix that skill's name.",
    bad: "requiresSkills:\n  - pdf-tool   # no such skill",
    good: "requiresSkills:\n  - pdf-tools",
  },
  "skill/reference-self": {
    text: "A skill that requires or conflicts with itself is a mistake that makes the requirement closure or the conflict check meaningless.",
    bad: "name: pdf\nconflictsWith:\n  - pdf",
    good: "name: pdf\nconflictsWith:\n  - docx",
  },
  "skill/reference-repeated": {
    text: "A name listed twice in requiresSkills or conflictsWith has no extra effect and usually hides a different name meant.",
    bad: "requiresSkills:\n  - pdf\n  - pdf",
    good: "requiresSkills:\n  - pdf\n  - docx",
  },
  "skill/requires-cycle": {
    text: "Requirements load other skills; a cycle (a requires b requires a) has no loading order and points at a design mistake. The message shows the cycle.",
    bad: "a: requiresSkills [b]; b: requiresSkills [a]",
    good: "a: requiresSkills [b]; b: no requirement",
  },
  "skill/requires-conflict": {
    text: "A skill must not require, directly or through its requirements, a skill it conflicts with: loading it would load the conflict.",
    bad: "deck: requiresSkills [import], conflictsWith [import]",
    good: "deck: requiresSkills [gml], conflictsWith [import]",
  },
  "skill/closure-conflict": {
    text: "No two skills in one skill's requirement closure may conflict with each other, or loading that skill loads a conflicting pair.",
    bad: "deck requires a and b; a conflictsWith b",
    good: "deck requires a and c; nothing in {a, c} conflicts",
  },
  "skill/conflict-one-sided": {
    text: "A conflict holds both ways; declaring it on one side only leaves the other skill's author unaware. Declare it on both.",
    bad: "a: conflictsWith [b]; b: (none)",
    good: "a: conflictsWith [b]; b: conflictsWith [a]",
  },
  "skill/workflow-checklist": {
    text: "A workflow skill is an ordered procedure the agent must follow step by step, so its body needs a checklist: an ordered list (1. …, 2. …) or numbered step headings (## Step 1: …, ### 2. …), two or more at one level. A step heading is any heading CommonMark reads: ATX (## Step 1: Gather) or setext (Step 1: Gather underlined with === for level 1 or --- for level 2), with the step number plain or emphasised (## **Step 1:** Gather, ## **Step 1: Gather**); the step's title is the text after the number, without that emphasis. Headings inside code, HTML blocks and block quotes are not steps. Under the agentskills profile, a skill whose type is read only from a plain `type` under metadata (no `gamma-type`, no top-level `type`, no `skillTypes` entry saying the same) gets a warning instead of an error: collections file categories of their own under that key, so `workflow` there may not be the contract; write `gamma-type: workflow` under metadata to hold the skill to it.",
    bad: "type: workflow\n\nRead the brief, draft the deck, check it.",
    good: "type: workflow\n\n1. Read the brief.\n2. Draft the deck.\n3. Verify every card.",
  },
  "skill/workflow-checklist-guess": {
    text: "A warning: the runtime holds the agent to a workflow's compiled checklist and the audit fails a run that skips a step, so that checklist must be the procedure the skill declares. A body declares it as `Step N` headings, or as a list under a heading that names its steps (Steps, Step-by-step, Procedure, Checklist) or, for the first list of three or more steps, a process or a workflow. Without a declaration the build takes the first list of three or more steps; when the body holds other such lists, which one is the procedure is a guess, and this warning names the count. A list under a heading about a condition or about what comes after the procedure (When …, If …, Next steps, See also) is compiled only when the body has no other list, and is reported too; so is a checklist that starts at a number above 1 right after a list that ends one step before it (a table, code block or paragraph at the margin ended the list, and the steps before it are not compiled), declared or not. Put the procedure under a heading that names its steps (`## Steps`, `## Procedure`, `## Checklist`; a section number before it, `## 2. Steps`, changes nothing), or write its steps as `Step N` headings; the message suggests those, not `## Workflow`, which declares a list only when it is also the first of three or more steps, and so cannot move the choice to a later list.",
    bad: "type: workflow\n\n## Principles\n1. Keep diffs small.\n2. Test first.\n3. Ship often.\n\n## How a release goes\n1. Tag.\n2. Build.\n3. Verify the artifacts.",
    good: "type: workflow\n\n## Principles\n1. Keep diffs small.\n2. Test first.\n3. Ship often.\n\n## Steps\n1. Tag.\n2. Build.\n3. Verify the artifacts.",
  },
  "skill/workflow-verification": {
    text: "A workflow must verify its result before it reports completion; at least one step of its checklist uses a verifying word (verify, check, inspect, confirm, review, validate, ensure, test, assert). The checklist is the list the build compiles and the runtime enforces, the procedure the skill declares: its `Step N` headings when it has them; else the first ordered list under a heading that names its steps (Steps, Step-by-step, Procedure, Checklist; an ATX `## Checklist` or a setext one, the text underlined with `---` or `===`); else the first of three or more steps; else the first. A list under a heading about what comes after or outside the procedure (Next steps, Follow-ups, See also, Related, Further reading, What's next) or that names a condition (When …, If …) is not taken while there is another, and a heading numbered as one part of several, a word and its number whatever follows them (Workflow 1: …, Phase 4: …, Phase 1 Steps), names no checklist; a section number or a count (`2. Steps`, `3 steps to an outline`, `The 5 Steps`, `In 4 steps`, `The 10-Step Process`) numbers no part. A verifying step in another list does not count.",
    bad: "1. Draft the deck.\n2. Send it.",
    good: "1. Draft the deck.\n2. Verify every card renders.\n3. Send it.",
  },
  "skill/body-too-deep": {
    text: "Lists and block quotes nested more than 32 deep are refused: Markdown parsers slow down quadratically on them and no real skill needs them. Nesting is counted as CommonMark reads the body: `>` and list markers inside fenced or indented code and HTML blocks nest nothing, a line of spaced dashes (`- - - -`) is a thematic break, and indentation alone is not nesting.",
    bad: "> > > > … (40 levels)",
    good: "- a\n  - b",
  },
  "skill/body-too-long": {
    text: "The Agent Skills specification recommends a SKILL.md body under 500 lines: the whole body enters the context when the skill loads. Move detail into files under references/ and link them.",
    bad: "SKILL.md with 674 lines of body",
    good: "SKILL.md with 200 lines, linking [forms](references/forms.md)",
  },
  "skill/broken-link": {
    text: "Every relative Markdown link in a skill's body must name a file that exists. What counts is what GitHub-flavoured Markdown reads as a link: inline links and images, `[x](references/y.md)` and `![x](assets/y.png)`, and reference definitions, `[x]: references/y.md`; not code (fenced, indented or inline), HTML, a footnote definition (`[^1]: …`) or a table cell split by a pipe. A target that names nothing (inside the skill's folder or anywhere else in the project), is a Windows drive path (`C:\\docs\\x.md` or `C:/docs/x.md`: a one-letter prefix is a drive, never a URL scheme), uses backslashes (`references\\forms.md`, `.\\references\\forms.md` or `..\\..\\README.md` opens on Windows only; GitHub and every other reader find no file, also where a backslash escapes the character after it, as in `..\\..`, which GFM reads as `....`), cannot be looked up at all (a NUL byte, a name longer than the file system allows, a folder of its path this user may not search: permission denied), or names something other than a regular file or folder (a FIFO, a socket, a device) is an error. An absolute path (`/…`) is an error only where lint can prove it names a missing file: inside the project's own folder on this machine (`/home/me/skills-repo/skills/pdf/x.md` when the project is /home/me/skills-repo). Any other absolute path names the file system of the host that reads the skill (Claude.ai mounts skills at /mnt/skills/user/<name>/ and /mnt/skills/public/<name>/), which lint cannot see, and is `skill/link-outside-skill`, a warning, whether or not the project holds a file at that path from its root (a repository page reads `/docs/x.md` from there). URLs, anchors (`#section`), globs, placeholders (`${ROOT}/x.md`, `{name}.md`, `Sxxxx.md`, `output-NNN.md`, `YYYY-MM-DD.md`, and one word in capitals such as `[Open](LINK)` other than the files people name so, LICENSE or README), paths into dot-folders (`.repo-wiki/x.md`: a skill never ships one, so it is the user's workspace), paths in a home folder (`~/notes.md`, `~user/x.md`: a shell reads any leading `~` so, and no skill ships one) and slash commands (`/plugin:skill`) are not checked. A link that leaves the folder to a file that exists is `skill/link-outside-skill`; paths written outside a link are `skill/unresolved-path`. A name matches only when each segment is spelled as on disk, letter case and Unicode form included, on every file system: `references/tone.md` does not name `references/Tone.md`, nor does a name with a composed `é` name a file whose `é` is a letter and a combining accent (as macOS tools often write it), although Windows and macOS open either. Such a link is an error on every machine, and its message gives the name as spelled on disk. The message gives the path where lint looked, from the project's root, whole however deep the skill sits (a path longer than 1,024 code points is cut, with its length).",
    bad: "See [forms](references/forms.md) and [notes](reference/NOTES.md).   (neither file exists: the folder is references/)",
    good: "See [forms](references/forms.md).   (skills/pdf/references/forms.md exists)",
  },
  "skill/link-outside-skill": {
    text: "A warning: a skill travels as its folder (installed on its own, copied, compiled), so a link that leaves it, to a sibling skill (`../other/SKILL.md`) or to a file of the plugin around it, works while the skill sits in this tree and breaks for a skill installed alone. Collections installed only as a whole (a plugin) may keep such links on purpose: turn the rule off in `rules`. A link beyond the project root is reported here too, since lint cannot see there, and so is every absolute path but one inside the project's folder on this machine that names no file (that one is skill/broken-link): a root-relative link (`/docs/adr.md`) to a file the project holds at its root, which a repository page resolves and a model reading the skill's file does not (the message says when the project holds no such file either); a path on the host's file system, such as `/mnt/skills/user/pdf/SKILL.md`, where Claude.ai mounts skills, which lint cannot see; and a path into the project's folder on this machine, which no other machine has. Name another skill by its name instead, or copy what the skill needs into its folder.",
    bad: "See [the reviewer prompt](../requesting-code-review/code-reviewer.md).   (skills/requesting-code-review/code-reviewer.md exists; were it missing, the link would be skill/broken-link)",
    good: "Load the requesting-code-review skill and follow its reviewer prompt.",
  },
  "skill/unresolved-path": {
    text: "A note by default (\"warn\" or \"error\" in `rules` raises it): a path written outside a link may name a file of another repository, of the user's project or one the skill tells the agent to create, or be relative to something other than the skill (a plugin root, a command's working folder), so that the skill meant a file of its own is a guess. Measured precision: 95.3% (41 of 43) on the labelled corpus (the README's rule table), 13.6% (3 of 22) on 11 public collections outside it (718 skills). What counts: a path in prose, a heading, a table cell or an inline code span (never in code blocks or HTML, read as GitHub-flavoured Markdown reads them, nor the text of a link, inline or reference-style: `[references/x.md][spec]`) that starts with scripts/, references/, assets/ or a folder the skill has, and names a file with an extension (`scripts/fill.py`). It is not reported when the file exists relative to the skill's folder, to any folder between it and the project root, or to another skill of the project (\"design-system's `references/triage.md`\"); when it is part of a command line (an inline code span holding more than the path, such as `` `uv run scripts/fill.py` ``, or a line starting with `$ `); when it follows a variable (`${CLAUDE_PLUGIN_ROOT}/scripts/fill.py`, `$ROOT/scripts/fill.py`); when it starts with ./; or when the text introduces it as an example (\"e.g.\", \"for example\", \"such as\"). When the skill ships the file, link it: a Markdown link is checked as `skill/broken-link`. As for links, a path matches a file only when spelled exactly as on disk, letter case and Unicode form included; when it matches one only up to those, the message gives the file's own spelling.",
    bad: "Then read `references/forms.md`.   (no such file in skills/pdf/ or above it)",
    good: "Then read [forms](references/forms.md).   (skills/pdf/references/forms.md exists)",
  },
  "skill/unreferenced-file": {
    text: "A note, never a failure: the model learns of a supporting file only when something it reads names it, so a file nothing names is shipped and never used (a forgotten link, or a leftover). A file counts as named when the body mentions it anywhere (links, read as skill/broken-link reads them, so `[form](references/form(1).md)` and `[layout](<references/page layout.md>)` name those files; paths, commands in code blocks, its bare file name, or its name without the extension when that is an identifier such as `advanced-init-once`), when the body names a folder above it (`references/`, `./fonts`, `` `templates` ``, \"the layouts folder\", a link), when an import names it (`core.charts` for core/charts.py), or when a Markdown file or a script the body references does so (followed transitively: a helper that a named script runs or imports, `node server.cjs`, `from github_utils import …` or `import … from \"./types\"` for types.ts or a folder's index.ts, is used by the skill). A folder whose files are all unnamed is one note, and so are two or more unnamed files in one folder. A path or file name followed by a line number (`scripts/fill.py:42`, `Dockerfile:12:3`, as compilers and editors write it, also at the end of a sentence) names the file. README, LICENSE, NOTICE, COPYING and CHANGELOG at the top of the skill, licence and notice files anywhere (`references/licenses/MIT.txt`, `vendor/LICENSE.txt`: they travel with the code they cover) and agents/openai.yaml are never reported. Set the rule to \"off\" in `rules` to silence it. Names count only when spelled exactly as on disk, letter case and Unicode form included: a file the body writes only with other letter case or in another Unicode form (`references/tone.md` for `references/Tone.md`) is reported, and the note says so.",
    bad: "skills/pdf/scripts/fill.py   (the body never mentions fill.py, scripts/ or a file that does)",
    good: "Run `python scripts/fill.py input.pdf` to fill the form.",
  },
  "skill/parse-failure": {
    text: "Anything unexpected while checking one file is reported here, on that file, so the other skills are still checked; please report it with the file.",
    bad: "(a file that makes a checker throw)",
    good: "(any well-formed SKILL.md)",
  },
  "skill/reserved-closer": {
    text: "A warning: the runtime puts a skill's body, as written, inside its own tags: `<preloaded_skill>` when a variant preloads the skill, `<skill>` when the skill tool returns it, and again a `<skill>` inside the `<session_state>` anchor after compaction. A body is trusted text, so the runtime does not neutralise it, and a closing tag of one of these three ends that wrapper early: what follows reads as the runtime's own text. The runtime reserves other tags too (the injection kinds, `tasks`, `artifact`, `knowledge`, …), but none of them holds a body, so their closers in one (an XML example's `</artifact>`) end nothing and are not reported. Only exact closers count: `</`, one of the three names in any ASCII letter case, then `>` or whitespace (`</skill>`, `</Skill >`); `</skills>`, `</ skill>` or an opening `<skill>` do not. A closer counts wherever it stands, inside code too: the wrapper is text, and Markdown code is text to it. Write the tag's `<` as `&lt;` (as the runtime itself writes a neutralised tag), or name the tag otherwise. On the labelled corpus (983 skills) the rule finds nothing, so its precision there is not measured; it stays a warning because the closer is in the file, whatever the skill means by it.",
    bad: "A returned skill ends with </skill> in the prompt.",
    good: "A returned skill ends with &lt;/skill> in the prompt.",
  },
  "skill/reference-checklist": {
    text: "A reference skill is lookup material; a body shaped as a checklist (an ordered list of three or more steps, or numbered step headings) reads as a procedure the agent must follow, which is a workflow's contract.",
    bad: "type: reference\n\n1. Open the file.\n2. Edit it.\n3. Save it.",
    good: "type: workflow   (or keep reference and write the material as sections)",
  },
  "skill/unused-suppression": {
    text: "A `# gamma-prompt-disable-next-line RULE -- reason` comment that suppresses nothing (the finding was fixed, or the rule id is wrong) hides nothing and misleads the next reader; remove it or fix the id. A finding that means the file could not be read as a skill (skill/unreadable-file, skill/file-too-large, skill/empty-file, skill/missing-frontmatter, skill/unclosed-frontmatter, skill/yaml-syntax, skill/yaml-tab-indent, skill/yaml-duplicate-key, skill/yaml-alias-limit, skill/yaml-unsupported, skill/frontmatter-not-mapping, skill/parse-failure), and, in a skill without a name, description or (gamma profile) type the build can read, skill/missing-key, skill/value-type and skill/type-value, cannot be suppressed: suppressed, the skill would leave the build without a word. A comment that names one is reported here and the finding stays.",
    bad: "# gamma-prompt-disable-next-line skill/description-trigger -- old\ndescription: Use when …",
    good: "description: Use when …",
  },
  "skill/supporting-file-too-large": {
    text: "A supporting file beside SKILL.md is copied into dist/ as an artifact; one over supportingFiles.maxBytes (default 1 MiB) is refused, since the agent reads it into its context.",
    bad: "skills/data/references/dump.json   (40 MB)",
    good: "skills/data/references/summary.md   (a few KB)",
  },
  "skill/supporting-file-skipped": {
    text: "Only regular files with portable names are copied beside a skill; symbolic links, FIFOs and special files are skipped and reported, so dist/ never depends on what a link points to. So is a name no other system reads as the same path: one with a backslash, or one that is not UTF-8 (a Latin-1 `café.txt` from an old archive), which the manifest cannot name. Two files whose names differ only in letter case or Unicode form (`Notes.md` and `notes.md`) are both copied and reported: macOS and Windows take them for one file, so a checkout there keeps one and builds another dist/. Dotfiles and dot-folders are left out too; in an agent's skill (the gamma profile) a body link to one of the skill's own dotfiles (`[template](resources/.zshrc)`) is reported, since the deployed skill does not have it. A dot path outside the skill (`.repo-wiki/x.md`) is the user's workspace and not judged.",
    bad: "skills/pdf/references/guide.md -> /home/me/guide.md",
    good: "skills/pdf/references/guide.md   (a regular file)",
  },
  "knowledge/file-too-large": { text: "A knowledge note over 1 MiB is refused unread: a note is read whole into the context.", bad: "knowledge/brand.md   (3 MB)", good: "knowledge/brand.md   (a few KB)" },
  "knowledge/frontmatter": { text: "A note starts with YAML frontmatter between --- lines that parses to a mapping: its id, name, scope and source live there.", bad: "# Brand images\n\nUse the blue logo.", good: "---\nid: brand-images\nname: Brand images\nscope: Use for image selection.\nsource: user\n---\n\nUse the blue logo." },
  "knowledge/missing-key": { text: "id, name, scope and source are required: the knowledge hint shows them, and the runtime fetches a note by id. Each missing key is its own finding, with an example of what to write.", bad: "---\nid: brand-images\n---", good: "---\nid: brand-images\nname: Brand images\nscope: Use for image selection.\nsource: user\n---" },
  "knowledge/unknown-key": { text: "Only the keys of schemas/knowledge-note.schema.json are read; a typo silently drops what it meant, so a near miss suggests the key.", bad: "scopes: Use for image selection.", good: "scope: Use for image selection." },
  "knowledge/schema-violation": { text: "A value meets the note schema: types, source is user or system, lengths, and no < or > in name and scope (the hint is XML), nor a control character, a Unicode line or paragraph separator, a bidirectional control or a Unicode tag character, U+E0000 to U+E007F, invisible copies of ASCII some models decode (the hint is trusted text the model reads as written; name is one line).", bad: "source: admin", good: "source: system" },
  "knowledge/id-format": { text: "A note id follows the skill name rules (lowercase letters, digits and single hyphens, at most 64 code points): it is an identifier the model passes back.", bad: "id: Brand_Images", good: "id: brand-images" },
  "knowledge/id-mismatch": { text: "A note's id equals its file name without .md, so the file and the id the model asks for cannot disagree.", bad: "knowledge/brand.md with id: brand-images", good: "knowledge/brand-images.md with id: brand-images" },
  "knowledge/id-duplicate": { text: "Two notes with one id shadow each other; ids must be unique.", bad: "two notes with id: brand-images", good: "id: brand-images and id: brand-fonts" },
  "knowledge/scope-trigger": { text: "A note's scope is how the model decides whether it applies, so it states when, in direct terms (\"Use for …\", \"Use when …\").", bad: "scope: The images and logos of this workspace.", good: "scope: Use for image selection or image generation in this workspace." },
  "knowledge/empty-body": { text: "A note without a body carries no fact or constraint; the hint would point at nothing.", bad: "---\nid: brand-images\n…\n---", good: "---\nid: brand-images\n…\n---\n\nUse the blue logo on dark backgrounds." },
  "knowledge/checklist-body": { text: "Knowledge holds facts or constraints, not a procedure; an ordered list of three or more steps belongs in a workflow skill.", bad: "1. Open the deck.\n2. Replace images.\n3. Save.", good: "Logos: blue on dark backgrounds, black on light ones." },
  "knowledge/body-over-inline-limit": { text: "A note larger than knowledge.inlineBytes (default 8,192 bytes) is returned as a path for focused reading instead of inline; the warning says so.", bad: "a 40 KB note", good: "a short note, or a large one read by path on purpose" },
  "knowledge/unknown-skill": { text: "Every name in appliesTo.skills is a skill in skills/, or the note is never offered where it was meant to be.", bad: "appliesTo:\n  skills: [deck-generaton]", good: "appliesTo:\n  skills: [deck-generation]" },
  "knowledge/unknown-tool": { text: "Every name in appliesTo.tools is a tool the agent declares: one in schemas/tools/, or one of a tool namespace (schemas/namespaces/<name>/tools/), whose tools a note may be about before they are loaded.", bad: "appliesTo:\n  tools: [show-gamma]", good: "appliesTo:\n  tools: [show_gamma]" },
  "source/missing-file": { text: "A source the build needs (prompts/prefix.hbs, prompts/variant.hbs, prompts/variants.yaml, prompts/injections.yaml) exists and can be read.", bad: "prompts/ without variants.yaml", good: "prompts/variants.yaml present" },
  "source/unreadable-file": { text: "A source file the build needs can be read: permissions allow it, and no folder sits where the file should be.", bad: "chmod 000 prompts/prefix.hbs", good: "chmod 644 prompts/prefix.hbs" },
  "source/file-too-large": { text: "A prompt, schema or config source over 1 MiB is refused unread: none is meant to be that large, and hostile input stays cheap.", bad: "prompts/partials/data.hbs   (5 MB)", good: "prompts/partials/identity.hbs   (a few KB)" },
  "source/ignored-file": {
    text: "The build reads knowledge notes as knowledge/<id>.md, partials as prompts/partials/<name>.hbs and tool schemas as schemas/tools/<name>.json (a namespace's in schemas/namespaces/<name>/tools/), each directly in its folder. Anything else there, a sub-folder or a file of another extension (.markdown, .MD, .yaml), is never read, so what it holds never reaches the agent. Files for people (a README, a LICENSE, a CHANGELOG), dotfiles and what editors and tools leave beside sources (backups, swap files, .orig) are not reported.",
    bad: "knowledge/brand/logo-rules.md   (in a sub-folder: never read)",
    good: "knowledge/brand-logo-rules.md",
  },
  "source/not-a-file": { text: "Every source is a regular file, checked with fstat before any read: a FIFO, socket or device in its place would block or feed a build endless bytes.", bad: "mkfifo prompts/prefix.hbs", good: "prompts/prefix.hbs as a regular file" },
  "source/outside-root": { text: "No source is reached through a symbolic link that leaves the project root: the build reads only the project, so the same checkout gives the same bytes anywhere.", bad: "prompts/partials/x.hbs -> /etc/passwd", good: "prompts/partials/x.hbs as a file in the project" },
  "source/changed-during-build": { text: "A source that changes between being read and dist/ being written would leave artifacts that match no state of the sources; the build retries once, then reports it.", bad: "an editor saving a template in the middle of every build", good: "build after the save" },
  "source/invalid-utf8": { text: "Every source is UTF-8 text, so the same bytes render the same prompt on every machine.", bad: "a SKILL.md saved as Latin-1", good: "the same file saved as UTF-8" },
  "source/invalid-json": { text: "A JSON source (tool schema, tool order, config) must parse, with arrays and objects nested at most 100 levels deep; the message points at the first bad character, or at the bracket that opens level 101.", bad: '{ "name": "read", }', good: '{ "name": "read" }' },
  "source/invalid-yaml": { text: "A YAML source (variants, injections) must parse, with lists and mappings nested at most 100 levels deep.", bad: "variants:\n  base:\n    preload: []\n   require: []   # one space less than preload", good: "variants:\n  base:\n    preload: []\n    require: []" },
  "config/invalid": {
    text: "gamma-prompt.config.json must match schemas/config.schema.json, and every rule id under rules must be a skill rule of the registry (a near miss suggests the id meant), and every skills pattern must stay inside the project root (no `..` segment). A wrong config would otherwise be ignored silently. An unknown key's finding names the keys allowed there, or the near miss meant.",
    bad: '{ "rules": { "skill/description-triger": "off" } }',
    good: '{ "rules": { "skill/description-trigger": "off" } }',
  },
  "config/unmatched-skill-type": {
    text: "A key of skillTypes is a skill folder's path from the project root, or a glob of such paths, as in skills and ignore: a key that matches no folder found types no skill, and the skill it was meant for keeps its own type, takes another key's, or has none. A bare folder name (\"notes\") names a folder at the root, never skills/notes; the finding names the key that would match (\"skills/notes\"; up to three when several folders end that way), or else the near miss meant. A key under an ignore glob is not reported: the skill keeps its type for when it is back.",
    bad: '{ "skillTypes": { "notes": "reference" } }   (the skill is skills/notes)',
    good: '{ "skillTypes": { "skills/notes": "reference" } }',
  },
  "template/parse-error": {
    text: "A Handlebars template must parse; the message gives the template's line and column. A path that ends in a dot ({{catalog.}}) is a syntax error too, reported at the dot: Handlebars would read the dot as a second expression and the path as a helper's name.",
    bad: "{{#if x}}open   or   {{catalog.}}",
    good: "{{#if x}}open{{/if}}   or   {{catalog}}",
  },
  "template/too-deep": { text: "Blocks nested more than 64 deep are refused before parsing, so a hostile template cannot exhaust the parser.", bad: "{{#if a}}{{#if b}}… (100 levels)", good: "{{#if a}}…{{/if}}" },
  "template/unknown-partial": { text: "Every {{> partial}} names a file in prompts/partials/; a missing partial would render nothing.", bad: "{{> identiy}}", good: "{{> identity}}" },
  "template/unknown-helper": { text: "Only the helpers if, unless, each, with, eq and join exist; none reads the clock or the environment, which keeps the output byte-stable. A name called with arguments (`{{now \"iso\"}}`) or opening a block (`{{#now}}`) is a helper; a bare `{{now}}` is read as a variable (`template/missing-variable`).", bad: "{{now \"iso\"}}", good: "{{join workflowSkills \", \"}}" },
  "template/missing-variable": { text: "Every variable a template reads must exist in its render context; Handlebars would otherwise render an empty string silently. The message lists the names the context provides at that place: prompts/prefix.hbs renders with catalog, skills, workflowSkills, referenceSkills, tools, injectionKinds, toolNamespaces and namespaceCatalog; prompts/variant.hbs with variant and preloaded; inside {{#each}} the item's own fields.", bad: "This session uses the {{varient}} prompt variant.   (in prompts/variant.hbs)", good: "This session uses the {{variant}} prompt variant." },
  "template/non-scalar-value": { text: "A {{value}} must render a string, number or boolean; an object or list renders as [object Object].", bad: "{{skills}}", good: "{{#each skills}}{{name}}{{/each}}" },
  "template/unsupported-syntax": { text: "Partial blocks, inline partials and decorators are refused: they make the rendered bytes depend on call sites in ways reviewers miss.", bad: "{{#> layout}}…{{/layout}}", good: "{{> layout}}" },
  "template/partial-cycle": { text: "A partial must not include itself, directly or through other partials; rendering would never end.", bad: "a.hbs: {{> b}}; b.hbs: {{> a}}", good: "a.hbs: {{> b}}; b.hbs: text" },
  "template/missing-catalog": { text: "The static prefix must include the skill catalog through {{catalog}}; without it the model never learns which skills exist.", bad: "prefix.hbs without {{catalog}}", good: "## Skills\n\n{{catalog}}" },
  "template/render-error": { text: "A template must render without a runtime error; the message names the template and the error. The checks before rendering catch unknown names, helpers and partials and values of the wrong shape, so what is left is a helper given a value it cannot use: join's first argument must be a list. The finding points at the helper's call.", bad: "{{join catalog \", \"}}   (catalog is text, not a list)", good: "{{join workflowSkills \", \"}}" },
  "variant/invalid": {
    text: "prompts/variants.yaml must match schemas/variants.schema.json: `variants` maps each variant's name (lowercase words joined by hyphens) to its settings, where `preload` lists the skills the variant starts with (may be empty) and `namespaces` and `require` are optional lists. An unknown key's finding names the keys allowed there, or the near miss meant.",
    bad: "variants:\n  deck:\n    preload: deck-generation   # a list is expected",
    good: "variants:\n  deck:\n    preload: [deck-generation]",
  },
  "variant/unknown-skill": { text: "A variant preloads and requires (`require`) only skills that exist and pass lint; a broken one would be rendered into the prompt, and a required one the model could never load. A near miss of a valid skill's name is suggested.", bad: "variants:\n  deck:\n    preload: [deck-generaton]", good: "variants:\n  deck:\n    preload: [deck-generation]" },
  "variant/conflicting-skills": { text: "No two skills a variant preloads or requires (with their requirements) may conflict: the variant would start with contradictory instructions, or require a skill that can never become active.", bad: "variants:\n  deck:\n    preload: [deck-generation, import]   # import conflictsWith deck-generation", good: "variants:\n  deck:\n    preload: [deck-generation]" },
  "variant/token-boundary": { text: "The static prefix's tokens must be a prefix of each variant's tokens, or the provider's exact-prefix cache misses; a careless join lets BPE merge across the boundary.", bad: "prefix ends with \"\\n\", variant starts with \"\\n\"", good: "prefix ends with a blank line, variant starts with text" },
  "injection/invalid": { text: "prompts/injections.yaml must match schemas/injection-kinds.schema.json: each kind has its meaning, action and delivery.", bad: "- kind: system_note", good: "- kind: system_note\n  meaning: …\n  action: …\n  delivery: next_turn" },
  "injection/kinds-mismatch": { text: "The injection kinds are the design's seven, each once, in the design's order, so the prompt and the runtime agree on them.", bad: "kinds: system_note, system_note", good: "kinds: system_note, system_guidance, system_update, client_view, artifact_update, workspace_update, background_result" },
  "tool/invalid": {
    text: "A tool file must match schemas/tool.schema.json: a name, a description, and parameters, an object schema with `type: \"object\"` and `properties` (an empty `{}` for a tool without arguments), optionally `required` and `additionalProperties: false`, and no `$schema` or `$id`.",
    bad: '{ "name": "read", "parameters": { "type": "object", "properties": {} } }',
    good: '{ "name": "read", "description": "Read a workspace file.", "parameters": { "type": "object", "properties": { "path": { "type": "string" } }, "required": ["path"] } }',
  },
  "tool/name-mismatch": { text: "A tool's name must equal its file name, so the order file and the schemas cannot disagree.", bad: "schemas/tools/read.json with name: open", good: "schemas/tools/read.json with name: read" },
  "tool/invalid-parameters": {
    text: "A tool's parameters must be a valid JSON Schema, compiled in strict mode (no unknown keywords, types that exist, every `$ref` resolves inside the schema); a provider rejects a malformed one at request time. A `$ref` cycle whose schemas only refer onward (`\"loop\": { \"$ref\": \"#/$defs/loop\" }`) describes no value and is named with its references; a recursive schema whose cycle passes through a schema with keywords of its own (a tree's node with `type` and `properties`) is fine. The shape of parameters itself (`type`, `properties`) is `tool/invalid`.",
    bad: '{ "name": "read", "description": "Read a workspace file.", "parameters": { "type": "object", "properties": { "path": { "type": "text" } } } }',
    good: '{ "name": "read", "description": "Read a workspace file.", "parameters": { "type": "object", "properties": { "path": { "type": "string" } } } }',
  },
  "tool/order-unknown": { text: "schemas/tools/order.json lists only tools that have a file.", bad: '["read", "grep"]   (no grep.json)', good: '["read"]' },
  "tool/order-missing": { text: "Every tool file is listed in schemas/tools/order.json: the tool order is part of the cached prefix and is declared once.", bad: "read.json, bash.json; order.json: [\"read\"]", good: "order.json: [\"read\", \"bash\"]" },
  "tool/order-duplicate": { text: "schemas/tools/order.json lists each tool once.", bad: '["read", "read"]', good: '["read"]' },
  "tool/runtime-tool-missing": {
    text: "The runtime implements skill, todo and message_user itself and starts no session whose tools.json lacks one of them (ToolSetupError): the protocol the prefix teaches runs through them. They belong to the stable set: in a tool namespace the runtime would wait for a host executor it never gets. The build fails at schemas/tools/order.json instead of shipping an agent that cannot start.",
    bad: 'order.json: ["read", "todo", "message_user"]   (no skill)',
    good: 'order.json: ["read", "todo", "skill", "message_user"]   (with skill.json)',
  },
  "tool/runtime-tool-parameters": {
    text: "The runtime reads message_user's message and blockOnUser, todo's tasks and load_tool_namespace's name. A schema that leaves one out, gives it another type or does not require it lets the model call the tool in a way the runtime refuses: a message_user without blockOnUser can never hand the turn to the user. The build fails at the tool's file.",
    bad: '{ "name": "message_user", "description": "Send a message to the user.", "parameters": { "type": "object", "properties": { "message": { "type": "string" } }, "required": ["message"] } }',
    good: '{ "name": "message_user", "description": "Send a message to the user.", "parameters": { "type": "object", "properties": { "message": { "type": "string" }, "blockOnUser": { "type": "boolean" } }, "required": ["message", "blockOnUser"] } }',
  },
  "tool/skill-name-parameter": {
    text: "The skill tool has a string name parameter, which the build gives an enum of the catalog's names.",
    bad: '{ "name": "skill", "description": "Load a skill by name.", "parameters": { "type": "object", "properties": { "skill": { "type": "string" } } } }',
    good: '{ "name": "skill", "description": "Load a skill by name.", "parameters": { "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] } }',
  },
  "knowledge/fetch-tool-missing": {
    text: "At run time the knowledge hints tell the model \"BLOCKING: Fetch each matching unread note before the first task action\", and read_workspace_rule is the only way to fetch a note. An agent with notes in knowledge/ and without that tool would be told to do what it cannot, so the build fails at the first note.",
    bad: 'knowledge/brand-images.md; order.json: ["read", "skill", "todo", "message_user"]',
    good: 'order.json: ["read", "skill", "read_workspace_rule", "todo", "message_user"]   (with read_workspace_rule.json)',
  },
  "tool/knowledge-id-parameter": {
    text: "The knowledge tool has a string knowledgeId parameter without an enum: live notes exist beside the compiled ones, so no list of ids is complete.",
    bad: '{ "name": "read_workspace_rule", "description": "Fetch a knowledge note by id.", "parameters": { "type": "object", "properties": { "knowledgeId": { "type": "string", "enum": ["brand-images", "deck-typography"] } }, "required": ["knowledgeId"] } }',
    good: '{ "name": "read_workspace_rule", "description": "Fetch a knowledge note by id.", "parameters": { "type": "object", "properties": { "knowledgeId": { "type": "string" } }, "required": ["knowledgeId"] } }',
  },
  "namespace/invalid": {
    text: "A namespace is declared by schemas/namespaces/<name>/namespace.json, which matches schemas/namespace.schema.json: a lowercase_name, the trigger description the namespace catalog shows, and `tools`, the order of the tool files in schemas/namespaces/<name>/tools/.",
    bad: '{ "name": "Drive", "tools": "drive_search" }',
    good: '{ "name": "drive", "description": "Use for files in the user\'s connected drive.", "tools": ["drive_search", "drive_read_file"] }',
  },
  "namespace/name-mismatch": {
    text: "A namespace's name equals its folder's name, so the folder, the catalog, the variants and the skills that name it cannot disagree.",
    bad: "schemas/namespaces/drive/namespace.json with name: gdrive",
    good: "schemas/namespaces/drive/namespace.json with name: drive",
  },
  "namespace/description": {
    text: "A namespace's description is what the model reads in the namespace catalog to decide whether to load it, so the skill description limits apply: not blank, at most 1,024 code points, no < or > (the catalog is XML).",
    bad: '"description": ""',
    good: '"description": "Use for files in the user\'s connected drive: finding, reading and importing them."',
  },
  "namespace/description-trigger": {
    text: "The namespace catalog is read like the skill catalog: a description that says when to load the namespace (the skill description rule's forms: \"Use for …\", \"Use when …\") is chosen reliably; one that only says what the tools are is not. As for skills, only a description in a language the forms are known for (English, Chinese, Japanese) is judged; a description of a few nouns with no word that shows its language (\"Google Drive tools.\") is not, since it may be written in another language and a finding would be a guess.",
    bad: '"description": "Tools for Google Drive."',
    good: '"description": "Use when the user names a file in their connected drive or asks to import from it."',
  },
  "namespace/too-many-tools": {
    text: "OpenAI's tool search guide asks for namespaces of fewer than 10 functions each; Anthropic reports tool selection degrading once a model sees more than 30 to 50 tools (tool search launch, November 2025). A namespace is loaded whole, so a large one costs every session that loads it the schemas of tools it does not need. Split it by task.",
    bad: "crm: 14 tools (contacts, deals, notes, tasks)",
    good: "crm_contacts: 5 tools; crm_deals: 5 tools; crm_notes: 4 tools",
  },
  "namespace/tool-name-duplicate": {
    text: "Providers take one flat list of tool names: a name used by the stable tool set and a namespace, or by two namespaces, would make one tool shadow the other once both are loaded.",
    bad: "schemas/tools/read.json and schemas/namespaces/drive/tools/read.json",
    good: "schemas/tools/read.json and schemas/namespaces/drive/tools/drive_read_file.json",
  },
  "namespace/tool-name-prefix": {
    text: "OpenAI groups a namespace's functions under its name, but Anthropic's tool search sees one flat list and matches its regex or BM25 query against tool names and descriptions: a tool named after its namespace (drive_search, not search) is found by a search for the namespace and cannot be mistaken for a tool of another.",
    bad: '"tools": ["search", "read_file"]   (namespace drive)',
    good: '"tools": ["drive_search", "drive_read_file"]',
  },
  "namespace/missing-catalog": {
    text: "A namespace that loads on demand is loaded by its exact name from the namespace catalog, so a project where some variant loads a namespace on demand must include {{namespaceCatalog}} in the static prefix. The catalog holds names and descriptions only, never a schema, so the prefix stays the same whatever a session loads.",
    bad: "prefix.hbs without {{namespaceCatalog}}",
    good: "{{#if toolNamespaces}}\n## Tool namespaces\n\n{{namespaceCatalog}}\n{{/if}}",
  },
  "namespace/unreachable": {
    text: "A namespace that a variant does not send from session start joins a session in one of three ways: a workflow skill that names it in toolNamespaces becomes active, the model calls load_tool_namespace, or the host loads it (toolLoading: \"start\", loadNamespacesForHost). When no workflow skill names it and the tool set has no load_tool_namespace, the model sees the namespace in the catalog and has no way to load it. A warning, since the host's own loading is outside the build: declare load_tool_namespace, name the namespace in the workflow skill that needs it, or send it from the start in the variant's namespaces.",
    bad: "schemas/namespaces/crm/ with no skill naming crm and no schemas/tools/load_tool_namespace.json",
    good: "skills/log-call/SKILL.md:\nmetadata:\n  gamma-type: workflow\n  gamma-tool-namespaces: crm",
  },
  "variant/unknown-namespace": {
    text: "A variant's `namespaces` (the namespaces it sends from session start) names only namespaces the project declares under schemas/namespaces/. A namespace that exists but has errors is reported too, with its folder, as the variant cannot be built without it: fix the namespace's own findings.",
    bad: "base:\n  preload: []\n  namespaces: [drvie]",
    good: "base:\n  preload: []\n  namespaces: [drive]",
  },
  "skill/namespace-unknown": {
    text: "A workflow skill's `toolNamespaces` load when the skill becomes active; each must be a namespace the project declares, or the skill would start without the tools its steps call. A namespace folder that exists but has errors is not this finding: its own errors, in its files, fail the build and say what to fix, and the skill names it rightly.",
    bad: fm("name: drive-import", "type: workflow", "description: Use when …", "toolNamespaces: [drvie]"),
    good: fm("name: drive-import", "type: workflow", "description: Use when …", "toolNamespaces: [drive]"),
  },
  "skill/namespace-on-reference": {
    text: "Namespaces load when a workflow skill becomes active; a reference skill is lookup material that never becomes active, so `toolNamespaces` there would never load anything. Declare them on the workflow that needs the tools.",
    bad: fm("name: drive-formats", "type: reference", "description: Use when …", "toolNamespaces: [drive]"),
    good: fm("name: drive-import", "type: workflow", "description: Use when …", "toolNamespaces: [drive]"),
  },
  "budget/prefix-exceeded": { text: "The static prefix must fit budgets.prefixTokens (default 8,000 o200k tokens): it is sent with every request.", bad: "a 9,000-token prefix", good: "detail moved into skills loaded on demand" },
  "budget/catalog-exceeded": { text: "The skill catalog must fit budgets.catalogTokens (default 4,000 o200k tokens).", bad: "descriptions of 300 tokens each", good: "descriptions that state the trigger in one or two sentences" },
  "budget/prefix-below-cache-minimum": { text: "OpenAI caches nothing below 1,024 tokens. A request starts with the stable tool definitions, then the static prefix, so the two together are the longest prefix every request of the agent shares: below 1,024 tokens it is never a cache hit.", bad: "300 tokens of tools and a 600-token prefix", good: "tools and prefix of 1,024 tokens or more together" },
  "dist/missing": { text: "Every artifact the sources produce must exist in dist/; run gamma-prompt build.", bad: "dist/ without catalog.xml", good: "dist/ as build writes it" },
  "dist/changed": { text: "Every artifact in dist/ must have the bytes its sources produce; for the prefix the message names the first differing token and the template line that produced it.", bad: "a hand edit to dist/prefix.md", good: "gamma-prompt build after changing the sources" },
  "dist/extra": { text: "dist/ must hold no file the sources do not produce; a stale file would be shipped.", bad: "dist/variants/old.md", good: "dist/ as build writes it" },
  "dist/hash-mismatch": { text: "Every file's sha256 must match its entry in dist/manifest.json; the runtime refuses tampered artifacts. The message says which side was edited after the build: the file (it also differs from what the sources produce, dist/changed), or manifest.json (the file has the bytes the sources produce).", bad: "a byte changed after the build", good: "dist/ as build writes it" },
  "dist/not-owned": { text: "gamma-prompt never deletes files it did not write: an output folder without manifest.json must hold no other files.", bad: "--out src", good: "--out dist" },
  "dist/not-a-file": { text: "Every artifact path in dist/ holds a regular file, checked with fstat and never read otherwise: a FIFO or device there would block check and the runtime.", bad: "mkfifo dist/prefix.md", good: "dist/ as build writes it" },
  "dist/unreadable": {
    text: "check compares every artifact with the bytes its sources produce, and build lists dist/ before replacing it: a file or folder in dist/ they cannot read (no read permission, or no search permission on a folder) is this error, naming the path and the file system's reason. It is not reported as missing, since running build does not help while the permissions stay as they are. A dist/ they may not enter at all (no search permission on it or on a folder above it) is this error on dist itself, not dist/interrupted-build: no journal can be seen there. check reports the other artifacts as usual; build stops before writing and leaves dist/ as it was.",
    bad: "chmod 000 dist/skills",
    good: "dist/ readable by the user who runs check and build",
  },
  "dist/interrupted-build": { text: "A journal in dist/ means a build stopped while replacing artifacts; check refuses the half-replaced folder until gamma-prompt build rolls it back or forward. A journal that is there but cannot be read still counts; a dist/ that cannot be looked into at all is dist/unreadable instead.", bad: "dist/ with a leftover build journal", good: "gamma-prompt build, then check" },
  "dist/write-failed": { text: "dist/ could not be written (permissions, a full disk); it is left exactly as it was. The sources are not at fault, so `gamma-prompt build` exits 2, as for any environment that fails it, not the 1 of findings.", bad: "a read-only dist/", good: "a writable dist/" },
  "audit/required-step": {
    text: "When the model sends its final message (a message_user call with blockOnUser: true) while a workflow skill is active, every required step of that skill's checklist must be done: each is named by a todo task (step \"deck-generation#12\") and all its tasks are complete. A step no task names, or one still pending or in progress, is work the skill asked for and the user did not get. A step that truly cannot be done is a deviation instead (audit/deviation). While a task is blocked waiting for the user, the yield is a question and the steps are not judged yet.",
    bad: '{ "id": "t12", "title": "Publish and show", "step": "deck-generation#12", "status": "pending" }\nmessage_user { "message": "Your deck is ready.", "blockOnUser": true }',
    good: '{ "id": "t12", "title": "Publish and show", "step": "deck-generation#12", "status": "complete" }\nmessage_user { "message": "Your deck is ready.", "blockOnUser": true }',
  },
  "audit/verification-step": {
    text: "The same check as audit/required-step for the steps that verify work (validate, render and inspect, check facts): at the final message each must have a todo task naming it, all complete. These are the steps a model most likely drops when it believes it is done, so they get their own rule id and can be counted on their own.",
    bad: '{ "id": "t7", "title": "Validate", "step": "deck-generation#7", "status": "complete" }\n(no task names step 8 "Render and inspect")',
    good: '{ "id": "t7", "title": "Validate", "step": "deck-generation#7", "status": "complete" }\n{ "id": "t8", "title": "Render and inspect", "step": "deck-generation#8", "status": "complete" }',
  },
  "audit/skip-without-reason": {
    text: "An optional step may be skipped, but the skip must be a decision the user can read: at the final message its todo task is complete with a note saying why. A task left pending, or no task for the step at all, reads as forgotten rather than skipped. A complete task with a note counts as skipped with that reason; without a note it counts as done.",
    bad: '{ "id": "t4", "title": "Research", "step": "deck-generation#4", "status": "pending" }',
    good: '{ "id": "t4", "title": "Research", "step": "deck-generation#4", "status": "complete", "note": "The user supplied all figures; nothing to look up." }',
  },
  "audit/skill-after-action": {
    text: "A workflow skill is loaded before the model starts acting on the task, so its checklist shapes the work from the first step. A task action is a call to todo, bash, write, edit, subagent, show_gamma or show_file; read, skill and message_user are not task actions, so looking around first is fine. A skill preloaded by the variant counts as loaded from the start. A call the runtime refused because a required skill was missing (see audit/required-skill) did not run, so it is not the first task action.",
    bad: 'tool_call bash { "command": "gml new deck.gml" }\ntool_call skill { "name": "deck-generation" }',
    good: 'tool_call read { "path": "brief.md" }\ntool_call skill { "name": "deck-generation" }\ntool_call bash { "command": "gml new deck.gml" }',
  },
  "audit/deviation": {
    text: "A step that fails with an error the model cannot recover from is recorded, not hidden: its todo task is blocked with deviation: true and a note giving the cause. The audit accepts that in place of the step, but reports every deviation as a warning so a reader can check that the final message tells the user what was not done and why. The audit does not read the final message itself; the warning is the pointer to check it.",
    bad: '{ "id": "t12", "title": "Publish and show", "step": "deck-generation#12", "status": "blocked", "deviation": true, "note": "publish failed: the service returned 503 three times" }\nmessage_user { "message": "Your deck is published.", "blockOnUser": true }',
    good: '{ "id": "t12", "title": "Publish and show", "step": "deck-generation#12", "status": "blocked", "deviation": true, "note": "publish failed: the service returned 503 three times" }\nmessage_user { "message": "The deck is built in generations/q3/deck.gml but not published: the service returned 503 three times.", "blockOnUser": true }',
  },
  "audit/required-skill": {
    text: "The host can require skills for a request it understands better than the model (the user pressed \"new deck\"), per turn or per session, and a project can require skills for a variant. Until each required skill is active, the runtime refuses task actions (todo, bash, write, edit, subagent, show_gamma, show_file) and a blocking message_user with a tool error naming the skill to load; the skill tool, progress messages and reads stay allowed. The refusal is bounded (`invocation.maxRefusals`, default 2 per run): after that the call goes ahead, and this finding records it. A refused call did not run, so it is not a finding.",
    bad: 'skills_required ["deck-generation"]\ntool_refused bash (refusal 1 of 2)\ntool_refused bash (refusal 2 of 2)\nrequirement_unmet bash { "command": "gml new deck.gml" }',
    good: 'skills_required ["deck-generation"]\ntool_refused bash (refusal 1 of 2)\ntool_call skill { "name": "deck-generation" }\ntool_call bash { "command": "gml new deck.gml" }',
  },
  "audit/knowledge-not-fetched": {
    text: "When the runtime sends knowledge hints (short pointers to notes that apply to the current work), the model should read at least one of the hinted notes with read_workspace_rule before its final message. Hints carry only a title; the rules themselves are in the bodies, so a run that never fetches one worked without them. The check only applies in sessions where hints appeared: the runtime's own hints message, not a hints block in a tool's output or any other text the model read.",
    bad: 'knowledge_hints ["brand-images", "deck-typography"]\ntool_call bash { "command": "gml render deck.gml" }\nmessage_user { "message": "Done.", "blockOnUser": true }',
    good: 'knowledge_hints ["brand-images", "deck-typography"]\ntool_call read_workspace_rule { "knowledgeId": "deck-typography" }\ntool_call bash { "command": "gml render deck.gml" }\nmessage_user { "message": "Done.", "blockOnUser": true }',
  },
  "audit/transcript-format": {
    text: "gamma-prompt audit reads JSONL transcripts: the runtime's session log, whose first line is a session entry with a variant, or a Pi session file, whose first line is a session entry with an id. Any other file, or one that cannot be read, is reported instead of being audited as an empty session that would pass. After the first line, each line that cannot be read is an error at that line, and the rest is still audited: a line that is not JSON, a JSON value that is not an object, a record the format does not have (a session log holds session, skills_loaded, tool_call, tasks, knowledge_hints, yield and audit records; every Pi entry has a type). A lost line may have held the step the audit is judging, so a pass over it would not be sure. The one exception is a last line without a final newline that starts a JSON value and is cut off: that is `audit/transcript-torn-line`, a warning.",
    bad: 'transcript.txt   (a copied chat, first line: User: make me a deck)\n{"type":"session","variant":"base","preloadedSkills":[]}\n{"type":"tool_cal","name":"todo"}   (line 2: an unknown record)',
    good: '{"type":"session","variant":"base","preloadedSkills":[]}\n{"type":"skills_loaded","names":["deck-generation"]}',
  },
  "audit/transcript-torn-line": {
    text: "A warning: the last line of a transcript has no final newline and is a JSON value cut off before its end. That is what a live session log looks like while it is being written (or a copy taken mid-write): the audit judges everything before it, and says the last event may be missing. Audit the log again once the session has ended. Any other line that cannot be read is `audit/transcript-format`, an error.",
    bad: '{"type":"session","variant":"base","preloadedSkills":[]}\n{"type":"tool_call","id":"c1","name":"to',
    good: '{"type":"session","variant":"base","preloadedSkills":[]}\n{"type":"tool_call","id":"c1","name":"todo","arguments":{}}\n',
  },
  "audit/dist-mismatch": {
    text: "A session log records the build it ran on: its first line carries the static prefix's cache key (a Gamma AgentSession writes it into its Pi session file's gamma.session entry). Audited against another dist/, the checklists would be another agent's: a workflow the session followed could be missing, and every step would pass unjudged. So a log whose cache key differs from the dist/'s, or whose variant the dist/ does not define, is this error, naming both builds, and that transcript is not audited. Pass --dist with the build the session ran on (audit defaults to the dist/ of the project found from the working folder).",
    bad: 'gamma-prompt audit s1.jsonl --dist node_modules/gamma-prompt/dist\n(s1.jsonl: {"type":"session","variant":"base","preloadedSkills":[],"cacheKey":"1a2b…"} from my-agent/dist)',
    good: "gamma-prompt audit s1.jsonl --dist my-agent/dist\n(or, from inside my-agent/: gamma-prompt audit s1.jsonl)",
  },
  "audit/unknown-skill": {
    text: "Every skill the transcript activated (a preload, a skill tool call, a requirement, a skill the host required) must be a skill of the dist/ it is audited against. A skill the dist/ does not know has no type and no checklist there: its workflow would be judged as nothing at all, and a failed session would pass. It means the transcript ran on another build (an older log that records no cache key), or the skill was removed since.",
    bad: 'skills_loaded ["draft-outline"]   (audited against a dist/ without draft-outline)',
    good: 'skills_loaded ["draft-outline"]   (audited against the dist/ whose manifest lists draft-outline)',
  },
  "eval/invalid-scenario": {
    text: "An evaluation scenario is YAML that matches schemas/eval-scenario.schema.json: a name, a variant, the user's turns and expectations, each expectation with an id and exactly one kind. A scenario with a problem is not run, so a typo never reads as a model failing.",
    bad: "name: deck\nvariant: base\nturns: [Make a deck.]\nexpect:\n  - id: budget\n    maxModelCalls: 12\n    auditPasses: true",
    good: "name: deck\nvariant: base\nturns: [Make a deck.]\nexpect:\n  - id: budget\n    maxModelCalls: 12\n  - id: audit\n    auditPasses: true",
  },
  "eval/unknown-reference": {
    text: "Every variant, skill, checklist step and tool a scenario names exists in the dist/ it runs on; fixtures are only for host tools, since the runtime runs skill, todo, message_user and read_workspace_rule itself.",
    bad: "stepsCompleted: { skill: deck-generation, steps: [15] }   # the checklist has 14 steps",
    good: "stepsCompleted: { skill: deck-generation, steps: required }",
  },
  "eval/duplicate-id": {
    text: "Results and baselines are keyed by scenario name and expectation id, and cassettes are stored by scenario name: two of one name would overwrite each other.",
    bad: "- id: audit\n  auditPasses: true\n- id: audit\n  maxModelCalls: 4",
    good: "- id: audit\n  auditPasses: true\n- id: budget\n  maxModelCalls: 4",
  },
  "eval/invalid-event": {
    text: "An injected event is routed with routeUpdate, so it must be an envelope the runtime accepts (schemas/runtime-injection.schema.json, a kind dist/injections.json defines), at a turn the scenario has.",
    bad: "update: { id: evt_1, kind: artifact_update, occurredAt: yesterday, ... }",
    good: "update: { id: evt_1, kind: artifact_update, occurredAt: \"2026-03-02T10:15:00Z\", ... }",
  },
};
