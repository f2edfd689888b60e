// Bundles the compiled CLI into a few modules: the package's bin,
// lib/cli/index.js, is replaced by the bundle's entry, which loads chunks
// named lib/gamma-prompt-*.js (part of the package build, after tsc; output
// in the ignored lib/, never edited by hand; the library API, lib/index.js,
// stays as tsc wrote it). Start-up is the whole cost of a lint in
// a pre-commit hook, and Node resolves, reads, compiles and links every ES
// module on its own: some eighty modules cost more than the lint itself. The
// bundle keeps the laziness of the sources: each `await import()` stays a
// separate chunk, so a command still loads only what it uses.
//
// - commander is bundled into the start-up chunk (every command needs it);
//   every other package stays external and loads on demand as before.
// - The stages lint runs form one chunk; the ones only check and build add
//   (rendering, emitting, the build record) form another.
// - Every chunk sits beside lib/package-paths.js, at the top of lib/, so the
//   paths the package finds from its own module URL stay what they are.
import { spawnSync } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const libDir = join(packageRoot, "lib");
const entry = join(libDir, "cli", "index.js");
const CHUNK_PREFIX = "gamma-prompt-";

// The input is tsc's entry; once bundled, the file is the bundle's and tsc must write it again first.
if (!readFileSync(entry, "utf8").includes('import("./program.js")')) {
  console.error("bundle-cli: lib/cli/index.js is not tsc's output; run `npm run build:ts`");
  process.exit(2);
}
for (const name of readdirSync(libDir)) {
  if (name.startsWith(CHUNK_PREFIX) && name.endsWith(".js")) rmSync(join(libDir, name));
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
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const underLib = (pattern) => new RegExp(`^${escape(libDir)}[\\\\/]${pattern}`);

const bundle = await rolldown({
  input: { "cli/index": entry },
  platform: "node",
  // Packages load from node_modules as the unbundled modules load them; commander is part of start-up.
  external: (id) => !id.startsWith(".") && !id.startsWith("/") && !/^commander(\/|$)/.test(id) && !/^[A-Za-z]:/.test(id) && id !== "node:child_process",
  plugins: [
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
await bundle.write({
  dir: libDir,
  format: "esm",
  entryFileNames: "[name].js",
  chunkFileNames: `${CHUNK_PREFIX}[name]-[hash].js`,
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
// The bin (lib/cli/bin.cjs, which loads this entry) and the entry itself are run as files: executable whatever mode was written.
chmodSync(entry, 0o755);
chmodSync(join(libDir, "cli", "bin.cjs"), 0o755);
