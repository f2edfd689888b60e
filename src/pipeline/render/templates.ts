import { createRequire } from "node:module";
import type HandlebarsNamespace from "handlebars";
import { createDiagnostic, FILE_START, type Diagnostic, type Range } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../stage-data.js";
import { LineIndex } from "../parse/positions.js";
import { findDanglingDot } from "./dangling-dot.js";
import { explainParseError } from "./parse-error.js";
import { messageOf } from "../../protocol/error-message.js";

/**
 * The template engine: one isolated Handlebars instance per build with a
 * fixed set of pure helpers, no HTML escaping, strict lookups and only known
 * helpers. Handlebars is loaded lazily so a no-change build never loads it.
 */

export type HandlebarsInstance = typeof HandlebarsNamespace;
export type TemplateAst = hbs.AST.Program;

export interface ParsedTemplate {
  file: string;
  /** Partial name for files under prompts/partials/, else undefined. */
  partialName?: string;
  text: string;
  ast: TemplateAst;
  /**
   * Handlebars compiles a template on its first call; keeping the compiled
   * function with the parsed template lets watch mode render again without
   * compiling again.
   */
  compiled?: { engine: HandlebarsInstance; render: HandlebarsNamespace.TemplateDelegate };
}

export const BLOCK_HELPERS = new Set(["if", "unless", "each", "with"]);
export const VALUE_HELPERS = new Set(["eq", "join"]);

export const COMPILE_OPTIONS = {
  noEscape: true,
  strict: true,
  knownHelpersOnly: true,
  knownHelpers: { eq: true, join: true, lookup: false, log: false },
} as const;

let handlebarsModule: HandlebarsInstance | undefined;

export async function loadHandlebars(): Promise<HandlebarsInstance> {
  // The package's single-file build of the same release (parser and compiler included): one file to load
  // instead of some forty. The package's main module adds only a source printer and a require hook for .hbs.
  handlebarsModule ??= createRequire(import.meta.url)("handlebars/dist/handlebars.js") as HandlebarsInstance;
  return handlebarsModule;
}

export function handlebarsVersion(handlebars: HandlebarsInstance): string {
  return handlebars.VERSION;
}

/** A fresh instance: nothing registered globally can leak into our output. */
export function createEngine(handlebars: HandlebarsInstance): HandlebarsInstance {
  const engine = handlebars.create();
  engine.unregisterHelper("log");
  engine.unregisterHelper("lookup");
  engine.registerHelper("eq", (left: unknown, right: unknown) => left === right);
  engine.registerHelper("join", (list: unknown, ...rest: unknown[]) => {
    // Handlebars passes its options last: the separator, when given, comes before them.
    const options = rest.at(-1) as { loc?: { start: { line: number; column: number } } } | undefined;
    const separator = rest.length > 1 ? rest[0] : undefined;
    if (!Array.isArray(list)) throw atCall(new Error("join expects a list as its first argument"), options?.loc);
    return list.map((item) => String(item)).join(typeof separator === "string" ? separator : ", ");
  });
  return engine;
}

/**
 * A helper's failure at the helper's call: Handlebars gives a helper where
 * it is called (`options.loc`, 1-based line, 0-based column) but puts no
 * position on what the helper throws, so the finding would point at 1:1.
 */
function atCall(error: Error, loc: { start: { line: number; column: number } } | undefined): Error {
  if (loc === undefined) return error;
  return Object.assign(error, { lineNumber: loc.start.line, column: loc.start.column });
}

/**
 * Handlebars' parser recurses per block and takes seconds to fail on a few
 * thousand nested blocks; prompt templates never need more than a handful.
 */
export const MAX_BLOCK_DEPTH = 64;

export function parseTemplate(engine: HandlebarsInstance, source: SourceFile, partialName?: string): ParsedTemplate | Diagnostic {
  // Both found before parsing: Handlebars' parser, the checker and the renderer recurse once per level.
  const blocks = blockDepthOverflow(source.text);
  const tags = blocks === undefined ? subexpressionDepthOverflow(source.text) : undefined;
  const tooDeep = blocks ?? tags;
  if (tooDeep !== undefined) {
    const what = blocks !== undefined ? ["block", "{{#…}} blocks"] : ["subexpression", "(…) in one tag"];
    return createDiagnostic("template/too-deep", source.path, tooDeep, `Unexpected ${what[0]} nested more than ${MAX_BLOCK_DEPTH} levels deep, expected at most ${MAX_BLOCK_DEPTH} nested ${what[1]}`);
  }
  try {
    const ast = engine.parse(source.text);
    const dangling = findDanglingDot(ast);
    if (dangling !== undefined) return createDiagnostic("template/parse-error", source.path, dangling.range, dangling.message);
    return partialName === undefined
      ? { file: source.path, text: source.text, ast }
      : { file: source.path, partialName, text: source.text, ast };
  } catch (error) {
    const explained = explainParseError(source.text, error);
    return createDiagnostic("template/parse-error", source.path, explained.range ?? parseErrorRange(engine, error), explained.message);
  }
}

/** Handlebars positions: 1-based lines, 0-based columns. */
export function locRange(loc: hbs.AST.SourceLocation | undefined): Range {
  if (!loc) return FILE_START;
  return {
    start: { line: loc.start.line, column: loc.start.column + 1 },
    end: { line: loc.end.line, column: loc.end.column + 1 },
  };
}

export interface RenderFailure {
  file: string;
  error: unknown;
}

/**
 * Compiles every partial and registers it wrapped, so a runtime failure can
 * name the file it happened in.
 */
export function registerPartials(engine: HandlebarsInstance, partials: readonly ParsedTemplate[], compileFrom: (template: ParsedTemplate) => string | TemplateAst): void {
  for (const partial of partials) {
    if (partial.partialName === undefined) continue;
    const compiled = engine.compile(compileFrom(partial), COMPILE_OPTIONS);
    const wrapped = (context: unknown, options?: HandlebarsNamespace.RuntimeOptions): string => {
      try {
        return compiled(context, options);
      } catch (error) {
        throw annotate(error, partial.file);
      }
    };
    engine.registerPartial(partial.partialName, wrapped as unknown as string);
  }
}

/** Renders a template; a failure becomes a diagnostic at the failing template's position. */
export function renderTemplate(engine: HandlebarsInstance, template: ParsedTemplate, context: object, source: string | TemplateAst = template.text): string | Diagnostic {
  try {
    return compiledTemplate(engine, template, source)(context);
  } catch (error) {
    const file = annotatedFile(error) ?? template.file;
    return createDiagnostic("template/render-error", file, errorRange(error), `Unexpected failure while rendering: ${firstLine(error)}`);
  }
}

/** The compiled template, kept with the parsed one; only the template's own text is kept compiled. */
function compiledTemplate(engine: HandlebarsInstance, template: ParsedTemplate, source: string | TemplateAst): HandlebarsNamespace.TemplateDelegate {
  if (source !== template.text) return engine.compile(source, COMPILE_OPTIONS);
  if (template.compiled?.engine === engine) return template.compiled.render;
  const render = engine.compile(source, COMPILE_OPTIONS);
  template.compiled = { engine, render };
  return render;
}

/**
 * LF only and exactly one trailing newline, whatever the template's last lines hold. The templates are read
 * with LF, but a value can carry a CRLF (an injection's `meaning: "a\r\nb"` in YAML, a tool's description
 * in JSON): every reader of dist/ takes a CRLF for a checkout's conversion and reads it as LF, so a built
 * text never holds one.
 */
export function finishText(text: string): string {
  if (text.includes("\r\n")) text = text.replaceAll("\r\n", "\n");
  // A loop, not /[ \t\n]+$/: that pattern is retried at every whitespace run of a long prefix.
  let end = text.length;
  for (let code = text.charCodeAt(end - 1); code === 0x20 || code === 0x09 || code === 0x0a; code = text.charCodeAt(end - 1)) end--;
  return `${text.slice(0, end)}\n`;
}

const FILE_TAG = Symbol("gamma-prompt.template-file");

function annotate(error: unknown, file: string): unknown {
  if (typeof error === "object" && error !== null && !(FILE_TAG in error)) {
    Object.defineProperty(error, FILE_TAG, { value: file });
  }
  return error;
}

function annotatedFile(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && FILE_TAG in error) {
    const file = (error as Record<symbol, unknown>)[FILE_TAG];
    return typeof file === "string" ? file : undefined;
  }
  return undefined;
}

function errorRange(error: unknown): Range {
  if (typeof error === "object" && error !== null && "lineNumber" in error && typeof error.lineNumber === "number") {
    const column = "column" in error && typeof error.column === "number" ? error.column + 1 : 1;
    return { start: { line: error.lineNumber, column }, end: { line: error.lineNumber, column } };
  }
  return FILE_START;
}

/**
 * Parse errors carry no structured position, but the shared lexer still
 * holds the location of the token it failed on.
 */
function parseErrorRange(engine: HandlebarsInstance, error: unknown): Range {
  const located = errorRange(error);
  if (located !== FILE_START) return located;
  // Handlebars 4 exposes its parser as `Parser` (the lexer it shares holds the last parse's position).
  type Located = { lexer?: { yylloc?: { first_line: number; first_column: number; last_line: number; last_column: number } } };
  const exposed = engine as unknown as { Parser?: Located; parser?: Located };
  const lexer = (exposed.Parser ?? exposed.parser)?.lexer;
  const loc = lexer?.yylloc;
  if (loc && Number.isInteger(loc.first_line) && loc.first_line >= 1) {
    return {
      start: { line: loc.first_line, column: loc.first_column + 1 },
      end: { line: loc.last_line, column: loc.last_column + 1 },
    };
  }
  const line = /line (\d+)/.exec(firstLine(error));
  if (line) return { start: { line: Number(line[1]), column: 1 }, end: { line: Number(line[1]), column: 1 } };
  return FILE_START;
}

function firstLine(error: unknown): string {
  const message = messageOf(error);
  return (message.split("\n")[0] ?? message).trim();
}

/**
 * The range of the first `(` past MAX_BLOCK_DEPTH levels of subexpressions in one tag, found without parsing:
 * Handlebars' parser takes time that grows much faster than the nesting (a minute at 6,000 levels), and the
 * checker and the renderer recurse once per level, past the stack's end at a few thousand. Comments and
 * quoted strings hold no subexpression.
 */
function subexpressionDepthOverflow(text: string): Range | undefined {
  for (let open = text.indexOf("{{"); open !== -1; ) {
    let end: number;
    if (text.startsWith("{{!", open)) {
      const close = text.startsWith("{{!--", open) ? text.indexOf("--}}", open + 5) : text.indexOf("}}", open + 3);
      if (close === -1) return undefined;
      end = close + 2;
    } else {
      let depth = 0;
      let quote = "";
      end = text.length;
      for (let at = open + 2; at < text.length; at++) {
        const char = text[at];
        if (quote !== "") {
          if (char === quote) quote = "";
        } else if (char === '"' || char === "'") quote = char;
        else if (char === "(") {
          if (++depth > MAX_BLOCK_DEPTH) return new LineIndex(text).range(at, at + 1);
        } else if (char === ")") depth = Math.max(0, depth - 1);
        else if (char === "}" && text[at + 1] === "}") {
          end = at + 2;
          break;
        }
      }
    }
    open = text.indexOf("{{", end);
  }
  return undefined;
}

/** The range of the first block opener past MAX_BLOCK_DEPTH, found without parsing. */
function blockDepthOverflow(text: string): Range | undefined {
  const tags = /\{\{~?\s*([#^/])/g;
  let depth = 0;
  for (let match = tags.exec(text); match !== null; match = tags.exec(text)) {
    if (match[1] === "/") depth = Math.max(0, depth - 1);
    else if (++depth > MAX_BLOCK_DEPTH) return new LineIndex(text).range(match.index, match.index + match[0].length);
  }
  return undefined;
}
