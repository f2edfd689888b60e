/**
 * The hidden anchor: one custom message that puts the execution state back
 * into the model's context after compaction or a reload. Each restored skill
 * body is followed by its base folder and files, as the skill tool gave them.
 * Bodies of skills the variant preloads are not repeated: the system prompt
 * still holds them.
 */
import type { LoadedSkill } from "./artifacts.js";
import { escapeXmlAttribute } from "../protocol/xml-escape.js";
import { neutraliseReservedTags } from "./injections/neutralise.js";
import type { ExecutionState, PendingInjection } from "./execution-state.js";
import { renderTaskList } from "./tasks.js";
import { LOAD_NAMESPACE_TOOL, loadedNamespacesLines } from "./namespaces.js";
import { connectorLines } from "./connectors.js";
import { baseFolderNote } from "./skills.js";

export const ANCHOR_TAG = "session_state";
/** How the anchor lists a skill whose body the variant's system prompt holds. */
const PRELOADED = "preloaded in the system prompt";
export const LOADED_KNOWLEDGE_TAG = "loaded_knowledge";

export function renderAnchor(options: {
  state: ExecutionState;
  skills: ReadonlyMap<string, LoadedSkill>;
  /** Injections the anchor delivers (not already queued in Pi). */
  injections: readonly PendingInjection[];
  /** Skills the host requires that are not active yet (invocation enforcement). */
  missingRequired?: readonly string[];
}): string {
  const { state, skills, injections } = options;
  const out: string[] = [
    `<${ANCHOR_TAG} revision="${state.revision}">`,
    "Restored session state. Your task state and active skills are kept across context compaction and reloads; continue the task from here.",
    "",
  ];

  out.push("<active_skills>");
  if (state.activeSkills.length === 0) out.push("none");
  for (const skill of state.activeSkills) {
    const how =
      skill.activatedBy === "preload"
        ? PRELOADED
        : skill.activatedBy === "requires"
          ? `required by ${skill.requiredBy ?? "another skill"}`
          : skill.activatedBy === "host"
            ? "activated by the host"
            : "loaded with the skill tool";
    out.push(`- ${skill.name} (${skill.type}, ${how})`);
  }
  out.push("</active_skills>", "");

  for (const skill of state.activeSkills) {
    if (skill.activatedBy === "preload") continue;
    const loaded = skills.get(skill.name);
    const body = loaded?.body ?? "";
    const contract =
      skill.type === "workflow"
        ? "This workflow skill is active. Follow every required step in order and complete its verification."
        : "This reference skill is active as lookup material. Apply only what is relevant.";
    // Where the skill's files are, as its first load said: the tool answers an active skill with a confirmation only.
    const folder = loaded === undefined ? undefined : baseFolderNote(loaded);
    out.push(`<skill name="${escapeUserText(skill.name)}" type="${skill.type}">`, contract, "", body.replace(/\n$/, ""));
    if (folder !== undefined) out.push("", folder);
    out.push("</skill>", "");
  }

  const namespaces = state.loadedNamespaces ?? [];
  if (namespaces.length > 0) {
    out.push("<loaded_tool_namespaces>", "These tool namespaces are loaded: their tools stay in your tool list.");
    for (const line of loadedNamespacesLines(namespaces)) out.push(escapeUserText(line));
    out.push("</loaded_tool_namespaces>", "");
  }

  const connectors = state.connectors ?? [];
  if (connectors.length > 0) {
    out.push("<connectors>", "Connectors the workspace registered in this session: tool namespaces beside the catalog.");
    const loaded = (name: string) => namespaces.some((namespace) => namespace.name === name);
    for (const line of connectorLines(connectors, loaded, LOAD_NAMESPACE_TOOL)) out.push(escapeUserText(line));
    out.push("</connectors>", "");
  }

  const missing = options.missingRequired ?? [];
  if (missing.length > 0) {
    out.push("<required_skills>", "This request requires these skills; load each with the skill tool before any task action:");
    for (const name of missing) out.push(`- ${escapeUserText(name)}`);
    out.push("</required_skills>", "");
  }

  out.push(`<tasks revision="${state.tasks.revision}">`, escapeUserText(renderTaskList(state.tasks)), "</tasks>", "");

  if (state.currentArtifacts.length > 0) {
    out.push("<current_artifacts>");
    for (const artifact of state.currentArtifacts) {
      const attributes = [`ref="${escapeUserText(artifact.ref)}"`];
      if (artifact.path !== undefined) attributes.push(`path="${escapeUserText(artifact.path)}"`);
      if (artifact.revision !== undefined) attributes.push(`revision="${escapeUserText(artifact.revision)}"`);
      out.push(`<artifact ${attributes.join(" ")}>${escapeUserText(artifact.title ?? "")}</artifact>`);
    }
    out.push("</current_artifacts>", "");
  }

  const loadedNotes = state.knowledge?.loaded ?? [];
  if (loadedNotes.length > 0) {
    out.push(`<${LOADED_KNOWLEDGE_TAG}>`, "Knowledge notes you loaded in this session; they stay in force while unchanged. Fetch one again with read_workspace_rule only when you need its body.");
    for (const note of loadedNotes) {
      const revision =
        note.changedTo === undefined
          ? `revision ${escapeUserText(note.revision)}`
          : `changed to revision ${escapeUserText(note.changedTo)} since you loaded revision ${escapeUserText(note.revision)}: no longer in force; fetch it again before applying it`;
      out.push(`- ${escapeUserText(note.id)}: ${escapeUserText(note.name)} (source ${note.source}, ${revision})`);
    }
    out.push(`</${LOADED_KNOWLEDGE_TAG}>`, "");
  }

  if (injections.length > 0) {
    out.push("<pending_injections>");
    for (const injection of injections) out.push(injection.message.content);
    out.push("</pending_injections>", "");
  }

  out.push(`</${ANCHOR_TAG}>`);
  return `${out.join("\n")}\n`;
}

/**
 * The skills an anchor's text lists as preloaded in the system prompt (its
 * body left out for that reason). An anchor that lists one the session's
 * variant does not preload was made on another variant: its body is nowhere
 * in a context that keeps that anchor.
 */
export function anchorPreloadedSkills(content: string): string[] {
  const list = /<active_skills>\n([\s\S]*?)\n<\/active_skills>/.exec(content)?.[1] ?? "";
  const line = new RegExp(`^- (\\S+) \\([^,()]+, ${PRELOADED}\\)$`, "gm");
  return [...list.matchAll(line)].map((match) => match[1] as string);
}

/**
 * Task titles and artifact names can echo what a user typed, and the anchor
 * passes to the model unneutralised: look-alike brackets (`＜system_note`)
 * that escaping leaves alone are neutralised here, as in injection text.
 */
function escapeUserText(text: string): string {
  return neutraliseReservedTags(escapeXmlAttribute(text));
}
