import { isAbsolute, relative, sep } from "node:path";

/**
 * True when `path` is `folder` itself or lies inside it. `..notes` is a name
 * inside; only `..` itself, or a path through it, leads out.
 */
export function isWithin(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** True when `path` lies inside `folder` and is not the folder itself. */
export function isInside(folder: string, path: string): boolean {
  return relative(folder, path) !== "" && isWithin(folder, path);
}
