import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { checkTemplate } from "./template-check.js";
import type { ParsedTemplate } from "./templates.js";

/**
 * The template check reads a context's shape, never its scalar values: it
 * asks whether a name exists (and is not undefined), whether a value is an
 * object, a list or a scalar, and walks `#each` once per item, where an item
 * shaped like an earlier one finds nothing new (reports are deduplicated by
 * position). So its findings are a function of the template set and of the
 * context's shape as computed below, and a watch rebuild that only changed
 * text (a description, a body) reuses them instead of walking every item.
 */

/** At most this many shapes are kept per template set; shapes change rarely. */
const MAX_SHAPES = 64;

/**
 * `checkTemplate`, reusing an earlier result from `byShape`, which belongs to
 * one prepared template set (a changed template makes a new set, so the
 * results live as long as the set a build session keeps).
 */
export function checkTemplateCached(byShape: Map<string, Diagnostic[]>, template: ParsedTemplate, context: unknown, partials: ReadonlyMap<string, ParsedTemplate>): Diagnostic[] {
  const key = `${template.file}\u0000${contextShape(context)}`;
  const known = byShape.get(key);
  if (known) return [...known];
  const found = checkTemplate(template, context, partials);
  if (byShape.size >= MAX_SHAPES) byShape.clear();
  byShape.set(key, [...found]);
  return found;
}

/**
 * Types and own keys, recursively; a list is the sequence of its items'
 * distinct shapes in order of first appearance (empty for an empty list).
 */
export function contextShape(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) {
    const distinct = new Set<string>();
    let previous: unknown;
    (value as unknown[]).forEach((item, index) => {
      // Items of a long list mostly share one shape: comparing with the previous item avoids building its string.
      if (index === 0 || !sameShape(item, previous)) distinct.add(contextShape(item));
      previous = item;
    });
    return `[${[...distinct].join(",")}]`;
  }
  if (typeof value === "object") {
    const parts: string[] = [];
    for (const key of Object.keys(value)) parts.push(`${JSON.stringify(key)}:${contextShape((value as Record<string, unknown>)[key])}`);
    return `{${parts.join(",")}}`;
  }
  return typeof value;
}

/** True when `contextShape(a) === contextShape(b)`, decided without building either string for plain objects of scalars. */
function sameShape(a: unknown, b: unknown): boolean {
  if (a === null || b === null || Array.isArray(a) || Array.isArray(b)) return contextShape(a) === contextShape(b);
  if (typeof a !== typeof b) return false;
  if (typeof a !== "object") return true;
  const keysA = Object.keys(a as object);
  const keysB = Object.keys(b as object);
  if (keysA.length !== keysB.length) return false;
  for (let index = 0; index < keysA.length; index++) {
    const key = keysA[index] as string;
    if (key !== keysB[index] || !sameShape((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}
