/**
 * Turns an accepted injection into the text the model reads: one tag per
 * kind (the tag comes from dist/injections.json, where the static prefix
 * defines its meaning), the summary as the body, and only the subject data
 * the agent needs as attributes. Source, delivery, origin ids, dedupeKey and
 * free-form details never appear.
 */
import type { InjectionKindArtifact } from "../../protocol/dist-manifest.js";
import { escapeXml } from "../../protocol/xml-escape.js";
import { neutraliseReservedTags } from "./neutralise.js";
import type { RuntimeInjection } from "./types.js";

/** Attribute order is fixed so the same event always renders to the same bytes. */
export const RENDERED_ATTRIBUTES = ["id", "ref", "path", "revision", "actor", "change"] as const;

export function renderInjection(injection: RuntimeInjection, kinds: readonly InjectionKindArtifact[]): string {
  const tag = tagFor(injection.kind, kinds);
  const attributes = visibleAttributes(injection)
    .map(([name, value]) => ` ${name}="${escapeValue(value)}"`)
    .join("");
  const body = escapeValue(normaliseLineBreaks(injection.summary).trim());
  return `<${tag}${attributes}>\n${body}\n</${tag}>`;
}

export function tagFor(kind: RuntimeInjection["kind"], kinds: readonly InjectionKindArtifact[]): string {
  const entry = kinds.find((candidate) => candidate.kind === kind);
  if (!entry) throw new Error(`Unexpected injection kind "${kind}", expected one that dist/injections.json defines`);
  return entry.tag;
}

function visibleAttributes(injection: RuntimeInjection): Array<[string, string]> {
  const change = injection.details?.["change"];
  const values: Record<(typeof RENDERED_ATTRIBUTES)[number], string | undefined> = {
    id: injection.id,
    ref: injection.subject?.ref,
    path: injection.subject?.path,
    revision: injection.subject?.revision,
    // The design shows the actor to the model ("a stable reference, a revision, an actor, and a change").
    actor: injection.origin?.actor,
    change: typeof change === "string" ? change : undefined,
  };
  const attributes: Array<[string, string]> = [];
  for (const name of RENDERED_ATTRIBUTES) {
    const value = values[name];
    if (value !== undefined) attributes.push([name, value]);
  }
  return attributes;
}

/**
 * Escaping handles the ASCII `<`; the neutraliser then catches look-alike
 * brackets (full-width and the like) that a summary built from user-named
 * things could carry.
 */
function escapeValue(value: string): string {
  return neutraliseReservedTags(escapeXml(value));
}

function normaliseLineBreaks(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}
