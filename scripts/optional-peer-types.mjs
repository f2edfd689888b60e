// Marks each import of Pi's packages in the declaration files tsc wrote
// (lib/**/*.d.ts; part of the package build, after tsc) with a `@ts-ignore`
// line. Pi is an optional peer dependency: `gamma-prompt/runtime/postgres`
// reaches the runtime's declarations (its PostgresSessions opens Pi agents),
// so without the marks a producer or a deploy step that installs no Pi fails
// to type-check in a project that checks its dependencies' declarations
// (`skipLibCheck: false`), although it never loads Pi. Where Pi is installed
// the marks change nothing; where it is not, Pi's types are `any`, and the
// runtime's import says at run time which packages to install. tsc drops
// such a comment from its output, so it is added here.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const libDir = join(dirname(fileURLToPath(import.meta.url)), "..", "lib");
const MARK = "// @ts-ignore Pi (@earendil-works/*) is an optional peer dependency: without it, its types are any.";
/** A line of tsc's output that names a Pi module: an import or re-export, or an import type (not a comment). */
const PI_MODULE = /^(?!\s*(?:\*|\/\*|\/\/)).*(?:from |import\()"@earendil-works\//;

let found = 0;
for (const entry of readdirSync(libDir, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith(".d.ts")) continue;
  const file = join(entry.parentPath, entry.name);
  const lines = readFileSync(file, "utf8").split("\n");
  const out = lines.flatMap((line, index) => {
    if (!PI_MODULE.test(line)) return [line];
    found++;
    return lines[index - 1] === MARK ? [line] : [MARK, line];
  });
  if (out.length !== lines.length) writeFileSync(file, out.join("\n"));
}
if (found === 0) {
  console.error("optional-peer-types: no import of Pi found in lib/**/*.d.ts; run `npm run build:ts`");
  process.exit(2);
}
