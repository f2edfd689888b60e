/**
 * The text a content part carries, for parts that are not a plain
 * `{ type: "text", text: string }`. Pi's provider clients do not check the
 * parts they send: Anthropic's joins `c.text` of every part of an image-less
 * tool result, so a Buffer from `fs.readFile` without an encoding, a String
 * object, or a part typed "Text" reaches the model as text. The transport
 * turns every such part into a plain text part with that text, neutralised
 * like any other: the content still goes out whole (nothing is dropped), and
 * nothing the neutraliser did not read can carry a reserved tag.
 */
import { isRecord } from "../../protocol/records.js";

export interface PlainTextPart {
  type: "text";
  text: string;
}

export function isPlainTextPart(part: unknown): part is PlainTextPart {
  return isRecord(part) && part["type"] === "text" && typeof part["text"] === "string";
}

/** Image parts go to the provider as images (their other fields are never sent as text). */
export function isImagePart(part: unknown): boolean {
  return isRecord(part) && part["type"] === "image";
}

/**
 * The text of a part that is neither plain text nor an image: its `text`
 * field read as the provider would (bytes as UTF-8, a String object or a
 * number as its string), or else the whole part as JSON (a list, a record,
 * a part of another type), so the model sees what was there instead of
 * losing it.
 */
export function readablePartText(part: unknown): string {
  const text = isRecord(part) ? part["text"] : undefined;
  if (typeof text === "string") return text;
  if (text instanceof String) return text.valueOf();
  if (ArrayBuffer.isView(text)) return new TextDecoder().decode(new Uint8Array(text.buffer, text.byteOffset, text.byteLength));
  if (typeof text === "number" || typeof text === "boolean") return String(text);
  try {
    return JSON.stringify(part) ?? String(part);
  } catch {
    // A cycle or a BigInt: the part cannot be shown, so none of it is sent.
    return "[a content part that could not be read as text]";
  }
}
