import type { Range } from "../../diagnostics/diagnostic.js";

/**
 * A path that ends in a dot (`{{catalog.}}`). Handlebars' lexer reads the
 * trailing dot as a second expression, `.` (the current context), so it
 * parses as a call of a helper named `catalog`; the author made a syntax
 * mistake, and is told so where the dot is. Only a dot written right against
 * the expression before it counts: `{{join list .}}` passes the context.
 */
export interface DanglingDot {
  range: Range;
  message: string;
}

type Call = { path: hbs.AST.Expression | hbs.AST.PathExpression; params: hbs.AST.Expression[]; hash?: hbs.AST.Hash };

export function findDanglingDot(program: hbs.AST.Program): DanglingDot | undefined {
  for (const statement of program.body) {
    const found = inStatement(statement);
    if (found) return found;
  }
  return undefined;
}

function inStatement(node: hbs.AST.Statement): DanglingDot | undefined {
  switch (node.type) {
    case "MustacheStatement":
      return inCall(node as hbs.AST.MustacheStatement);
    case "PartialStatement": {
      const partial = node as hbs.AST.PartialStatement;
      return inCall({ path: partial.name, params: partial.params, hash: partial.hash });
    }
    case "BlockStatement": {
      const block = node as hbs.AST.BlockStatement;
      return inCall(block) ?? (block.program ? findDanglingDot(block.program) : undefined) ?? (block.inverse ? findDanglingDot(block.inverse) : undefined);
    }
    default:
      return undefined;
  }
}

function inCall(call: Call): DanglingDot | undefined {
  const expressions = [call.path, ...call.params];
  for (let index = 1; index < expressions.length; index++) {
    const before = expressions[index - 1] as hbs.AST.Expression;
    const param = expressions[index] as hbs.AST.Expression;
    if (param.type === "PathExpression" && isDotPath(param as hbs.AST.PathExpression) && touches(before, param)) {
      const written = `${describe(before)}${(param as hbs.AST.PathExpression).original}`;
      const name = describe(before);
      return {
        range: { start: { line: param.loc.start.line, column: param.loc.start.column + 1 }, end: { line: param.loc.end.line, column: param.loc.end.column + 1 } },
        message: `Unexpected \`.\` at the end of the path \`${written}\`, expected a name after each \`.\` in a path (\`${name}.name\`) or no \`.\` (\`${name}\`)`,
      };
    }
  }
  for (const expression of [...expressions, ...(call.hash?.pairs.map((pair) => pair.value) ?? [])]) {
    if (expression.type === "SubExpression") {
      const found = inCall(expression as hbs.AST.SubExpression);
      if (found) return found;
    }
  }
  return undefined;
}

/** `.` or `..` as an expression of its own: the context, or its parent. */
function isDotPath(path: hbs.AST.PathExpression): boolean {
  return !path.data && path.parts.length === 0 && /^\.+$/.test(path.original);
}

function touches(before: hbs.AST.Expression, after: hbs.AST.Expression): boolean {
  return before.loc.end.line === after.loc.start.line && before.loc.end.column === after.loc.start.column;
}

function describe(expression: hbs.AST.Expression): string {
  return expression.type === "PathExpression" ? (expression as hbs.AST.PathExpression).original : "(…)";
}
