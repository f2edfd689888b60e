import type { Diagnostic } from "../diagnostic.js";

/**
 * GitHub Actions workflow commands, one annotation per finding:
 * `::error|warning|notice file=…,line=…,col=…,endLine=…,endColumn=…,title=ruleId::message`.
 * Data escapes %, CR and LF; property values also escape : and ,.
 */
export function formatGithub(diagnostics: readonly Diagnostic[]): string {
  return diagnostics
    .map((diagnostic) => {
      const properties = [
        `file=${escapeProperty(diagnostic.file)}`,
        `line=${diagnostic.line}`,
        `col=${diagnostic.column}`,
        `endLine=${diagnostic.endLine}`,
        `endColumn=${diagnostic.endColumn}`,
        `title=${escapeProperty(diagnostic.ruleId)}`,
      ].join(",");
      return `::${GITHUB_COMMANDS[diagnostic.severity]} ${properties}::${escapeData(diagnostic.message)}\n`;
    })
    .join("");
}

/** GitHub's three annotation levels; a note is a `::notice`, which never fails a check. */
const GITHUB_COMMANDS = { error: "error", warning: "warning", note: "notice" } as const satisfies Record<Diagnostic["severity"], string>;

export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}
