import { isAbsolute, relative, sep } from "node:path";

/** `to` relative to `from` with forward slashes on every platform; "" when both are the same folder. */
export function relativePosix(from: string, to: string): string {
  const rel = relative(from, to);
  return sep === "/" ? rel : rel.split(sep).join("/");
}

/** True when `path` is `folder` itself or lies inside it. */
export function isWithin(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
