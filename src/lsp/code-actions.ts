import { CodeActionKind, type CodeAction, type ClientCapabilities, type Diagnostic as LspDiagnostic, type TextEdit, type WorkspaceEdit } from "vscode-languageserver/node";
import type { TextDocument } from "vscode-languageserver-textdocument";
import type { ProjectAnalysis } from "../analyze.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { ruleRegistry, type RuleId } from "../diagnostics/rules/index.js";
import { fixSkillBytes, type FixedSkillFile } from "../pipeline/fix/fix-skills.js";
import { fixSkillText } from "../lint.js";
import { FIXABLE_RULES } from "../pipeline/fix/fix-plan.js";
import type { FindingData } from "./diagnostics.js";
import { frontmatterLines, suppressible } from "../pipeline/validate/suppressions.js";
import { unreadSkill } from "../pipeline/lint-skills/lint-skills.js";

/**
 * Code actions on findings: the fix `lint --fix` would make and a
 * suppression comment with a place for the reason (each offered only while
 * the buffer is the text the finding was found in, and applied only to that
 * version), every fix of the file at once (`source.fixAll.gamma-prompt`:
 * the text `lint --fix` would write, its passes included), and the rule's doc.
 */

export const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.gamma-prompt`;
export const OPEN_RULE_DOC = "gamma-prompt.openRuleDoc";
const REASON_PLACEHOLDER = "reason";

export interface ActionContext {
  analysis: ProjectAnalysis;
  document: TextDocument;
  path: string;
  capabilities: ClientCapabilities;
  /** The buffer version the latest analysis read (undefined: it read the disk). */
  analysedVersion: number | undefined;
  /** The project root, and the unsaved buffers (root-relative path → text) the latest analysis read. */
  root: string;
  buffers: ReadonlyMap<string, string>;
}

export async function codeActions(context: ActionContext, diagnostics: readonly LspDiagnostic[], only: readonly string[] | undefined): Promise<CodeAction[]> {
  const wants = (kind: string): boolean => only === undefined || only.some((requested) => kind === requested || kind.startsWith(`${requested}.`));
  const actions: CodeAction[] = [];
  const isSkill = context.path.endsWith("SKILL.md");
  for (const diagnostic of diagnostics) {
    if (diagnostic.source !== "gamma-prompt" || typeof diagnostic.code !== "string" || !Object.prototype.hasOwnProperty.call(ruleRegistry, diagnostic.code)) continue;
    const ruleId = diagnostic.code as RuleId;
    if (wants(CodeActionKind.QuickFix)) {
      if (isSkill && FIXABLE_RULES.has(ruleId) && stillMatches(context, diagnostic)) {
        const fix = fixEdit(context, await fixSkillBytes(context.path, Buffer.from(context.document.getText(), "utf8"), [toFinding(context.path, diagnostic, ruleId)], context.analysis.profile));
        if (fix) actions.push({ title: `Fix: ${fix.title}`, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], isPreferred: true, edit: fix.edit });
      }
      // A suppression goes above the finding's line as published: once the buffer moved on, that line may hold something else.
      if (isSkill && stillMatches(context, diagnostic)) {
        const suppression = suppressionEdit(context, diagnostic, ruleId);
        if (suppression) actions.push({ title: suppression.title, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], edit: suppression.edit });
      }
      const href = diagnostic.codeDescription?.href;
      if (href) actions.push({ title: `Show documentation for ${ruleId}`, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], command: { title: `Show documentation for ${ruleId}`, command: OPEN_RULE_DOC, arguments: [href] } });
    }
  }
  if (isSkill && wants(FIX_ALL_KIND) && context.analysedVersion === context.document.version) {
    const findings = context.analysis.diagnostics.filter((finding) => finding.file === context.path && FIXABLE_RULES.has(finding.ruleId));
    const fix = findings.length > 0 ? fixEdit(context, await fixedText(context, findings)) : undefined;
    if (fix) actions.push({ title: "Fix all gamma-prompt findings that have a safe fix", kind: FIX_ALL_KIND, edit: fix.edit });
  }
  return actions;
}

/**
 * Each pass's re-check reads the whole project, so the text is worked out
 * once per analysis and buffer version, however often the client asks for
 * the actions at that version (some ask on every cursor move).
 */
const fixedTexts = new WeakMap<ProjectAnalysis, Map<string, Promise<FixedSkillFile | undefined>>>();

/** As many passes as `lint --fix` makes (a fix can make another possible), for one edit. */
function fixedText(context: ActionContext, findings: readonly Diagnostic[]): Promise<FixedSkillFile | undefined> {
  let byBuffer = fixedTexts.get(context.analysis);
  if (byBuffer === undefined) fixedTexts.set(context.analysis, (byBuffer = new Map()));
  const key = `${context.path}\u0000${context.document.version}`;
  let fixed = byBuffer.get(key);
  if (fixed === undefined) {
    fixed = fixSkillText(context.root, context.path, context.document.getText(), findings, context.analysis.profile, context.buffers);
    byBuffer.set(key, fixed);
    // A failed run is not kept: the next request tries again.
    fixed.catch(() => byBuffer.delete(key));
  }
  return fixed;
}

/** True while the buffer is the version the finding was published for. */
function stillMatches(context: ActionContext, diagnostic: LspDiagnostic): boolean {
  const data = diagnostic.data as FindingData | undefined;
  return data?.version === context.document.version && context.analysedVersion === context.document.version;
}

function toFinding(path: string, diagnostic: LspDiagnostic, ruleId: RuleId): Diagnostic {
  const { start, end } = diagnostic.range;
  return { file: path, line: start.line + 1, column: start.character + 1, endLine: end.line + 1, endColumn: end.character + 1, severity: ruleRegistry[ruleId].severity, ruleId, message: typeof diagnostic.message === "string" ? diagnostic.message : diagnostic.message.value, url: diagnostic.codeDescription?.href ?? "" };
}

function fixEdit(context: ActionContext, fixed: FixedSkillFile | undefined): { title: string; edit: WorkspaceEdit } | undefined {
  const before = context.document.getText();
  if (!fixed || fixed.after === before) return undefined;
  // One edit over the part that changed, so the cursor and the rest of the buffer stay where they are.
  let start = 0;
  while (start < before.length && start < fixed.after.length && before[start] === fixed.after[start]) start++;
  let end = 0;
  while (end < before.length - start && end < fixed.after.length - start && before[before.length - 1 - end] === fixed.after[fixed.after.length - 1 - end]) end++;
  // Never between a CR and its LF: a client's text library takes the pair as one line break and moves such an
  // end past it, keeping a CR the edit meant to replace. The character taken in is the same in both texts.
  if (start > 0 && before[start - 1] === "\r" && before[start] === "\n") start--;
  if (end > 0 && before[before.length - end - 1] === "\r" && before[before.length - end] === "\n") end--;
  const edit: TextEdit = {
    range: { start: context.document.positionAt(start), end: context.document.positionAt(before.length - end) },
    newText: fixed.after.slice(start, fixed.after.length - end),
  };
  return { title: fixed.fixes.map((fix) => fix.message).join("; "), edit: versionedEdit(context, [edit]) };
}

/**
 * `# gamma-prompt-disable-next-line RULE -- reason` above a frontmatter line,
 * or, for a finding inside a value over several lines (a block scalar, a
 * quoted string), above the line where that value starts: a comment inside
 * it would be part of the value. A finding in the body can only be
 * suppressed for the whole file, by a `# gamma-prompt-disable RULE -- reason`
 * line at the top of the frontmatter. None for a finding no suppression may
 * hide (the file could not be read as a skill).
 */
function suppressionEdit(context: ActionContext, diagnostic: LspDiagnostic, ruleId: RuleId): { title: string; edit: WorkspaceEdit } | undefined {
  const manifest = context.analysis.skillFiles.find((record) => record.path === context.path)?.manifest;
  const unread = unreadSkill(manifest, context.analysis.profile);
  if (!suppressible(ruleId, unread)) return undefined;
  // Lines as the protocol counts them (CRLF, CR or LF), and the comment ends as the file's own lines do, so a
  // CRLF file from a Windows checkout keeps one line-ending style.
  const text = context.document.getText();
  const lines = text.split(/\r\n|\r|\n/);
  const newline = /\r\n|\r|\n/.exec(text)?.[0] ?? "\n";
  if (!/^\uFEFF?---[ \t]*$/.test(lines[0] ?? "")) return undefined;
  const closing = lines.findIndex((text, index) => index > 0 && /^---[ \t]*$/.test(text));
  if (closing < 0) return undefined;
  let line = diagnostic.range.start.line;
  if (line > 0 && line < closing) {
    // The spans count lines from 1.
    const span = [...(frontmatterLines(lines)?.spans ?? [])].find(([first, last]) => first <= line && line + 1 <= last);
    if (span) line = span[0] - 1;
    const indent = /^[ \t]*/.exec(lines[line] ?? "")?.[0] ?? "";
    const edit = { range: { start: { line, character: 0 }, end: { line, character: 0 } }, newText: `${indent}# gamma-prompt-disable-next-line ${ruleId} -- ${REASON_PLACEHOLDER}${newline}` };
    return { title: `Suppress ${ruleId} on this line`, edit: versionedEdit(context, [edit]) };
  }
  const edit = { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, newText: `# gamma-prompt-disable ${ruleId} -- ${REASON_PLACEHOLDER}${newline}` };
  return { title: `Suppress ${ruleId} in this file`, edit: versionedEdit(context, [edit]) };
}

function versionedEdit(context: ActionContext, edits: TextEdit[]): WorkspaceEdit {
  if (context.capabilities.workspace?.workspaceEdit?.documentChanges === true) {
    return { documentChanges: [{ textDocument: { uri: context.document.uri, version: context.document.version }, edits }] };
  }
  return { changes: { [context.document.uri]: edits } };
}
