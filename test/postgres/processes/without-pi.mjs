// Loaded with `node --import` before a producer: the process resolves no
// @earendil-works package, as a service that has no Pi installed.
import { register } from "node:module";

register(
  `data:text/javascript,${encodeURIComponent(`export async function resolve(specifier, context, next) {
  if (specifier.startsWith("@earendil-works/")) throw Object.assign(new Error("Cannot find package '" + specifier + "' (this process has no Pi)"), { code: "ERR_MODULE_NOT_FOUND" });
  return next(specifier, context);
}`)}`,
);
