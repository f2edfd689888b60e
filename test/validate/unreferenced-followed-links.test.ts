import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { PlainFolders } from "../../src/pipeline/discover/read-inside-root.js";
import { unreferencedFileDiagnostics } from "../../src/pipeline/validate/unreferenced-files.js";

// The unreferenced-file rule reads the files it follows below the run's plain
// folders without resolving their paths; a followed file that is a link, or
// that sits in a folder that is one, takes the resolving read, so a link out of
// the project is still never followed and the findings are those of a rule
// that resolves every path.

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

describe("skill/unreferenced-file through links", () => {
  it("finds what the resolving reads find: a file below plain folders is followed, a link out of the project never", () => {
    const base = mkdtempSync(join(tmpdir(), "gamma-prompt-followed-links-"));
    const root = join(base, "project");
    try {
      write(base, { "outside/index.md": "See references/from-outside.md.\n" });
      write(root, {
        "shared/notes/guide.md": "See references/from-shared.md.\n",
        "skills/guide/SKILL.md": "---\nname: guide\ndescription: x\n---\n",
        "skills/guide/references/plain.md": "See references/from-plain.md.\n",
        "skills/guide/references/from-plain.md": "x\n",
        "skills/guide/references/from-shared.md": "x\n",
        "skills/guide/references/from-outside.md": "x\n",
      });
      symlinkSync(join(root, "skills/guide/references/plain.md"), join(root, "skills/guide/references/inside-link.md"));
      symlinkSync(join(root, "shared/notes"), join(root, "skills/guide/linked"));
      symlinkSync(join(base, "outside/index.md"), join(root, "skills/guide/references/outside.md"));
      const body = "Read references/plain.md, references/inside-link.md, linked/guide.md and references/outside.md.\n";
      const input = { root, path: "skills/guide/SKILL.md", body };
      const resolving = unreferencedFileDiagnostics(input);
      const plain = unreferencedFileDiagnostics({ ...input, plain: new PlainFolders(root) });
      expect(plain).toEqual(resolving);
      // The file named only from outside the project is left unnamed; the one a plain followed file names is not.
      const messages = plain.map((diagnostic) => diagnostic.message).join("\n");
      expect(messages).toContain("from-outside.md");
      expect(messages).not.toContain("from-plain.md");
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
