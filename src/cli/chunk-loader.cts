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
 * different functions of the same chunks), named with a short hash of the
 * chunk's bytes, so builds sharing a folder each find their own. The folder:
 * under NODE_COMPILE_CACHE, `gamma-prompt/<Node's folder>`; else, in the
 * system's temporary folder, `gamma-prompt-<user id>/<Node's folder>`, with
 * Node's own cache in `gamma-prompt-<user id>/node` (no folder there is shared
 * between users; when that folder is not this user's own, neither cache is
 * used). Node's folder is named as Node names its own (Node version,
 * architecture, V8's version and flags, user id). Each
 * file starts with the sha256 of the chunk's text and of the code after it: a
 * file of another chunk, a truncated or corrupt file, is never handed to V8.
 *
 * V8 runs the code it is given, so nothing another user controls is read or
 * written (where the system has user ids; on Windows these checks are left
 * out). Each folder the loader makes is made with mode 0700 and used only if,
 * not followed through a symbolic link, it is a folder owned by this user that
 * neither group nor others can write in; each is checked before every read
 * and again before the writes. A cache file is read through a descriptor
 * opened without following a symbolic link, and used only if that descriptor
 * is a regular file owned by this user, with one link, that neither group nor
 * others can write. Code is written to a new file (created exclusively, not
 * through a symbolic link, mode 0600), whole or not at all, and renamed into
 * place.
 *
 * The cache is only ever a saving: with NODE_DISABLE_COMPILE_CACHE set, or
 * any file or folder that cannot be read, written or trusted, the chunks are
 * compiled as if there were none; nothing is printed and no result changes.
 * Files of earlier builds stay until the folder is removed (for the temporary
 * folder, when the system cleans it), as Node's own cache files do.
 * `NODE_DEBUG=gamma-prompt-code-cache` says on stderr what each chunk found.
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
const { closeSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } = fs;
const { basename, dirname, join, resolve } = path;
const { O_CREAT, O_EXCL, O_NOFOLLOW = 0, O_RDONLY, O_WRONLY } = fs.constants;
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
/** The folders the loader makes, each inside the one before; the last holds the cache files. */
const cacheFolders = codeCacheFolders();
const cacheFolder = cacheFolders?.[cacheFolders.length - 1];

/** Loads one chunk (an absolute file name) and returns its exports, once per process like `require`. */
function loadChunk(filename: string): unknown {
  const known = requireCache[filename];
  if (known !== undefined) return known.exports;
  // Hashed as read: hashing the decoded text would encode it to UTF-8 again.
  const bytes = readFileSync(filename);
  const source = bytes.toString("utf8");
  const folder = dirname(filename);
  const sourceHash = createHash("sha256").update(bytes).digest();
  // The chunk's hash in the name: the entry (main.cjs) has the same name in every build.
  const cacheFile = cacheFolder === undefined ? undefined : join(cacheFolder, `${commandName()}-${basename(filename, ".cjs")}-${sourceHash.toString("hex").slice(0, 8)}.cjs`);
  const cachedData = cacheFile === undefined || !ownFolders(false) ? undefined : readCache(cacheFile, sourceHash);
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

/** The folders for this Node's cache files, outermost first, or undefined when Node's compile cache is turned off or cannot be used. */
function codeCacheFolders(): string[] | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  let base: string;
  let enabled: ReturnType<typeof Module.enableCompileCache>;
  try {
    if (process.env.NODE_COMPILE_CACHE) {
      // The folder NODE_COMPILE_CACHE names is the user's choice, for Node's cache and ours.
      base = join(resolve(process.env.NODE_COMPILE_CACHE), "gamma-prompt");
      enabled = Module.enableCompileCache();
    } else if (process.getuid === undefined) {
      base = join(os.tmpdir(), "gamma-prompt");
      enabled = Module.enableCompileCache();
    } else {
      // The system's temporary folder is shared: Node's cache and ours go in a folder of this user's alone,
      // or nowhere.
      base = join(os.tmpdir(), `gamma-prompt-${process.getuid()}`);
      if (!ownFolder(base, true)) return undefined;
      enabled = Module.enableCompileCache(join(base, "node"));
    }
  } catch {
    // No working folder to resolve a relative NODE_COMPILE_CACHE against.
    return undefined;
  }
  // Node's own cache for the packages the CLI loads. Its folder's name is the key for ours: Node version,
  // architecture, V8's cache version (which covers V8's flags) and the user.
  const nodeFolder = Module.getCompileCacheDir();
  if (enabled.status === Module.constants.compileCacheStatus.DISABLED || nodeFolder === undefined) return undefined;
  return [base, join(base, basename(nodeFolder))];
}

/**
 * Whether each of the cache's folders is this user's own and no one else can write in it, checked by name
 * and without following a symbolic link; with `make`, the missing ones are made first (mode 0700).
 */
function ownFolders(make: boolean): boolean {
  return (cacheFolders ?? []).every((folder) => ownFolder(folder, make));
}

/** The same for one folder. */
function ownFolder(folder: string, make: boolean): boolean {
  let stat: fs.Stats;
  try {
    stat = lstatSync(folder);
  } catch (error) {
    // No folder yet: nothing to read; the first write makes it.
    if (!make || (error as NodeJS.ErrnoException).code !== "ENOENT") return false;
    try {
      mkdirSync(folder, { mode: 0o700 });
      stat = lstatSync(folder);
    } catch {
      return false;
    }
  }
  return stat.isDirectory() && ownAndClosed(stat);
}

/** Whether a file or folder belongs to this user and neither group nor others can write it (no user ids: yes). */
function ownAndClosed(stat: fs.Stats): boolean {
  return process.getuid === undefined || (stat.uid === process.getuid() && (stat.mode & 0o022) === 0);
}

/** The command this process runs (`lint`, `check`, ...): the first argument that is no option, as commander reads it. */
function commandName(): string {
  const name = process.argv.slice(2).find((arg) => !arg.startsWith("-"));
  return name !== undefined && /^[a-z][a-z-]{0,31}$/.test(name) ? name : "none";
}

/** The code in a cache file, if the file is this user's own, whole and made from this very text. */
function readCache(file: string, sourceHash: Buffer): Buffer | undefined {
  let content: Buffer;
  let descriptor: number;
  try {
    descriptor = openSync(file, O_RDONLY | O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    // The file as opened, not as named: a name can be swapped after it is looked at.
    const stat = fstatSync(descriptor);
    if (!stat.isFile() || stat.nlink !== 1 || !ownAndClosed(stat)) {
      debug("%s: not this user's own, or others can write it: ignored", basename(file));
      return undefined;
    }
    content = readFileSync(descriptor);
  } catch {
    return undefined;
  } finally {
    closeSync(descriptor);
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
 * whole under a new name of its own and renamed into place, so a reader never sees half a file and two
 * processes writing at once leave one whole file; a write that stops short (a full disk) leaves nothing.
 */
function writeCaches(): void {
  const own = ownFolders(true);
  for (const { script, cacheFile, sourceHash } of toWrite) {
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    let created = false;
    try {
      if (!own) throw new Error("the cache folder is not this user's own, or others can write in it");
      const code = script.createCachedData();
      const bytes = Buffer.concat([MAGIC, sourceHash, createHash("sha256").update(code).digest(), code]);
      // A new file: never one that is there already, nor the target of a symbolic link planted under its name.
      const descriptor = openSync(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
      created = true;
      try {
        for (let done = 0; done < bytes.length; ) {
          const written = writeSync(descriptor, bytes, done, bytes.length - done);
          if (written <= 0) throw new Error(`wrote ${done} of ${bytes.length} bytes`);
          done += written;
        }
      } finally {
        closeSync(descriptor);
      }
      renameSync(temporary, cacheFile);
      created = false;
      debug("%s: written", basename(cacheFile));
    } catch (error) {
      debug("%s: not written: %s", basename(cacheFile), (error as Error).message);
      if (created) {
        try {
          rmSync(temporary, { force: true });
        } catch {
          // A folder that refused the file refuses its removal too: nothing was left there.
        }
      }
    }
  }
}

export = { loadChunk };
