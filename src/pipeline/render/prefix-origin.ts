import { COMPILE_OPTIONS, createEngine, finishText, loadHandlebars, type ParsedTemplate, type TemplateAst } from "./templates.js";
import type { PrefixContext, PreparedTemplates } from "./render.js";

/**
 * Maps an offset in the rendered static prefix back to the template line
 * that produced it. The prefix is rendered a second time from copies of the
 * template ASTs in which every statement is preceded by an invisible marker;
 * the markers are then stripped and each output character is attributed to
 * the last marker before it. The map is trusted only when the stripped
 * output equals the real prefix byte for byte.
 */

export interface TemplateOrigin {
  file: string;
  line: number;
  column: number;
  /** `content` for literal template text, else the expression, e.g. `{{catalog}}`. */
  kind: string;
}

const OPEN = "\uE000";
const CLOSE = "\uE001";

export async function mapPrefixOrigins(templates: PreparedTemplates, context: PrefixContext, expectedPrefix: string): Promise<((offset: number) => TemplateOrigin | undefined) | undefined> {
  const origins: Array<{ template: ParsedTemplate; node: hbs.AST.Statement }> = [];
  const engine = createEngine(await loadHandlebars());
  const options = { ...COMPILE_OPTIONS, ignoreStandalone: true };
  for (const partial of templates.partials.values()) {
    if (partial.partialName === undefined) continue;
    engine.registerPartial(partial.partialName, engine.compile(instrument(partial, origins), options) as unknown as string);
  }
  let rendered: string;
  try {
    rendered = engine.compile(instrument(templates.prefix, origins), options)(context);
  } catch {
    return undefined;
  }
  let text = "";
  const owner: number[] = [];
  let current = -1;
  for (let index = 0; index < rendered.length; index++) {
    const char = rendered[index];
    if (char === OPEN) {
      const end = rendered.indexOf(CLOSE, index);
      current = Number(rendered.slice(index + 1, end));
      index = end;
      continue;
    }
    text += char;
    owner.push(current);
  }
  if (finishText(text) !== expectedPrefix) return undefined;
  return (offset) => {
    const id = owner[Math.min(offset, owner.length - 1)];
    const origin = id === undefined ? undefined : origins[id];
    if (!origin) return undefined;
    const start = origin.node.loc.start;
    if (origin.node.type !== "ContentStatement") {
      return { file: origin.template.file, line: start.line, column: start.column + 1, kind: describe(origin.node) };
    }
    // Position inside a literal run: count the lines between its start and the offset.
    let segmentStart = Math.min(offset, owner.length - 1);
    while (segmentStart > 0 && owner[segmentStart - 1] === id) segmentStart--;
    const content = origin.node as hbs.AST.ContentStatement;
    const original = typeof content.original === "string" ? content.original : content.value;
    const lead = Math.max(0, original.indexOf(content.value));
    const position = lead + (offset - segmentStart);
    const before = original.slice(0, Math.min(position, original.length));
    const newlines = before.split("\n").length - 1;
    const column = newlines === 0 ? start.column + 1 + before.length : before.length - before.lastIndexOf("\n");
    return { file: origin.template.file, line: start.line + newlines, column, kind: "content" };
  };
}

function instrument(template: ParsedTemplate, origins: Array<{ template: ParsedTemplate; node: hbs.AST.Statement }>): TemplateAst {
  const copy = structuredClone(template.ast);
  const visit = (program: hbs.AST.Program | undefined): void => {
    if (!program) return;
    const body: hbs.AST.Statement[] = [];
    for (const statement of program.body) {
      const id = origins.push({ template, node: statement }) - 1;
      const marker = `${OPEN}${id}${CLOSE}`;
      body.push({ type: "ContentStatement", value: marker, original: marker, loc: statement.loc } as unknown as hbs.AST.Statement);
      body.push(statement);
      if (statement.type === "BlockStatement") {
        visit((statement as hbs.AST.BlockStatement).program);
        visit((statement as hbs.AST.BlockStatement).inverse);
      }
    }
    program.body = body;
  };
  visit(copy);
  return copy;
}

function describe(node: hbs.AST.Statement): string {
  if (node.type === "MustacheStatement") {
    const path = (node as hbs.AST.MustacheStatement).path;
    return `{{${"original" in path ? String(path.original) : ""}}}`;
  }
  if (node.type === "BlockStatement") return `{{#${(node as hbs.AST.BlockStatement).path.original}}}`;
  if (node.type === "PartialStatement") {
    const name = (node as hbs.AST.PartialStatement).name;
    return `{{> ${"original" in name ? String(name.original) : ""}}}`;
  }
  return node.type;
}
