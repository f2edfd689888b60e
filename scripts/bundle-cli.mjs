// Bundles the compiled CLI into a few CommonJS chunks: lib/cli/main.cjs, the
// bundle's entry, loads chunks named lib/gamma-prompt-*.cjs (part of the
// package build, after tsc; output in the ignored lib/, never edited by hand;
// the library API, lib/index.js, stays as tsc wrote it). Start-up is the whole
// cost of a lint in a pre-commit hook, and Node resolves, reads, compiles and
// links every ES module on its own: some eighty modules cost more than the
// lint itself. The bundle keeps the laziness of the sources: each `await
// import()` stays a separate chunk, so a command still loads only what it uses.
//
// The chunks are CommonJS so that the package's bin can compile each as a
// script and keep, between runs, the code V8 compiled for it, including the
// functions compiled on their first call (src/cli/chunk-loader.cts); Node's
// compile cache keeps only a module's top level. lib/cli/index.js becomes a
// small ES module that loads the same entry the same way.
//
// - commander is bundled into the start-up chunk (every command needs it),
//   and the language server's protocol library into a chunk of its own;
//   every other package stays external and loads on demand as before: a
//   static import becomes a require, a dynamic one stays import().
// - The stages lint runs form one chunk; the ones only check and build add
//   (rendering, emitting, the build record) form another.
// - Every chunk sits beside lib/package-paths.js, at the top of lib/, so the
//   paths the package finds from its own module URL stay what they are.
// - The engine `eval` runs is not bundled: it waits for Pi's packages at its
//   top level, which CommonJS cannot do, so the command imports the library's
//   own modules (lib/evals/, lib/runtime/artifacts.js) as ES modules.
import { spawnSync } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";
import { parseAst } from "rolldown/parseAst";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const libDir = join(packageRoot, "lib");
const entry = join(libDir, "cli", "index.js");
const bundleEntry = join(libDir, "cli", "main.cjs");
const CHUNK_PREFIX = "gamma-prompt-";

// The input is tsc's entry; once bundled, the file is the bundle's and tsc must write it again first.
if (!readFileSync(entry, "utf8").includes('import("./program.js")')) {
  console.error("bundle-cli: lib/cli/index.js is not tsc's output; run `npm run build:ts`");
  process.exit(2);
}
for (const name of readdirSync(libDir)) {
  if (name.startsWith(CHUNK_PREFIX) && (name.endsWith(".js") || name.endsWith(".cjs"))) rmSync(join(libDir, name));
}

// A bare `--help` to a pipe or a file is the same text every time: recorded here from the unbundled
// program (commander itself, 80 columns as off a terminal) beside the bin, which answers with it. The
// record of an earlier build goes first, or the program would answer with it instead of commander.
const recordedHelp = join(libDir, "cli", "recorded-help.txt");
rmSync(recordedHelp, { force: true });
const help = spawnSync(process.execPath, [entry, "--help"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
if (help.status !== 0 || help.stdout === "") {
  console.error(`bundle-cli: \`gamma-prompt --help\` failed: ${help.stderr}`);
  process.exit(2);
}
writeFileSync(recordedHelp, help.stdout);

const LAZY_CHILD_PROCESS = "\0lazy-child-process";
const PROTOCOL_PACKAGES = "vscode-languageserver(-protocol|-types|-textdocument)?|vscode-jsonrpc";
const PROTOCOL_PACKAGE = new RegExp(`^(${PROTOCOL_PACKAGES})(/|$)`);
const EVAL_ENGINE = ["evals/index.js", "evals/results.js", "evals/pi-models.js", "runtime/artifacts.js"];
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const underLib = (pattern) => new RegExp(`^${escape(libDir)}[\\\\/]${pattern}`);

const bundle = await rolldown({
  input: { "cli/main": entry },
  platform: "node",
  // Packages load from node_modules as the unbundled modules load them; commander is part of start-up, the
  // protocol library part of the language server.
  external: (id) => !id.startsWith(".") && !id.startsWith("/") && !/^commander(\/|$)/.test(id) && !PROTOCOL_PACKAGE.test(id) && !/^[A-Za-z]:/.test(id) && id !== "node:child_process",
  plugins: [
    {
      // The eval command's engine, as the library has it (see the top of this file). The command imports
      // the engine's errors from the same modules the engine throws them from, so `instanceof` holds.
      name: "eval-engine-as-es-modules",
      resolveId(source, importer, { kind }) {
        if (kind !== "dynamic-import" || !importer || !/[\\/]cli[\\/]commands[\\/]eval\.js$/.test(importer)) return null;
        // Named from the chunks' folder, lib/, where every chunk sits.
        const engine = EVAL_ENGINE.find((path) => join(dirname(importer), source) === join(libDir, path));
        return engine === undefined ? null : { id: `./${engine}`, external: true };
      },
    },
    {
      // The protocol library's packages as Node's require finds them: two of them offer an ES module build
      // as well, which the others (CommonJS) would then have to load through a wrapper.
      name: "protocol-library-as-commonjs",
      resolveId(source, importer) {
        if (!PROTOCOL_PACKAGE.test(source) || !importer) return null;
        return createRequire(importer).resolve(source);
      },
    },
    {
      // commander needs child_process only to run executable subcommands, which this CLI has none of;
      // it gets the module on first use instead of loading it (and what it pulls in) at every start.
      name: "lazy-child-process-for-commander",
      resolveId(source, importer) {
        if (source !== "node:child_process") return null;
        return importer && /[\\/]node_modules[\\/]commander[\\/]/.test(importer) ? LAZY_CHILD_PROCESS : { id: source, external: true };
      },
      load(id) {
        if (id !== LAZY_CHILD_PROCESS) return null;
        return 'module.exports = new Proxy({}, { get: (_, key) => process.getBuiltinModule("node:child_process")[key] });';
      },
    },
  ],
  onLog(level, log, handler) {
    // A module both imported and dynamically imported simply stays in its chunk: expected here.
    if (log.code !== "INEFFECTIVE_DYNAMIC_IMPORT") handler(level, log);
  },
});
const written = await bundle.write({
  dir: libDir,
  format: "cjs",
  // Each chunk's text in ASCII alone: V8 then keeps it as a one-byte string, which the loader decodes from
  // UTF-8 in a fraction of the time (the lint chunk's non-ASCII characters made it a two-byte string of
  // 600 KB). Strings and patterns keep their values through escapes; the documentation comments, which
  // hold most of the non-ASCII text and only make every chunk longer to hash, decode and scan, stay in
  // the sources and lib/'s modules.
  charset: "ascii",
  comments: { legal: true, annotation: true, jsdoc: false },
  entryFileNames: "[name].cjs",
  chunkFileNames: `${CHUNK_PREFIX}[name]-[hash].cjs`,
  codeSplitting: {
    groups: [
      {
        // What every command loads before it runs: commander, the command definitions and their constants,
        // the walk up from the working folder to the project (a few stat calls), and what a caught error says.
        // The entry itself stays apart: it awaits this chunk, so it cannot be part of it.
        name: "start",
        priority: 3,
        test: (id) =>
          /[\\/]node_modules[\\/]commander[\\/]/.test(id) ||
          underLib("(cli[\\/](?!index\\.js$|commands[\\/](build-actions|cost-action|report-action)\\.js$)|init\\.js$|project-root\\.js$|protocol[\\/](pi-requirement|error-message)\\.js$|diagnostics[\\/](exit-code|reporters[\\/]names)\\.js$|pipeline[\\/]discover[\\/]source-paths\\.js$)").test(id),
      },
      {
        // The language server's protocol library, bundled like commander: Node would otherwise resolve and
        // read some sixty modules of it one by one at every start of the server, and keep only their top
        // level in its compile cache.
        name: "lsp-protocol",
        priority: 3,
        test: new RegExp(`[\\\\/]node_modules[\\\\/](${PROTOCOL_PACKAGES})[\\\\/]`),
      },
      {
        name: "lint",
        priority: 2,
        test: underLib(
          "(pipeline[\\/](discover|parse|validate|lint-skills|session)[\\/]|pipeline[\\/]emit[\\/]verified-dist\\.js$|diagnostics[\\/](?!reporters[\\/](github|json|sarif)\\.js$)|skills[\\/]|protocol[\\/]|(lint|stage-data)\\.js$)",
        ),
      },
      {
        name: "build",
        priority: 1,
        test: underLib("(pipeline[\\/](compile|render|emit|cache)[\\/]|(check|build|tokens)\\.js$|cli[\\/]commands[\\/]build-actions\\.js$)"),
      },
    ],
  },
});
await bundle.close();

// The packages bundled into the chunks keep their licences beside them: each one's licence file, in the
// order of the package names, whatever the file system lists first.
const bundledPackages = new Map();
for (const chunk of written.output) {
  for (const id of chunk.type === "chunk" ? chunk.moduleIds : []) {
    const match = /^(.*[\\/]node_modules[\\/])((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(id);
    if (match) bundledPackages.set(match[2].replace(/\\/g, "/"), join(match[1], match[2]));
  }
}
const notices = [...bundledPackages].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, dir]) => {
  const { version, license } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const file = readdirSync(dir).filter((entry) => /^licen[cs]e(\.(md|txt))?$/i.test(entry)).sort()[0];
  if (file === undefined) throw new Error(`bundle-cli: ${name} is bundled but has no licence file`);
  return `${name} ${version} (${license})\n\n${readFileSync(join(dir, file), "utf8").replace(/\r\n/g, "\n").trim()}\n`;
});
writeFileSync(
  join(libDir, "THIRD-PARTY-LICENSES.txt"),
  `The CLI's chunks (lib/gamma-prompt-*.cjs) hold these packages, bundled from npm:\n\n${notices.join(`\n${"-".repeat(72)}\n\n`)}`,
);

// A chunk runs as a script (src/cli/chunk-loader.cts), where V8 would need an experimental hook of Node's to
// load a module for `import()`: each dynamic import (of a package, or of the eval engine) calls the
// loader's `importModule` instead, which imports it from the chunk's folder.
for (const name of [...readdirSync(libDir).filter((file) => file.startsWith(CHUNK_PREFIX) && file.endsWith(".cjs")).map((file) => join(libDir, file)), bundleEntry]) {
  const code = readFileSync(name, "utf8");
  const found = [];
  (function visit(node) {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    if (node.type === "ImportExpression") found.push(node.start);
    if (node.type === "MetaProperty") throw new Error(`bundle-cli: ${name} uses import.meta, which a script has not`);
    for (const key of Object.keys(node)) if (key !== "parent") visit(node[key]);
  })(parseAst(code));
  let rewritten = code;
  for (const start of found.sort((a, b) => b - a)) {
    if (rewritten.slice(start, start + 6) !== "import") throw new Error(`bundle-cli: no import() at ${name}:${start}`);
    rewritten = `${rewritten.slice(0, start)}importModule${rewritten.slice(start + 6)}`;
  }
  if (rewritten !== code) writeFileSync(name, rewritten);
  const nonAscii = /[^\x00-\x7f]/.exec(rewritten);
  if (nonAscii !== null) throw new Error(`bundle-cli: ${name} holds a character outside ASCII at ${nonAscii.index} (see charset above)`);
}

// `node lib/cli/index.js` runs the same bundle as the package's bin (bin.cjs), less the bin's own answers.
writeFileSync(
  entry,
  `#!/usr/bin/env node
// The bundled CLI's entry, main.cjs, as the package's bin loads it (written by scripts/bundle-cli.mjs).
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
require("./chunk-loader.cjs").loadChunk(require.resolve("./main.cjs"));
`,
);
// The bin (lib/cli/bin.cjs) and lib/cli/index.js are run as files: executable whatever mode was written.
chmodSync(entry, 0o755);
chmodSync(join(libDir, "cli", "bin.cjs"), 0o755);
