/**
 * The fields the design adds to an Agent Skills manifest, and their two
 * spellings: a top-level key (`type`, `requiresSkills`, …) and a portable
 * key under the specification's `metadata` map (`gamma-type`,
 * `gamma-requires-skills`, …), whose value is one string (a list is its
 * names separated by spaces, the way the specification spells
 * `allowed-tools`). Validators that follow the specification refuse the
 * top-level keys and accept the metadata ones; both read the same.
 */

export type DesignField = "type" | "requiresSkills" | "conflictsWith" | "toolNamespaces";

export interface DesignFieldSpelling {
  field: DesignField;
  /** The key under `metadata`. */
  portableKey: string;
  /** A list of names (one space-separated string under metadata) rather than one word. */
  list: boolean;
}

export const DESIGN_FIELDS: readonly DesignFieldSpelling[] = [
  { field: "type", portableKey: "gamma-type", list: false },
  { field: "requiresSkills", portableKey: "gamma-requires-skills", list: true },
  { field: "conflictsWith", portableKey: "gamma-conflicts-with", list: true },
  { field: "toolNamespaces", portableKey: "gamma-tool-namespaces", list: true },
];

const BY_FIELD = new Map(DESIGN_FIELDS.map((spelling) => [spelling.field, spelling]));

/** `metadata.gamma-requires-skills` for requiresSkills: how a message names a field written under metadata. */
export function portableLabel(field: DesignField): string {
  return `metadata.${BY_FIELD.get(field)?.portableKey ?? field}`;
}

/** The field as a message names it: its key where the file writes it. */
export function fieldLabel(field: DesignField, portableFields: readonly DesignField[] | undefined): string {
  return portableFields?.includes(field) ? portableLabel(field) : field;
}
