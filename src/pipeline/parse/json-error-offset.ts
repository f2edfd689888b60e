import { LineIndex } from "./positions.js";
/**
 * Where JSON text first breaks the grammar (RFC 8259), as a UTF-16 offset.
 * V8 names the position for some syntax errors ("… at position 12") but not
 * for an unexpected token (`["a",]`, `{"a": ,}`, `tru`), whose message in
 * Node 22 quotes the text around it instead; a finding must still point at
 * the character, so the text is scanned again to find it.
 */
export function jsonErrorOffset(text: string): number {
  let at = 0;
  const space = (): void => {
    while (at < text.length && (text[at] === " " || text[at] === "\t" || text[at] === "\n" || text[at] === "\r")) at++;
  };
  const fail = (): never => {
    throw new JsonBreak(at);
  };
  const literal = (word: string): void => {
    for (const char of word) {
      if (text[at] !== char) fail();
      at++;
    }
  };
  const string = (): void => {
    at++;
    while (at < text.length) {
      const char = text[at] ?? "";
      if (char === '"') {
        at++;
        return;
      }
      if (char < " ") fail();
      if (char === "\\") {
        at++;
        const escaped = text[at] ?? "";
        if (escaped === "u") {
          at++;
          for (let digit = 0; digit < 4; digit++, at++) if (!/[0-9a-fA-F]/.test(text[at] ?? "")) fail();
        } else if ('"\\/bfnrt'.includes(escaped) && escaped !== "") at++;
        else fail();
        continue;
      }
      at++;
    }
    fail();
  };
  const digits = (): void => {
    if (!/[0-9]/.test(text[at] ?? "")) fail();
    while (/[0-9]/.test(text[at] ?? "")) at++;
  };
  const number = (): void => {
    if (text[at] === "-") at++;
    if (text[at] === "0") at++;
    else digits();
    if (text[at] === ".") {
      at++;
      digits();
    }
    if (text[at] === "e" || text[at] === "E") {
      at++;
      if (text[at] === "+" || text[at] === "-") at++;
      digits();
    }
  };
  const value = (): void => {
    space();
    const char = text[at];
    if (char === "{") {
      at++;
      space();
      if (text[at] === "}") return void at++;
      for (;;) {
        space();
        if (text[at] !== '"') fail();
        string();
        space();
        if (text[at] !== ":") fail();
        at++;
        value();
        space();
        if (text[at] === ",") at++;
        else if (text[at] === "}") return void at++;
        else fail();
      }
    }
    if (char === "[") {
      at++;
      space();
      if (text[at] === "]") return void at++;
      for (;;) {
        value();
        space();
        if (text[at] === ",") at++;
        else if (text[at] === "]") return void at++;
        else fail();
      }
    }
    if (char === '"') return string();
    if (char === "t") return literal("true");
    if (char === "f") return literal("false");
    if (char === "n") return literal("null");
    if (char === "-" || /[0-9]/.test(char ?? "")) return number();
    fail();
  };
  try {
    value();
    space();
    return at < text.length ? at : text.length;
  } catch (thrown) {
    if (thrown instanceof JsonBreak) return Math.min(thrown.offset, text.length);
    throw thrown;
  }
}

class JsonBreak {
  constructor(readonly offset: number) {}
}

/**
 * JSON.parse's error on `text` in one line: where it is (V8's position, else
 * the scan above) and its message without the text V8 quotes after an
 * unexpected token, which may hold anything (terminal escapes, line feeds);
 * a token that is no printable character is shown escaped.
 */
export function jsonSyntaxError(text: string, thrown: unknown): { offset: number; message: string } {
  const raw = thrown instanceof Error ? thrown.message : String(thrown);
  const position = /position (\d+)/.exec(raw);
  const offset = position ? Number(position[1]) : jsonErrorOffset(text);
  const reported = /^Unexpected token '([\s\S]{1,2}?)', /.exec(raw)?.[1];
  // V8 names one code unit: a character outside the BMP is taken whole from the text, never as half a pair.
  const token = reported === undefined ? undefined : wholeCharacter(text, offset, reported);
  if (token !== undefined) return { offset, message: `Unexpected token '${/^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]+$/.test(token) && !LONE_SURROGATE.test(token) ? token : JSON.stringify(token).slice(1, -1)}'` };
  return { offset, message: (raw.split("\n")[0] ?? "").replace(/ in JSON at position \d+.*$/, "") };
}

/** The same as one phrase, `line:column: message`, for a file whose findings are not diagnostics (a command's input, a cassette). */
export function jsonSyntaxErrorAt(text: string, thrown: unknown): string {
  const { offset, message } = jsonSyntaxError(text, thrown);
  const { line, column } = new LineIndex(text).position(offset);
  return `${line}:${column}: ${message}`;
}

/** The character at `offset` when it begins with the code unit V8 reported, else what V8 reported. */
function wholeCharacter(text: string, offset: number, reported: string): string {
  const codePoint = text.codePointAt(offset);
  if (codePoint === undefined) return reported;
  const character = String.fromCodePoint(codePoint);
  return character.startsWith(reported) ? character : reported;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
