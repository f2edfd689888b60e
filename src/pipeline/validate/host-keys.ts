/**
 * Frontmatter keys that well-known hosts define. They are not part of the
 * Agent Skills specification nor of Gamma's manifest, but real collections
 * use them: gamma-prompt recognises them (no unknown-key warning), checks
 * that each has the type its host reads (`skill/host-key-value`), and never
 * gives them a meaning of its own. The README's host key table is this one.
 */
export interface HostKey {
  key: string;
  /** Who defines and reads the key. */
  hosts: string;
  meaning: string;
}

export const HOST_KEYS: readonly HostKey[] = [
  { key: "disable-model-invocation", hosts: "Claude Code and Pi", meaning: "true hides the skill from the model's catalog; only the user can invoke it" },
  { key: "user-invocable", hosts: "Claude Code", meaning: "false hides the skill from the user's slash-command menu" },
  { key: "argument-hint", hosts: "Claude Code", meaning: "the argument hint shown after the slash command" },
  { key: "model", hosts: "Claude Code", meaning: "the model to use while the skill is active" },
  { key: "effort", hosts: "Claude Code", meaning: "the reasoning effort while the skill is active" },
  { key: "context", hosts: "Claude Code", meaning: '"fork" runs the skill in a forked sub-agent context' },
  { key: "agent", hosts: "Claude Code", meaning: "the sub-agent type a forked skill runs in" },
  { key: "hooks", hosts: "Claude Code", meaning: "hooks scoped to the skill's lifetime" },
  { key: "when_to_use", hosts: "Claude Code", meaning: "trigger text shown with the description" },
  { key: "paths", hosts: "Claude Code", meaning: "globs of files that make the skill relevant" },
  { key: "version", hosts: "plugin and marketplace tooling", meaning: "the skill's version, a string" },
];

const BY_KEY = new Map(HOST_KEYS.map((entry) => [entry.key, entry]));

export function isHostKey(key: string): boolean {
  return BY_KEY.has(key);
}

/** The host key a JSON pointer such as `/version` or `/paths/0` falls under. */
export function hostKeyOf(pointer: string): HostKey | undefined {
  const top = pointer.split("/")[1];
  return top === undefined ? undefined : BY_KEY.get(top.replace(/~1/g, "/").replace(/~0/g, "~"));
}
