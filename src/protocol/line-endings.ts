/**
 * A file checked out with CRLF line endings (git's `core.autocrlf` on
 * Windows, an editor's setting) is the same file as its LF checkout. The
 * build writes a supporting file with LF, so both checkouts of the sources
 * give the same bytes in dist/; and every reader of a built dist/ (`check`,
 * the runtime's `loadArtifacts`, the records lint and check take) reads its
 * files through this too, so a dist/ committed from Linux and checked out on
 * Windows verifies as the bytes the build wrote: no text file in dist/ holds
 * a CRLF as built, so this only undoes the checkout's conversion. Only a
 * file that is text as git judges text for that conversion is touched: no
 * NUL byte, no carriage return outside a CRLF pair, and few control bytes
 * (at most one per 128 printable ones, as git's rule is written). An image,
 * a font or a compressed PDF fails one of the three and is kept as it is, as
 * is any file without a CRLF.
 */
export function withLfLineEndings(bytes: Buffer): Buffer {
  if (bytes.indexOf(CRLF) === -1 || !isText(bytes)) return bytes;
  const parts: Buffer[] = [];
  let from = 0;
  for (let at = bytes.indexOf(CRLF, from); at !== -1; at = bytes.indexOf(CRLF, from)) {
    parts.push(bytes.subarray(from, at));
    from = at + 1; // keeps the line feed
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}

const CRLF = Buffer.from("\r\n");
const CR = 0x0d;
const LF = 0x0a;

function isText(bytes: Buffer): boolean {
  let printable = 0;
  let control = 0;
  // A final Ctrl-Z (an old end-of-file mark) is not counted, as git does not count it.
  const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x1a ? bytes.length - 1 : bytes.length;
  for (let index = 0; index < end; index++) {
    const byte = bytes[index] as number;
    if (byte === 0) return false;
    if (byte === CR) {
      if (bytes[index + 1] !== LF) return false;
      index++; // the pair's line feed, counted as neither
      continue;
    }
    if (byte === LF) continue;
    // Backspace, tab, escape and form feed count as printable, as git counts them; DEL and the other C0 bytes do not.
    if (byte === 0x7f || (byte < 0x20 && byte !== 0x08 && byte !== 0x09 && byte !== 0x1b && byte !== 0x0c)) control++;
    else printable++;
  }
  return control <= Math.floor(printable / 128);
}
