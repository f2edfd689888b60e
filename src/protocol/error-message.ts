/** The longest text shown for a thrown value that is no Error (an object's JSON), before it is cut. */
const MAX_SHOWN = 200;

/**
 * What a caught value says: an Error's message; for an error with none, the
 * messages of the errors it gathers (an AggregateError, such as Node's refused
 * connection to a host name with several addresses), each once, joined with
 * "; ", or else its name; for an object that is no Error, its `message` when
 * it has one, the text its class gives it, or its JSON (cut at 200
 * characters); anything else as text (a thrown string, a rejection with no
 * Error).
 */
export function messageOf(error: unknown): string {
  return said(error, 0);
}

function said(error: unknown, depth: number): string {
  if (error instanceof Error) {
    if (error.message !== "") return error.message;
    const inner = gathered(error, depth);
    return inner !== "" ? inner : error.name;
  }
  if (typeof error !== "object" || error === null) return String(error);
  const message = (error as { message?: unknown }).message;
  if (typeof message === "string" && message !== "") return message;
  const text = textOf(error);
  // An object with a text of its own (a toString of its class) says it; a plain one or an array says its JSON.
  if (!Array.isArray(error) && !text.startsWith("[object ")) return text;
  return bounded(jsonOf(error) ?? text);
}

/** The distinct messages of the errors an AggregateError (or any error with an `errors` list) gathers. */
function gathered(error: Error, depth: number): string {
  const errors = (error as { errors?: unknown }).errors;
  if (!Array.isArray(errors) || depth > 2) return "";
  return [...new Set(errors.map((inner) => said(inner, depth + 1)).filter((message) => message !== ""))].join("; ");
}

function textOf(value: object): string {
  try {
    return String(value);
  } catch {
    // No toString at all (an object without a prototype), or one that throws.
    return "[object Object]";
  }
}

function jsonOf(value: object): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    // A cycle or a BigInt: no JSON.
    return undefined;
  }
}

function bounded(text: string): string {
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length} characters)` : text;
}
