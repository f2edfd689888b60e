/**
 * What the report renderers take, checked before they render: the data
 * collectReport returns. A TypeError naming the field otherwise, never a
 * message from deep inside a renderer.
 */
import { expectObject, expectString, shownValue } from "../protocol/arguments.js";
import type { ReportData } from "./model.js";

const FROM = "what collectReport returns";

export function expectReportData(data: unknown, entry: string): asserts data is ReportData {
  expectObject(data, `${entry} data`, `the report data, ${FROM}`);
  for (const key of ["generator", "tokenizer", "cacheKey"]) expectString(data[key], `data.${key}`, `a string, as in ${FROM}`, true);
  if (!Array.isArray(data["layout"])) throw new TypeError(`Unexpected data.layout ${shownValue(data["layout"])}, expected an array of variants, as in ${FROM}`);
  for (const key of ["cost", "skills"]) expectObject(data[key], `data.${key}`, `an object, as in ${FROM}`);
  for (const key of ["base", "evals", "sharedPrefix"]) if (data[key] !== undefined) expectObject(data[key], `data.${key}`, `an object when given, as in ${FROM}`);
}
