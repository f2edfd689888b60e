import { describe, expect, it } from "vitest";
import { withLfLineEndings } from "../../src/protocol/line-endings.js";

const cases: Array<{ name: string; input: string | number[]; output?: string | number[] }> = [
  { name: "CRLF text becomes LF", input: "a\r\nb\r\n", output: "a\nb\n" },
  { name: "LF text is unchanged", input: "a\nb\n" },
  { name: "text mixing CRLF and LF keeps its LF lines", input: "a\r\nb\nc\r\n", output: "a\nb\nc\n" },
  { name: "a lone carriage return marks the file as not text", input: "a\rb\r\n" },
  { name: "a NUL byte marks the file as binary", input: [0x61, 0x0d, 0x0a, 0x00] },
  { name: "many control bytes mark the file as binary", input: [0x01, 0x02, 0x61, 0x0d, 0x0a] },
  { name: "tabs, escapes and a final Ctrl-Z are text", input: "\tcolour \u001b[1m\r\nend\r\n\u001a", output: "\tcolour \u001b[1m\nend\n\u001a" },
  { name: "UTF-8 beyond ASCII is text", input: "café — naïve\r\n", output: "café — naïve\n" },
];

describe("a supporting file's line endings", () => {
  it.each(cases)("$name", ({ input, output }) => {
    const bytes = typeof input === "string" ? Buffer.from(input, "utf8") : Buffer.from(input);
    const expected = output === undefined ? bytes : typeof output === "string" ? Buffer.from(output, "utf8") : Buffer.from(output);
    expect(withLfLineEndings(bytes)).toEqual(expected);
  });
});
