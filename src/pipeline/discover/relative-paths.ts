import { relative, sep } from "node:path";

/** `to` relative to `from` with forward slashes on every platform; "" when both are the same folder. */
export function relativePosix(from: string, to: string): string {
  const rel = relative(from, to);
  return sep === "/" ? rel : rel.split(sep).join("/");
}
