// Copies one collection of the labelled corpus (corpus/collections.json) from
// a copy of its upstream repository into corpus/<name>/, the way the corpus
// keeps every collection:
//
// - each skill folder the entry's `skills` globs name is copied to the same
//   path (plugins/<p>/skills/<s> stays there), with SKILL.md and every
//   Markdown supporting file byte for byte and every other supporting file
//   (scripts, assets, fonts, data) as an empty file of the same name: lint
//   reads only Markdown beside SKILL.md, and only the existence of the rest
//   (licence files are kept whole wherever they are);
// - dotfiles, symbolic links and submodules inside a skill are left out (lint
//   skips them);
// - a skill whose kept files add up to more than `maxSkillBytes` (in the
//   manifest) is left out, so the corpus stays small enough to keep in git;
// - outside the skills, the plugin manifests (.claude-plugin/plugin.json)
//   of the plugins that hold them, and every upstream file a skill's
//   Markdown links to or names as a path, are kept as empty files: lint looks
//   for them there, so they exist here as they do upstream;
// - the entry's licence files are copied where they are upstream, and the
//   entry's globs become the collection's gamma-prompt.config.json.
//
//   node scripts/corpus-import.mjs NAME SOURCE
//
// SOURCE is a git repository (bare or not) holding the entry's commit, or a
// plain folder already in the corpus layout (a copy of a collection whose
// commit is recorded elsewhere). The folder corpus/<name>/ is replaced whole.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, posix, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const corpus = join(here, "..", "corpus");
const [name, source] = process.argv.slice(2);
if (!name || !source) {
  process.stderr.write("usage: node scripts/corpus-import.mjs NAME SOURCE   (SOURCE: a git repository holding the commit, or a folder in the corpus layout)\n");
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(join(corpus, "collections.json"), "utf8"));
const entry = manifest.collections.find((collection) => collection.name === name);
if (!entry) {
  process.stderr.write(`no collection "${name}" in corpus/collections.json\n`);
  process.exit(2);
}

const PLUGIN_MANIFEST = /(?:^|\/)\.[\w-]+-plugin\/plugin\.json$/;
/** Markdown link targets and reference definitions. */
const LINK_TARGET = /\]\(\s*<?([^)\s>]+)>?|^ {0,3}\[[^\]\n]+\]:\s*<?([^\s>]+)>?/gm;
/** Anything written like a relative path with at least one slash. */
const PATH_TOKEN = /(?:\.{1,2}\/)*[\w.@-]+(?:\/[\w.@-]+)+/g;
/** Kept byte for byte: what lint reads (Markdown) and every licence. */
const KEPT_WHOLE = /\.(?:md|markdown|mdx)$|(?:^|\/)(?:licen[cs]e|copying|notice)[^/]*$/i;
const tree = isGitRepository(source) ? gitTree(source, entry.commit) : folderTree(resolve(source));
const patterns = entry.skills.map(globToRegExp);
const excluded = new Map(Object.entries(entry.exclude ?? {}));
const skillFolders = [...new Set(tree.files.filter((file) => posix.basename(file.path) === "SKILL.md").map((file) => posix.dirname(file.path)))]
  .filter((folder) => patterns.some((pattern) => pattern.test(folder)))
  .sort();

const target = join(corpus, name);
rmSync(target, { recursive: true, force: true });
mkdirSync(target, { recursive: true });
const write = (path, bytes) => {
  mkdirSync(dirname(join(target, path)), { recursive: true });
  writeFileSync(join(target, path), bytes);
};
const selected = [];
for (const folder of skillFolders) {
  if (excluded.has(folder) || excluded.has(posix.basename(folder))) continue;
  const kept = tree.files
    .filter((candidate) => candidate.path.startsWith(`${folder}/`))
    .filter((file) => !file.path.slice(folder.length + 1).split("/").some((segment) => segment.startsWith(".")))
    .map((file) => ({ path: file.path, bytes: KEPT_WHOLE.test(file.path) ? tree.read(file) : Buffer.alloc(0) }));
  const size = kept.reduce((sum, { bytes }) => sum + bytes.length, 0);
  if (size > manifest.maxSkillBytes) {
    process.stderr.write(`left out ${folder}: ${size} bytes kept, over maxSkillBytes (${manifest.maxSkillBytes})\n`);
    continue;
  }
  selected.push(folder);
  for (const { path, bytes } of kept) write(path, bytes);
}
// Outside the skills, only what lint looks for: the plugin manifests that
// mark a plugin root, and every file a skill's Markdown links to or names as
// a path (from its own folder, or from a folder above the skill, as lint
// resolves it), kept empty so that it exists here as it does upstream.
const upstream = new Set(tree.files.map((file) => file.path));
const inSkill = (path) => skillFolders.some((folder) => path.startsWith(`${folder}/`));
const pluginRoot = (manifestPath) => manifestPath.slice(0, Math.max(0, manifestPath.lastIndexOf("/.")));
const outside = new Set(tree.files.map((file) => file.path).filter((path) => PLUGIN_MANIFEST.test(path) && selected.some((folder) => pluginRoot(path) === "" || folder.startsWith(`${pluginRoot(path)}/`))));
for (const folder of selected) {
  const ancestors = folder.split("/").map((_, index, parts) => parts.slice(0, index).join("/"));
  for (const file of tree.files.filter((candidate) => candidate.path.startsWith(`${folder}/`) && /\.(?:md|markdown|mdx)$/i.test(candidate.path))) {
    const text = tree.read(file).toString("utf8");
    const from = posix.dirname(file.path);
    const consider = (written, bases) => {
      const clean = safeDecode(written.replace(/[?#].*$/, ""));
      if (clean === "" || /^[a-z][a-z0-9+.-]*:/i.test(clean) || clean.startsWith("/")) return;
      for (const base of bases) {
        const resolved = posix.normalize(base === "" ? clean : `${base}/${clean}`);
        if (resolved.startsWith("..") || !upstream.has(resolved) || inSkill(resolved)) continue;
        outside.add(resolved);
      }
    };
    for (const match of text.matchAll(LINK_TARGET)) consider(match[1] ?? match[2] ?? "", [from]);
    for (const match of text.matchAll(PATH_TOKEN)) consider(match[0], [from, ...ancestors]);
  }
}
for (const path of outside) write(path, Buffer.alloc(0));
const context = outside.size;
for (const licence of entry.licenceFiles) write(licence, tree.read(tree.files.find((file) => file.path === licence) ?? missing(licence)));
write("gamma-prompt.config.json", `${JSON.stringify({ profile: "agentskills", skills: entry.skills }, null, 2)}\n`);
for (const unused of excluded.keys()) {
  if (!skillFolders.some((folder) => folder === unused || posix.basename(folder) === unused)) process.stderr.write(`exclusion "${unused}" matches no skill folder\n`);
}
process.stdout.write(`${name}: ${selected.length} skills, ${context} files outside them\n`);

function safeDecode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function missing(path) {
  process.stderr.write(`no licence file ${path} in the source\n`);
  process.exit(1);
}

function isGitRepository(path) {
  try {
    execFileSync("git", ["-C", path, "rev-parse", "--git-dir"], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
}

/** Regular files at the commit (mode 100644 or 100755), read as blobs. */
function gitTree(gitDir, commit) {
  const listing = execFileSync("git", ["-C", gitDir, "ls-tree", "-r", "-z", commit], { maxBuffer: 1 << 30 }).toString("utf8");
  const files = listing
    .split("\0")
    .filter(Boolean)
    .map((line) => {
      const [meta, path] = line.split("\t");
      const [mode, type, object] = meta.split(" ");
      return { path, mode, type, object };
    })
    .filter((file) => file.type === "blob" && (file.mode === "100644" || file.mode === "100755"));
  return { files, read: (file) => execFileSync("git", ["-C", gitDir, "cat-file", "blob", file.object], { maxBuffer: 1 << 30 }) };
}

function folderTree(root) {
  const files = [];
  const walk = (relative) => {
    for (const entry of readdirSync(join(root, relative), { withFileTypes: true })) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.push({ path });
    }
  };
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    process.stderr.write(`no folder at ${root}\n`);
    process.exit(2);
  }
  walk("");
  return { files, read: (file) => readFileSync(join(root, file.path)) };
}

/** `*` within one segment, `**` across segments; a dot-folder only where the pattern spells the dot. */
function globToRegExp(glob) {
  const parts = glob.split("/").map((segment) => (segment === "**" ? "(?:[^/]+/)*" : `${segment.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}/`));
  return new RegExp(`^${parts.join("").replace(/\/$/, "")}$`);
}
