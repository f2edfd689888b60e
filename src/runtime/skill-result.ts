/**
 * Which `skill` tool results the model may read as the runtime's own words.
 * A successful result holds compiled, verified skill bodies and nothing the
 * model wrote (the skill's name was checked against the catalog first).
 * Every other result under the tool's name echoes the model: Pi's validation
 * error quotes its raw arguments, an unknown skill's error quotes the name.
 */
import { isRecord } from "../protocol/records.js";

export const SKILL_TOOL_NAME = "skill";

/**
 * True for a successful result the skill tool wrote: no error, and the
 * details it has always returned (`skill`, `alreadyActive`, `activated`),
 * so results stored by an earlier release stay trusted.
 */
export function isSkillBodyResult(message: Readonly<Record<string, unknown>>): boolean {
  if (message["role"] !== "toolResult" || message["toolName"] !== SKILL_TOOL_NAME || message["isError"] !== false) return false;
  const details = message["details"];
  return isRecord(details) && typeof details["skill"] === "string" && typeof details["alreadyActive"] === "boolean" && Array.isArray(details["activated"]);
}
