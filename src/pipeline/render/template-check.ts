import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { RuleId } from "../../diagnostics/rules/index.js";
import { LineIndex } from "../parse/positions.js";
import { BLOCK_HELPERS, locRange, VALUE_HELPERS, type ParsedTemplate } from "./templates.js";

/**
 * Checks a template against the exact context it will be rendered with,
 * before rendering: unknown partials and helpers, variables the context lacks
 * (including inside `#if` and `#each`, which strict mode lets through) and
 * values that would print as `[object Object]`. Every finding carries the
 * template's own file, line and column.
 */

interface Frame {
  context: unknown;
  data: Record<string, unknown>;
  blockParams: Map<string, unknown>;
}

interface Walk {
  partials: ReadonlyMap<string, ParsedTemplate>;
  activePartials: string[];
  diagnostics: Diagnostic[];
  seen: Set<string>;
}

export function checkTemplate(template: ParsedTemplate, context: unknown, partials: ReadonlyMap<string, ParsedTemplate>): Diagnostic[] {
  const walk: Walk = { partials, activePartials: [], diagnostics: [], seen: new Set() };
  const root: Frame = { context, data: { root: context }, blockParams: new Map() };
  walkProgram(walk, template, template.ast, [root]);
  return walk.diagnostics;
}

function walkProgram(walk: Walk, template: ParsedTemplate, program: hbs.AST.Program | undefined, frames: Frame[]): void {
  if (!program) return;
  for (const statement of program.body) walkStatement(walk, template, statement, frames);
}

function walkStatement(walk: Walk, template: ParsedTemplate, node: hbs.AST.Statement, frames: Frame[]): void {
  switch (node.type) {
    case "ContentStatement":
    case "CommentStatement":
      return;
    case "MustacheStatement":
      return walkMustache(walk, template, node as hbs.AST.MustacheStatement, frames);
    case "BlockStatement":
      return walkBlock(walk, template, node as hbs.AST.BlockStatement, frames);
    case "PartialStatement":
      return walkPartial(walk, template, node as hbs.AST.PartialStatement, frames);
    default:
      report(walk, "template/unsupported-syntax", template, node, `Unexpected ${describeNode(node.type)}, expected only content, {{value}}, {{#if}}, {{#unless}}, {{#each}}, {{#with}} and {{> partial}}`);
  }
}

function walkMustache(walk: Walk, template: ParsedTemplate, node: hbs.AST.MustacheStatement, frames: Frame[]): void {
  if (node.path.type !== "PathExpression") {
    report(walk, "template/unsupported-syntax", template, node, "Unexpected literal in {{...}}, expected a variable or a helper call");
    return;
  }
  const path = node.path as hbs.AST.PathExpression;
  const isCall = node.params.length > 0 || node.hash !== undefined;
  if (isCall || (isSimpleName(path) && VALUE_HELPERS.has(path.original))) {
    checkHelperCall(walk, template, node, path, node.params, frames);
    return;
  }
  const resolved = resolvePath(walk, template, path, frames);
  if (!resolved.found) return;
  const value = resolved.value;
  if (typeof value === "object" && value !== null) {
    report(walk, "template/non-scalar-value", template, node, `Unexpected ${Array.isArray(value) ? "list" : "object"} in {{${path.original}}}, expected a string, number or boolean (use {{#each}} or a field)`);
  }
}

function walkBlock(walk: Walk, template: ParsedTemplate, node: hbs.AST.BlockStatement, frames: Frame[]): void {
  const name = node.path.original;
  if (node.type !== "BlockStatement" || !BLOCK_HELPERS.has(name) || !isSimpleName(node.path)) {
    report(walk, "template/unknown-helper", template, node, `Unexpected block helper \`${name}\`, expected one of if, unless, each, with`);
    return;
  }
  if (node.params.length !== 1 || node.hash !== undefined) {
    report(walk, "template/unsupported-syntax", template, node, `Unexpected arguments to {{#${name}}}, expected exactly one`);
    return;
  }
  const param = node.params[0] as hbs.AST.Expression;
  const value = evaluate(walk, template, param, frames);
  if (!value.found) return;
  if (name === "if" || name === "unless") {
    walkProgram(walk, template, node.program, frames);
    walkProgram(walk, template, node.inverse, frames);
    return;
  }
  const blockParams = node.program?.blockParams ?? [];
  if (name === "with") {
    const params = new Map<string, unknown>();
    if (blockParams[0] !== undefined) params.set(blockParams[0], value.value);
    walkProgram(walk, template, node.program, [...frames, { context: value.value, data: dataOf(frames), blockParams: params }]);
    walkProgram(walk, template, node.inverse, frames);
    return;
  }
  const items = value.value;
  if (typeof items !== "object" || items === null) {
    report(walk, "template/non-scalar-value", template, param, `Unexpected ${typeof items} in {{#each ${describeExpression(template, param)}}}, expected a list or an object`);
    return;
  }
  const entries: Array<[string | number, unknown]> = Array.isArray(items) ? items.map((item, index) => [index, item]) : Object.entries(items);
  entries.forEach(([key, item], index) => {
    const params = new Map<string, unknown>();
    if (blockParams[0] !== undefined) params.set(blockParams[0], item);
    if (blockParams[1] !== undefined) params.set(blockParams[1], key);
    const data = { ...dataOf(frames), index, key, first: index === 0, last: index === entries.length - 1 };
    walkProgram(walk, template, node.program, [...frames, { context: item, data, blockParams: params }]);
  });
  walkProgram(walk, template, node.inverse, frames);
}

function walkPartial(walk: Walk, template: ParsedTemplate, node: hbs.AST.PartialStatement, frames: Frame[]): void {
  if (node.name.type !== "PathExpression") {
    report(walk, "template/unsupported-syntax", template, node, "Unexpected dynamic partial name, expected a fixed {{> name}}");
    return;
  }
  const name = (node.name as hbs.AST.PathExpression).original;
  const partial = walk.partials.get(name);
  if (!partial) {
    const known = [...walk.partials.keys()].sort();
    report(walk, "template/unknown-partial", template, node, `Unexpected partial \`${name}\`, expected one of ${known.length ? known.join(", ") : "(no files in prompts/partials/)"}`);
    return;
  }
  if (walk.activePartials.includes(name)) {
    report(walk, "template/partial-cycle", template, node, `Unexpected partial cycle ${[...walk.activePartials, name].join(" -> ")}, expected partials to form a tree`);
    return;
  }
  let context = frames[frames.length - 1]?.context;
  if (node.params.length > 1) {
    report(walk, "template/unsupported-syntax", template, node, "Unexpected arguments to a partial, expected at most one context");
    return;
  }
  if (node.params[0]) {
    const value = evaluate(walk, template, node.params[0], frames);
    if (!value.found) return;
    context = value.value;
  }
  if (node.hash) {
    const extended: Record<string, unknown> = typeof context === "object" && context !== null ? { ...context } : {};
    for (const pair of node.hash.pairs) {
      const value = evaluate(walk, template, pair.value, frames);
      if (!value.found) return;
      extended[pair.key] = value.value;
    }
    context = extended;
  }
  walk.activePartials.push(name);
  walkProgram(walk, partial, partial.ast, [...frames, { context, data: dataOf(frames), blockParams: new Map() }]);
  walk.activePartials.pop();
}

function checkHelperCall(walk: Walk, template: ParsedTemplate, node: hbs.AST.Node, path: hbs.AST.PathExpression, params: hbs.AST.Expression[], frames: Frame[]): void {
  if (!isSimpleName(path) || !VALUE_HELPERS.has(path.original)) {
    report(walk, "template/unknown-helper", template, node, `Unexpected helper \`${path.original}\`, expected one of eq, join`);
    return;
  }
  const values = params.map((param) => evaluate(walk, template, param, frames));
  // join prints each item as text: an object would print as "[object Object]", and a separator must be text.
  if (path.original !== "join") return;
  const [list, separator] = values;
  if (list?.found === true && Array.isArray(list.value) && list.value.some((item) => typeof item === "object" && item !== null)) {
    report(walk, "template/non-scalar-value", template, params[0] ?? node, `Unexpected list of objects in {{join ${describeExpression(template, params[0] ?? node)}}}, expected a list of strings or numbers (use {{#each}} to print a field of each)`);
  }
  if (separator?.found === true && typeof separator.value !== "string") {
    report(walk, "template/non-scalar-value", template, params[1] ?? node, `Unexpected ${typeof separator.value} as the separator of {{join}}, expected a string such as ", "`);
  }
}

type Evaluated = { found: true; value: unknown } | { found: false };

function evaluate(walk: Walk, template: ParsedTemplate, expression: hbs.AST.Expression, frames: Frame[]): Evaluated {
  switch (expression.type) {
    case "PathExpression":
      return resolvePath(walk, template, expression as hbs.AST.PathExpression, frames);
    case "SubExpression": {
      const sub = expression as hbs.AST.SubExpression;
      checkHelperCall(walk, template, sub, sub.path, sub.params, frames);
      // Helpers return scalars (eq) or strings (join); the exact value does not matter for checking.
      return { found: true, value: sub.path.original === "eq" ? false : "" };
    }
    case "StringLiteral":
    case "NumberLiteral":
    case "BooleanLiteral":
      return { found: true, value: (expression as hbs.AST.StringLiteral).value };
    default:
      return { found: true, value: undefined };
  }
}

function resolvePath(walk: Walk, template: ParsedTemplate, path: hbs.AST.PathExpression, frames: Frame[]): Evaluated {
  const parts = [...path.parts];
  let current: unknown;
  if (path.data) {
    const data = dataOf(frames);
    const head = parts.shift() ?? "";
    if (!Object.prototype.hasOwnProperty.call(data, head)) {
      report(walk, "template/missing-variable", template, path, `Unexpected @${head}, expected a data variable that exists here (@index, @key, @first and @last exist inside {{#each}})`);
      return { found: false };
    }
    current = data[head];
  } else {
    const frameIndex = frames.length - 1 - path.depth;
    const frame = frames[Math.max(0, frameIndex)];
    const head = parts[0];
    const blockParam = path.depth === 0 && head !== undefined ? findBlockParam(frames, head) : undefined;
    if (blockParam) {
      parts.shift();
      current = blockParam.value;
    } else {
      current = frame?.context;
    }
  }
  for (const [position, part] of parts.entries()) {
    if (typeof current !== "object" || current === null || !Object.prototype.hasOwnProperty.call(current, part) || (current as Record<string, unknown>)[part] === undefined) {
      const inScope = position === 0 && path.depth === 0 && !path.data ? blockParamNames(frames) : [];
      report(walk, "template/missing-variable", template, path, `Unexpected variable \`${path.original}\`, expected ${providedNames(current, inScope)}`);
      return { found: false };
    }
    current = (current as Record<string, unknown>)[part];
  }
  return { found: true, value: current };
}

/** What the context offers where a lookup failed: its names (and the block parameters in scope), so the author sees the choices. */
function providedNames(context: unknown, blockParams: readonly string[]): string {
  if (Array.isArray(context)) return "a name the render context provides (here a list: use {{#each}} to reach its items)";
  const names = typeof context === "object" && context !== null ? Object.keys(context).filter((name) => (context as Record<string, unknown>)[name] !== undefined) : [];
  const all = [...new Set([...blockParams, ...names])].sort();
  if (all.length === 0) return `a name the render context provides (here ${context === null || context === undefined ? "nothing" : `a ${typeof context}, which has no names`})`;
  return `a name the render context provides here: ${all.join(", ")}`;
}

function blockParamNames(frames: Frame[]): string[] {
  return frames.flatMap((frame) => [...frame.blockParams.keys()]);
}

function findBlockParam(frames: Frame[], name: string): { value: unknown } | undefined {
  for (let index = frames.length - 1; index >= 0; index--) {
    const params = frames[index]?.blockParams;
    if (params?.has(name)) return { value: params.get(name) };
  }
  return undefined;
}

function dataOf(frames: Frame[]): Record<string, unknown> {
  return frames[frames.length - 1]?.data ?? {};
}

function isSimpleName(path: hbs.AST.PathExpression): boolean {
  return !path.data && path.depth === 0 && path.parts.length === 1 && path.original === path.parts[0];
}

function describeNode(type: string): string {
  const names: Record<string, string> = {
    PartialBlockStatement: "partial block {{#> ...}}",
    DecoratorBlock: "decorator block",
    Decorator: "decorator",
  };
  return names[type] ?? type;
}

/** The expression as the author wrote it (`3`, `"x"`, `(eq a b)`), never the parser's name for it. */
function describeExpression(template: ParsedTemplate, expression: hbs.AST.Expression): string {
  if (expression.type === "PathExpression") return (expression as hbs.AST.PathExpression).original;
  const loc = expression.loc;
  if (loc === undefined) return String((expression as { original?: unknown }).original ?? "…");
  const lines = new LineIndex(template.text);
  return template.text.slice(lines.lineStart(loc.start.line) + loc.start.column, lines.lineStart(loc.end.line) + loc.end.column);
}

function report(walk: Walk, ruleId: RuleId, template: ParsedTemplate, node: hbs.AST.Node, message: string): void {
  const range = locRange(node.loc);
  const key = `${template.file}:${range.start.line}:${range.start.column}:${ruleId}`;
  if (walk.seen.has(key)) return;
  walk.seen.add(key);
  walk.diagnostics.push(createDiagnostic(ruleId, template.file, range, message));
}
