/**
 * What a restored state holds, entry by entry: a stored state is read back
 * from a file, a database row or a host's own store, any of which a person
 * or another program may have edited. An entry the session would act on
 * wrongly (a task in an unknown status, an active skill of no type, a second
 * task in progress where the todo tool allows one) is refused when the
 * session opens, as a StateStoreError naming where and what, rather than
 * crashing later on a missing field or quietly weakening a contract.
 */
import type { ExecutionState } from "../execution-state.js";
import { checkInjection } from "../injections/envelope.js";
import { TASK_STATUSES } from "../tasks.js";

const SKILL_TYPES = ["workflow", "reference"];
const ACTIVATED_BY = ["preload", "tool", "requires", "host"];
const REQUIREMENT_SCOPES = ["turn", "session"];
const NAMESPACE_SOURCES = ["skill", "tool", "host"];

type Fields = Readonly<Record<string, unknown>>;

const isFields = (value: unknown): value is Fields => typeof value === "object" && value !== null && !Array.isArray(value);
const isText = (value: unknown): boolean => typeof value === "string";
const optionalText = (value: unknown): boolean => value === undefined || typeof value === "string";
const oneOf = (allowed: readonly string[]) => (value: unknown): boolean => typeof value === "string" && allowed.includes(value);

/** The first entry of `list` that is no object or fails `check`, as "`name`[i] …", or undefined. */
function badEntry(list: unknown, name: string, expected: string, check: (entry: Fields) => boolean): string | undefined {
  if (!Array.isArray(list)) return `${name} that is not a list`;
  const index = list.findIndex((entry: unknown) => !isFields(entry) || !check(entry));
  return index === -1 ? undefined : `${name}[${index}] ${JSON.stringify(list[index]) ?? "undefined"}, expected ${expected}`;
}

/** Why `state` cannot be a session's state, or undefined when every entry is one the runtime wrote. */
export function stateProblem(state: ExecutionState): string | undefined {
  const skills = badEntry(state.activeSkills, "activeSkills", `{ name, type ("workflow" or "reference"), activatedBy }`, (skill) => isText(skill["name"]) && oneOf(SKILL_TYPES)(skill["type"]) && oneOf(ACTIVATED_BY)(skill["activatedBy"]) && optionalText(skill["requiredBy"]) && optionalText(skill["sha256"]));
  if (skills !== undefined) return skills;
  if (typeof state.tasks.revision !== "number") return `tasks without a revision`;
  const tasks = badEntry(state.tasks.items, "tasks.items", `{ id, title, status (${TASK_STATUSES.join(", ")}) }`, (task) => isText(task["id"]) && isText(task["title"]) && oneOf(TASK_STATUSES)(task["status"]) && optionalText(task["step"]) && optionalText(task["note"]));
  if (tasks !== undefined) return tasks;
  const inProgress = state.tasks.items.filter((task) => task.status === "in_progress").length;
  if (inProgress > 1) return `tasks.items with ${inProgress} tasks in progress, expected one at the most (the todo tool keeps it so)`;
  // The envelope an entry keeps (`data`) is what its message is rendered from again: it must be one the runtime accepts, of the entry's id.
  const envelope = (data: unknown, id: unknown): boolean => {
    if (data === undefined) return true;
    const checked = checkInjection(data);
    return checked.ok && checked.injection.id === id;
  };
  const pending = badEntry(state.pendingInjections, "pendingInjections", "{ id, kind, occurredAt, delivery, message, data } with data the accepted event", (entry) => isText(entry["id"]) && isText(entry["kind"]) && isText(entry["occurredAt"]) && isText(entry["delivery"]) && isFields(entry["message"]) && envelope(entry["data"], entry["id"]));
  if (pending !== undefined) return pending;
  if (state.knowledge !== undefined) {
    const knowledge: unknown = state.knowledge;
    if (!isFields(knowledge)) return `knowledge ${JSON.stringify(knowledge)}, expected { loaded, notices, ... }`;
    const loaded = badEntry(knowledge["loaded"], "knowledge.loaded", "{ id, name, revision }", (note) => isText(note["id"]) && isText(note["name"]) && isText(note["revision"]));
    if (loaded !== undefined) return loaded;
    const notices = badEntry(knowledge["notices"], "knowledge.notices", "{ id, name, status }", (notice) => isText(notice["id"]) && isText(notice["status"]));
    if (notices !== undefined) return notices;
  }
  if (state.requiredSkills !== undefined) {
    const required = badEntry(state.requiredSkills, "requiredSkills", `{ name, scope ("turn" or "session") }`, (skill) => isText(skill["name"]) && oneOf(REQUIREMENT_SCOPES)(skill["scope"]));
    if (required !== undefined) return required;
  }
  if (state.loadedNamespaces !== undefined) {
    const namespaces = badEntry(state.loadedNamespaces, "loadedNamespaces", "{ name, loadedBy }", (namespace) => isText(namespace["name"]) && oneOf(NAMESPACE_SOURCES)(namespace["loadedBy"]));
    if (namespaces !== undefined) return namespaces;
  }
  if (state.connectors !== undefined) {
    const connectors = badEntry(state.connectors, "connectors", "{ name, description, tools }", (connector) => isText(connector["name"]) && isText(connector["description"]) && Array.isArray(connector["tools"]));
    if (connectors !== undefined) return connectors;
  }
  return undefined;
}
