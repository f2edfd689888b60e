/**
 * Loads the bundled CLI's CommonJS chunks (lib/gamma-prompt-*.cjs and
 * lib/cli/main.cjs, written by scripts/bundle-cli.mjs) with the code V8
 * compiled for them in an earlier run of the same command.
 *
 * Node's own compile cache (enabled here too, for the packages the CLI loads)
 * keeps only what V8 compiles when a module is compiled: its top level. Most
 * of a command's functions are compiled on their first call, and that
 * compiling was about a fifth of a small project's `lint`. A `vm.Script` can
 * serialize its code after the command ran, lazily compiled functions
 * included, so each chunk is compiled here as a script and, when the process
 * exits, its code is written to a cache file if there was none or V8 refused
 * the one there.
 *
 * The cache is one file per command and chunk (`lint` and `check` call
 * different functions of the same chunks), in a `gamma-prompt` folder under
 * NODE_COMPILE_CACHE or else the system's temporary folder, in a subfolder
 * named as Node names its own (Node version, architecture, V8's version and
 * flags, user id). Each file starts with the sha256 of the chunk's text and of
 * the code after it: a file of another chunk, a truncated or corrupt file, is
 * never handed to V8. The cache is only ever a saving: with
 * NODE_DISABLE_COMPILE_CACHE set, or any file or folder that cannot be read or
 * written, the chunks are compiled as if there were none; nothing is printed
 * and no result changes. `NODE_DEBUG=gamma-prompt-code-cache` says on stderr
 * what each chunk found.
 */
import crypto = require("node:crypto");
import fs = require("node:fs");
import Module = require("node:module");
import os = require("node:os");
import path = require("node:path");
import url = require("node:url");
import util = require("node:util");
import vm = require("node:vm");

const { createHash } = crypto;
const { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } = fs;
const { basename, dirname, join, resolve } = path;
const { Script } = vm;

/** The arguments a chunk's code runs with: CommonJS's five, and `importModule` for its `import()` calls (see bundle-cli.mjs). */
const WRAPPER_HEAD = "(function (exports, require, module, __filename, __dirname, importModule) {";
const WRAPPER_TAIL = "\n})";
/** Start of every cache file (format version 1), then the two sha256s. */
const MAGIC = Buffer.from("gpcode1\n");
const HEADER_BYTES = MAGIC.length + 64;

const debug = util.debuglog("gamma-prompt-code-cache");

interface Compiled {
  script: vm.Script;
  cacheFile: string;
  sourceHash: Buffer;
}

/** require's cache, where each chunk is kept as if it had been required. */
const requireCache = (Module as unknown as { _cache: Record<string, Module | undefined> })._cache;
/** Chunks whose code is to be written when the process exits. */
const toWrite: Compiled[] = [];
const cacheFolder = codeCacheFolder();
/** Whether the cache folder may be used, once looked at (see ownFolder). */
let folderChecked: boolean | undefined;

/** Loads one chunk (an absolute file name) and returns its exports, once per process like `require`. */
function loadChunk(filename: string): unknown {
  const known = requireCache[filename];
  if (known !== undefined) return known.exports;
  // Hashed as read: hashing the decoded text would encode it to UTF-8 again.
  const bytes = readFileSync(filename);
  const source = bytes.toString("utf8");
  const folder = dirname(filename);
  const sourceHash = createHash("sha256").update(bytes).digest();
  const cacheFile = cacheFolder === undefined ? undefined : join(cacheFolder, `${commandName()}-${basename(filename)}`);
  const cachedData = cacheFile === undefined || !ownFolder(cacheFolder as string) ? undefined : readCache(cacheFile, sourceHash);
  // On the same line as the chunk's first line, so positions in stack traces stay the file's own.
  const script = new Script(`${WRAPPER_HEAD}${source.startsWith("#!") ? `//${source.slice(2)}` : source}${WRAPPER_TAIL}`, { filename, ...(cachedData === undefined ? {} : { cachedData }) });
  if (cacheFile !== undefined) {
    const state = cachedData === undefined ? "none" : script.cachedDataRejected === true ? "rejected" : "accepted";
    debug("%s: %s", basename(cacheFile), state);
    if (state !== "accepted") remember({ script, cacheFile, sourceHash });
  }
  // A Module in require's cache, as if required: the same object for a later require() of the file.
  const module = new Module(filename);
  module.filename = filename;
  requireCache[filename] = module;
  const outside = Module.createRequire(filename);
  const requireChunk = Object.assign((id: string) => (/^\.\.?\/.*\.cjs$/.test(id) ? loadChunk(resolve(folder, id)) : outside(id)), outside);
  const importModule = (specifier: string, options?: ImportCallOptions): Promise<unknown> =>
    import(specifier.startsWith("./") || specifier.startsWith("../") ? url.pathToFileURL(resolve(folder, specifier)).href : specifier, options);
  (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, requireChunk, module, filename, folder, importModule);
  module.loaded = true;
  return module.exports;
}

/** The folder for this Node's cache files, or undefined when Node's compile cache is turned off or cannot be used. */
function codeCacheFolder(): string | undefined {
  // Node's own cache for the packages the CLI loads. Its folder's name is the key for ours: Node version,
  // architecture, V8's cache version (which covers V8's flags) and the user.
  const enabled = Module.enableCompileCache();
  const nodeFolder = Module.getCompileCacheDir();
  if (enabled.status === Module.constants.compileCacheStatus.DISABLED || nodeFolder === undefined) return undefined;
  const base = process.env.NODE_COMPILE_CACHE ? resolve(process.env.NODE_COMPILE_CACHE) : join(os.tmpdir(), "gamma-prompt");
  return join(base, process.env.NODE_COMPILE_CACHE ? "gamma-prompt" : "", basename(nodeFolder));
}

/**
 * Whether the cache folder is this user's own and no one else can write in it. V8 runs the code it is
 * given, and the system's temporary folder is shared: a folder another user made (or could write in) under
 * the name this one expects is never read from or written to. Answered once per process.
 */
function ownFolder(folder: string): boolean {
  if (folderChecked === undefined) {
    try {
      const stat = fs.lstatSync(folder);
      folderChecked = stat.isDirectory() && (process.getuid === undefined || (stat.uid === process.getuid() && (stat.mode & 0o022) === 0));
    } catch {
      // No folder yet: nothing to read; the first write makes it.
      return false;
    }
  }
  return folderChecked;
}

/** The command this process runs (`lint`, `check`, ...): the first argument that is no option, as commander reads it. */
function commandName(): string {
  const name = process.argv.slice(2).find((arg) => !arg.startsWith("-"));
  return name !== undefined && /^[a-z][a-z-]{0,31}$/.test(name) ? name : "none";
}

/** The code in a cache file, if the file is whole and was made from this very text. */
function readCache(file: string, sourceHash: Buffer): Buffer | undefined {
  let content: Buffer;
  try {
    content = readFileSync(file);
  } catch {
    return undefined;
  }
  const code = content.subarray(HEADER_BYTES);
  const whole =
    content.length > HEADER_BYTES &&
    content.subarray(0, MAGIC.length).equals(MAGIC) &&
    content.subarray(MAGIC.length, MAGIC.length + 32).equals(sourceHash) &&
    content.subarray(MAGIC.length + 32, HEADER_BYTES).equals(createHash("sha256").update(code).digest());
  if (!whole) debug("%s: not this chunk's, or not whole: ignored", basename(file));
  return whole ? code : undefined;
}

function remember(compiled: Compiled): void {
  if (toWrite.length === 0) {
    process.on("exit", (code) => {
      // A run that printed help or stopped at a usage error (exit code 2) called a sliver of the command's
      // functions: its code is not kept, or it would stand for the command in every later run.
      const help = process.argv.slice(2).some((arg) => arg === "--help" || arg === "-h") || commandName() === "help";
      if ((code === 0 || code === 1) && !help) writeCaches();
    });
  }
  toWrite.push(compiled);
}

/**
 * Writes the code of each chunk that had no usable cache, functions compiled on first call included: on
 * exit, when the command has run (synchronously, so a `process.exit` still writes). Each file is written
 * under a name of its own and renamed into place, so a reader never sees half a file and two processes
 * writing at once leave one whole file.
 */
function writeCaches(): void {
  for (const { script, cacheFile, sourceHash } of toWrite) {
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    try {
      // The shared parent as any folder is made; this user's own folder for this user alone.
      mkdirSync(dirname(dirname(cacheFile)), { recursive: true });
      mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
      if (!ownFolder(dirname(cacheFile))) throw new Error("the cache folder is not this user's own");
      const code = script.createCachedData();
      const descriptor = openSync(temporary, "w", 0o600);
      try {
        writeSync(descriptor, Buffer.concat([MAGIC, sourceHash, createHash("sha256").update(code).digest(), code]));
      } finally {
        closeSync(descriptor);
      }
      renameSync(temporary, cacheFile);
      debug("%s: written", basename(cacheFile));
    } catch (error) {
      debug("%s: not written: %s", basename(cacheFile), (error as Error).message);
      try {
        rmSync(temporary, { force: true });
      } catch {
        // A folder that refused the file refuses its removal too: nothing was left there.
      }
    }
  }
}

export = { loadChunk };
