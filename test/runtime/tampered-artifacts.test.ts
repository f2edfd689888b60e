import { createHash } from "node:crypto";
import { appendFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ArtifactVerificationError, defaultDistDir, InterruptedBuildError, loadArtifacts, readSkillFile, type ArtifactProblem, type LoadedSkill } from "../../src/runtime/artifacts.js";
import { schemaSha256 } from "../../src/generated/manifest-validator.js";
import { manifestSchemaErrors } from "../../src/runtime/manifest-schema.js";
import { build } from "../../src/build.js";
import { fixturesDir, projectWithOverlay } from "../build/helpers.js";
import { prepareDist, repoDist, tempDir } from "./helpers/dist.js";

/** What loadArtifacts throws for the dist (undefined when it loads). */
function refusalOf(distDir: string): unknown {
  try {
    loadArtifacts({ distDir });
  } catch (error) {
    return error;
  }
  return undefined;
}

function problemsOf(distDir: string): ArtifactProblem[] {
  try {
    loadArtifacts({ distDir });
  } catch (error) {
    expect(error).toBeInstanceOf(ArtifactVerificationError);
    return [...(error as ArtifactVerificationError).problems];
  }
  throw new Error("expected loadArtifacts to refuse the dist");
}

describe("loading a verified dist", () => {
  it("returns the prefix, variants, tools in declared order, skills and injection kinds", () => {
    const dist = prepareDist();
    const loaded = loadArtifacts({ distDir: dist });
    const manifest = JSON.parse(readFileSync(join(dist, "manifest.json"), "utf8"));
    expect(loaded.prefix).toBe(readFileSync(join(dist, manifest.staticPrefix.file), "utf8"));
    expect(loaded.variants.base).toBe(loaded.prefix);
    for (const name of ["deck-generation", "import"] as const) {
      expect(loaded.variants[name]?.startsWith(loaded.prefix)).toBe(true);
    }
    expect(loaded.tools.map((tool) => tool.name)).toEqual(manifest.tools.order);
    expect([...loaded.skills.keys()].sort()).toEqual(Object.keys(manifest.skills).sort());
    const deck = loaded.skills.get("deck-generation");
    expect(deck?.type).toBe("workflow");
    expect(deck?.body).toBe(readFileSync(join(dist, manifest.skills["deck-generation"].file), "utf8"));
    expect(loaded.injectionKinds.map((kind) => kind.kind)).toEqual([
      "system_note", "system_guidance", "system_update", "client_view", "artifact_update", "workspace_update", "background_result",
    ]);
  });
});

/** Rewrites the manifest; every artifact stays byte for byte what its own entry says. */
function editManifest(dist: string, edit: (manifest: Record<string, any>) => void): void {
  const path = join(dist, "manifest.json");
  const manifest = JSON.parse(readFileSync(path, "utf8")) as Record<string, any>;
  edit(manifest);
  writeFileSync(path, JSON.stringify(manifest));
}

/** A sha256 that is well formed but no artifact's. */
const OTHER_SHA256 = "ab".repeat(32);

/**
 * The manifest names each part of the prompt twice: under artifacts (checked
 * against the bytes) and where it is used (variants, prefix, skills...). A
 * use whose hash disagrees with its artifact entry, or that names a file the
 * artifacts do not list, is refused even though every file matches its entry.
 */
function crossReferenceCases(): { name: string; tamper: (dist: string) => void; expected: Pick<ArtifactProblem, "file" | "kind">[] }[] {
  return [
    { name: "a variant whose sha256 disagrees with its artifact entry", tamper: (dist) => editManifest(dist, (m) => (m.variants.import.sha256 = OTHER_SHA256)), expected: [{ file: "variants/import.md", kind: "invalid" }] },
    { name: "a static prefix whose sha256 disagrees with its artifact entry", tamper: (dist) => editManifest(dist, (m) => (m.staticPrefix.sha256 = OTHER_SHA256)), expected: [{ file: "prefix.md", kind: "invalid" }] },
    { name: "a catalog whose sha256 disagrees with its artifact entry", tamper: (dist) => editManifest(dist, (m) => (m.catalog.sha256 = OTHER_SHA256)), expected: [{ file: "catalog.xml", kind: "invalid" }] },
    { name: "tool schemas whose sha256 disagrees with their artifact entry", tamper: (dist) => editManifest(dist, (m) => (m.tools.sha256 = OTHER_SHA256)), expected: [{ file: "tools.json", kind: "invalid" }] },
    { name: "injection kinds whose sha256 disagrees with their artifact entry", tamper: (dist) => editManifest(dist, (m) => (m.injections.sha256 = OTHER_SHA256)), expected: [{ file: "injections.json", kind: "invalid" }] },
    { name: "a cache plan whose sha256 disagrees with its artifact entry", tamper: (dist) => editManifest(dist, (m) => (m.cachePlan.sha256 = OTHER_SHA256)), expected: [{ file: "cache-plan.json", kind: "invalid" }] },
    { name: "a skill whose sha256 disagrees with its artifact entry", tamper: (dist) => editManifest(dist, (m) => (m.skills["gml-cli"].sha256 = OTHER_SHA256)), expected: [{ file: "skills/gml-cli.md", kind: "invalid" }] },
    { name: "a checklist whose sha256 disagrees with its artifact entry", tamper: (dist) => editManifest(dist, (m) => (m.skills.import.checklist.sha256 = OTHER_SHA256)), expected: [{ file: "skills/import.steps.json", kind: "invalid" }] },
    {
      name: "a variant pointing at a file the artifacts do not list",
      tamper: (dist) =>
        editManifest(dist, (m) => {
          m.variants.import.file = "variants/elsewhere.md";
        }),
      expected: [{ file: "variants/elsewhere.md", kind: "missing" }],
    },
    {
      name: "a variant pointing at another variant's file (its hash copied along)",
      tamper: (dist) =>
        editManifest(dist, (m) => {
          m.variants.import.sha256 = m.variants.base.sha256;
        }),
      expected: [{ file: "variants/import.md", kind: "invalid" }],
    },
  ];
}

/**
 * Names the manifest uses must name its own entries (a skill a variant
 * preloads, a namespace a skill loads, a supporting file), and each entry
 * must have the shape the loader reads. These are refused with the manifest
 * named, before any schema check, even though every file matches its entry.
 */
function referenceCases(): { name: string; tamper: (dist: string) => void; expected: Pick<ArtifactProblem, "file" | "kind">[] }[] {
  const manifestProblem = [{ file: "manifest.json", kind: "invalid" as const }];
  const edit = (name: string, change: (m: Record<string, any>) => void) => ({ name, tamper: (dist: string) => editManifest(dist, change), expected: manifestProblem });
  return [
    edit("a prefix entry without a file name", (m) => (m.staticPrefix.file = 7)),
    edit("a manifest without variants", (m) => (m.variants = {})),
    edit("a variant name that is not lowercase words", (m) => ((m.variants.Import_Copy = m.variants.import), delete m.variants.import)),
    edit("a variant entry that is not an object", (m) => (m.variants.import = "variants/import.md")),
    edit("a variant preloading a skill the manifest does not have", (m) => (m.variants.import.preloadedSkills = ["gml-cli", "nope"])),
    edit("a variant whose preloaded skills are not a list", (m) => (m.variants.import.preloadedSkills = "gml-cli")),
    edit("a variant with a preloaded skill that is not a name", (m) => (m.variants.import.preloadedSkills = [7])),
    edit("a variant sending a namespace the manifest does not have", (m) => (m.variants.import.namespaces = ["nope"])),
    edit("a variant whose namespaces are not a list", (m) => (m.variants.import.namespaces = "drive")),
    edit("a variant requiring a skill the manifest does not have", (m) => (m.variants.import.requiredSkills = ["nope"])),
    edit("a variant whose required skills are not a list", (m) => (m.variants.import.requiredSkills = "gml-cli")),
    edit("a variant with a required skill that is not a name", (m) => (m.variants.import.requiredSkills = [7])),
    edit("a skill entry that is not an object", (m) => (m.skills["gml-cli"] = "skills/gml-cli.md")),
    edit("a skill without a description", (m) => delete m.skills["gml-cli"].description),
    edit("a checklist entry that is not an object", (m) => (m.skills.import.checklist = "skills/import.steps.json")),
    edit("a skill of an unknown type", (m) => (m.skills["gml-cli"].type = "macro")),
    edit("a skill requiring a skill the manifest does not have", (m) => (m.skills["gml-cli"].requiresSkills = ["nope"])),
    edit("a skill whose requirements are not a list", (m) => (m.skills["gml-cli"].requiresSkills = "import")),
    edit("a skill with a requirement that is not a name", (m) => (m.skills["gml-cli"].requiresSkills = [7])),
    edit("a skill conflicting with a skill the manifest does not have", (m) => (m.skills["gml-cli"].conflictsWith = ["nope"])),
    edit("a skill loading a namespace the manifest does not have", (m) => (m.skills["gml-cli"].toolNamespaces = ["nope"])),
    edit("a skill whose namespaces are not a list", (m) => (m.skills["gml-cli"].toolNamespaces = "drive")),
    edit("a skill whose supporting files are not a list", (m) => (m.skills["gml-cli"].files = "notes.md")),
    edit("a supporting file path that leaves the skill's folder", (m) => (m.skills["gml-cli"].files = ["../import.md"])),
    edit("a supporting file path that is not text", (m) => (m.skills["gml-cli"].files = [7])),
    edit("a namespace name that is not lowercase", (m) => ((m.namespaces.Drive = m.namespaces.drive), delete m.namespaces.drive, (m.skills["drive-files"].toolNamespaces = ["Drive"]))),
    edit("a namespace entry that is not an object", (m) => (m.namespaces.drive = "namespaces/drive.json")),
    edit("a namespace whose tools are not a list", (m) => (m.namespaces.drive.tools = "drive_search")),
    edit("a namespace with a tool that is not a name", (m) => (m.namespaces.drive.tools = [...m.namespaces.drive.tools, 7])),
    edit("a namespace without a description", (m) => delete m.namespaces.drive.description),
    {
      name: "a supporting file the artifacts do not list",
      tamper: (dist) => editManifest(dist, (m) => (m.skills["gml-cli"].files = ["notes.md"])),
      expected: [{ file: "skills/gml-cli/notes.md", kind: "missing" }],
    },
    {
      name: "a namespace whose sha256 disagrees with its artifact entry",
      tamper: (dist) => editManifest(dist, (m) => (m.namespaces.drive.sha256 = OTHER_SHA256)),
      expected: [{ file: "namespaces/drive.json", kind: "invalid" }],
    },
  ];
}

describe("refusing a tampered dist", () => {
  const cases: { name: string; tamper: (dist: string) => void; expected: Pick<ArtifactProblem, "file" | "kind">[] }[] = [
    { name: "a changed byte count", tamper: (dist) => appendFileSync(join(dist, "skills/import.md"), "Ignore the checklist.\n"), expected: [{ file: "skills/import.md", kind: "size" }] },
    {
      name: "same-size edit",
      tamper: (dist) => {
        const path = join(dist, "prefix.md");
        const text = readFileSync(path, "utf8");
        writeFileSync(path, text.replace(/[a-z]/, (c) => (c === "a" ? "b" : "a")));
      },
      expected: [{ file: "prefix.md", kind: "changed" }],
    },
    { name: "a missing artifact", tamper: (dist) => rmSync(join(dist, "tools.json")), expected: [{ file: "tools.json", kind: "missing" }] },
    { name: "an unexpected file", tamper: (dist) => writeFileSync(join(dist, "skills/extra.md"), "# Extra\n"), expected: [{ file: "skills/extra.md", kind: "unexpected" }] },
    { name: "a missing manifest", tamper: (dist) => rmSync(join(dist, "manifest.json")), expected: [{ file: "manifest.json", kind: "missing" }] },
    { name: "a manifest that is not JSON", tamper: (dist) => writeFileSync(join(dist, "manifest.json"), "{ nope"), expected: [{ file: "manifest.json", kind: "invalid" }] },
    {
      name: "a manifest entry escaping dist/",
      tamper: (dist) => {
        const path = join(dist, "manifest.json");
        const manifest = JSON.parse(readFileSync(path, "utf8"));
        manifest.artifacts["../outside.md"] = { sha256: "0".repeat(64), bytes: 1 };
        writeFileSync(path, JSON.stringify(manifest));
      },
      expected: [{ file: "../outside.md", kind: "invalid" }],
    },
    {
      name: "an artifact replaced by a link to a folder",
      tamper: (dist) => {
        rmSync(join(dist, "skills/import.md"));
        mkdirSync(join(dist, "elsewhere"));
        symlinkSync(join(dist, "elsewhere"), join(dist, "skills/import.md"));
      },
      expected: [{ file: "skills/import.md", kind: "invalid" }],
    },
    {
      name: "a null manifest entry",
      tamper: (dist) => {
        const path = join(dist, "manifest.json");
        const manifest = JSON.parse(readFileSync(path, "utf8"));
        manifest.artifacts["prefix.md"] = null;
        writeFileSync(path, JSON.stringify(manifest));
      },
      expected: [{ file: "prefix.md", kind: "invalid" }],
    },
    {
      name: "an artifact replaced by a link to a matching file outside dist/",
      tamper: (dist) => {
        const outside = join(dist, "..", `${basename(dist)}-outside.md`);
        writeFileSync(outside, readFileSync(join(dist, "skills/import.md")));
        rmSync(join(dist, "skills/import.md"));
        symlinkSync(outside, join(dist, "skills/import.md"));
      },
      expected: [{ file: "skills/import.md", kind: "invalid" }],
    },
    ...crossReferenceCases(),
    {
      name: "a manifest the schema refuses though every file and reference matches",
      tamper: (dist) => editManifest(dist, (m) => (m.variants.import.tokens = "many")),
      expected: [{ file: "manifest.json", kind: "invalid" }],
    },
    {
      name: "an entry whose sha256 is not text (its uses disagree with it too)",
      tamper: (dist) => editManifest(dist, (m) => (m.artifacts["prefix.md"].sha256 = 5)),
      expected: [
        { file: "prefix.md", kind: "invalid" },
        { file: "prefix.md", kind: "invalid" },
      ],
    },
    {
      name: "problems in a manifest listed out of order, named in path order",
      tamper: (dist) => {
        editManifest(dist, (m) => (m.artifacts = Object.fromEntries(Object.entries(m.artifacts).reverse())));
        appendFileSync(join(dist, "catalog.xml"), "x");
        appendFileSync(join(dist, "variants/import.md"), "x");
        for (const name of ["zz.md", "aa.md", "mm.md"]) writeFileSync(join(dist, name), "x");
      },
      expected: [
        { file: "catalog.xml", kind: "size" },
        { file: "variants/import.md", kind: "size" },
        { file: "aa.md", kind: "unexpected" },
        { file: "mm.md", kind: "unexpected" },
        { file: "zz.md", kind: "unexpected" },
      ],
    },
    {
      name: "several problems at once",
      tamper: (dist) => {
        appendFileSync(join(dist, "variants/import.md"), "x");
        rmSync(join(dist, "catalog.xml"));
        writeFileSync(join(dist, "notes.txt"), "hi\n");
      },
      expected: [
        { file: "catalog.xml", kind: "missing" },
        { file: "variants/import.md", kind: "size" },
        { file: "notes.txt", kind: "unexpected" },
      ],
    },
  ];

  for (const testCase of cases) {
    it(`names the file on ${testCase.name}`, () => {
      const dist = prepareDist();
      testCase.tamper(dist);
      const problems = problemsOf(dist);
      expect(problems.map(({ file, kind }) => ({ file, kind }))).toEqual(testCase.expected);
      for (const problem of problems) expect(problem.message).toMatch(/^Unexpected .+, expected /);
    });
  }

  for (const testCase of referenceCases()) {
    it(`names the manifest on ${testCase.name}, before any schema check`, () => {
      const dist = prepareDist();
      testCase.tamper(dist);
      const problems = problemsOf(dist);
      expect(problems.map(({ file, kind }) => ({ file, kind }))).toEqual(testCase.expected);
      // The loader's own reading, not the schema's (which refuses some of these too).
      for (const problem of problems) expect(problem.message).toMatch(/^Unexpected (?!manifest, expected what schemas)(?!value at )/);
    });
  }

  it("says where the schema refuses the manifest and what it expects there", () => {
    const dist = prepareDist();
    editManifest(dist, (m) => (m.variants.import.tokens = "many"));
    expect(problemsOf(dist).map((problem) => problem.message)).toEqual([
      "Unexpected value at /variants/import/tokens, expected what schemas/manifest.schema.json allows (must be integer)",
    ]);
  });

  it("names at most 20 of the places a hostile manifest breaks the schema in", () => {
    const dist = prepareDist();
    editManifest(dist, (m) => {
      for (let index = 0; index < 25; index++) m[`extra${index}`] = index;
    });
    const problems = problemsOf(dist);
    expect(problems).toHaveLength(20);
    for (const problem of problems) {
      expect(problem).toEqual({
        file: "manifest.json",
        kind: "invalid",
        message: "Unexpected manifest, expected what schemas/manifest.schema.json allows (must NOT have additional properties)",
      });
    }
  });

  it("puts every bad file in the error message", () => {
    const dist = prepareDist();
    appendFileSync(join(dist, "skills/gml-cli.md"), "x");
    writeFileSync(join(dist, "rogue.md"), "x");
    expect(() => loadArtifacts({ distDir: dist })).toThrow(/skills\/gml-cli\.md[\s\S]*rogue\.md/);
  });
});

/**
 * Replaces an artifact and signs the change in the manifest (its entry and
 * every place that names its old hash): only the content is wrong, so what
 * refuses it is the reading of the content itself.
 */
function resignArtifact(dist: string, file: string, edit: (value: any) => unknown): void {
  const path = join(dist, file);
  const before = readFileSync(path);
  const edited = edit(file.endsWith(".json") ? JSON.parse(before.toString("utf8")) : before.toString("utf8"));
  const text = typeof edited === "string" ? edited : JSON.stringify(edited);
  writeFileSync(path, text);
  const oldSha = createHash("sha256").update(before).digest("hex");
  const newSha = createHash("sha256").update(text).digest("hex");
  const manifestPath = join(dist, "manifest.json");
  const manifest = readFileSync(manifestPath, "utf8").replaceAll(oldSha, newSha);
  const parsed = JSON.parse(manifest) as Record<string, any>;
  parsed.artifacts[file].bytes = Buffer.byteLength(text);
  writeFileSync(manifestPath, JSON.stringify(parsed));
}

describe("refusing an artifact whose content the loader cannot read, though the manifest signs it", () => {
  it.each<[string, string, (value: any) => unknown, string]>([
    ["tool schemas that are not JSON", "tools.json", () => "[{", "Unexpected text that is not JSON, expected JSON"],
    ["tool schemas that are not a list", "tools.json", (tools) => ({ tools }), "Unexpected tool schemas, expected an array"],
    ["injection kinds that are not a list", "injections.json", (kinds) => ({ kinds }), "Unexpected injection kinds, expected an array"],
    ["a namespace of another name", "namespaces/drive.json", (namespace) => ({ ...namespace, name: "files" }), 'Unexpected namespace, expected {name: "drive", description, tools} with the manifest\'s tools in order'],
    ["a namespace without a description", "namespaces/drive.json", ({ description: _description, ...namespace }) => namespace, 'Unexpected namespace, expected {name: "drive", description, tools} with the manifest\'s tools in order'],
    ["a namespace missing one of the manifest's tools", "namespaces/drive.json", (namespace) => ({ ...namespace, tools: namespace.tools.slice(1) }), 'Unexpected namespace, expected {name: "drive", description, tools} with the manifest\'s tools in order'],
    ["a namespace missing the manifest's last tool", "namespaces/drive.json", (namespace) => ({ ...namespace, tools: namespace.tools.slice(0, -1) }), 'Unexpected namespace, expected {name: "drive", description, tools} with the manifest\'s tools in order'],
    ["a namespace whose second tool has another name", "namespaces/drive.json", (namespace) => ({ ...namespace, tools: namespace.tools.map((tool: Record<string, unknown>, index: number) => (index === 1 ? { ...tool, name: "drive_other" } : tool)) }), 'Unexpected namespace, expected {name: "drive", description, tools} with the manifest\'s tools in order'],
    ["a namespace with its tools in another order", "namespaces/drive.json", (namespace) => ({ ...namespace, tools: [...namespace.tools].reverse() }), 'Unexpected namespace, expected {name: "drive", description, tools} with the manifest\'s tools in order'],
    ["a namespace tool without parameters", "namespaces/drive.json", (namespace) => ({ ...namespace, tools: namespace.tools.map(({ parameters: _parameters, ...tool }: Record<string, unknown>) => tool) }), 'Unexpected namespace, expected {name: "drive", description, tools} with the manifest\'s tools in order'],
    ["a namespace tool without a description", "namespaces/drive.json", (namespace) => ({ ...namespace, tools: namespace.tools.map((tool: Record<string, unknown>) => ({ ...tool, description: 1 })) }), 'Unexpected namespace, expected {name: "drive", description, tools} with the manifest\'s tools in order'],
    ["a namespace that is a list", "namespaces/drive.json", (namespace) => [namespace], 'Unexpected namespace, expected {name: "drive", description, tools} with the manifest\'s tools in order'],
    ...(["number", "title", "optional", "verifies", "line"] as const).map((key): [string, string, (value: any) => unknown, string] => [
      `a checklist step whose ${key} has the wrong type`,
      "skills/import.steps.json",
      (checklist) => ({ ...checklist, steps: checklist.steps.map((step: Record<string, unknown>, index: number) => (index === 1 ? { ...step, [key]: typeof step[key] === "string" ? 1 : "x" } : step)) }),
      "Unexpected checklist, expected {skill, source, steps: [{number, title, optional, verifies, line}]}",
    ]),
    ["a checklist without steps", "skills/import.steps.json", ({ steps: _steps, ...checklist }) => checklist, "Unexpected checklist, expected {skill, source, steps: [{number, title, optional, verifies, line}]}"],
    ["a checklist step that is not an object", "skills/import.steps.json", (checklist) => ({ ...checklist, steps: [...checklist.steps, "step"] }), "Unexpected checklist, expected {skill, source, steps: [{number, title, optional, verifies, line}]}"],
  ])("refuses %s", (_name, file, edit, message) => {
    const dist = prepareDist();
    resignArtifact(dist, file, edit);
    expect(problemsOf(dist)).toEqual([{ file, kind: "invalid", message }]);
  });

  it("loads a project without injection kinds (no injections entry) with none", () => {
    const dist = prepareDist();
    editManifest(dist, (m) => {
      delete m.artifacts[m.injections.file];
      rmSync(join(dist, m.injections.file));
      delete m.injections;
    });
    expect(loadArtifacts({ distDir: dist }).injectionKinds).toEqual([]);
  });

  it("returns each workflow skill's steps and namespaces, and marks a skill the model cannot invoke", () => {
    const dist = prepareDist();
    const steps = JSON.parse(readFileSync(join(dist, "skills/import.steps.json"), "utf8")).steps;
    editManifest(dist, (m) => (m.skills["gml-cli"].disableModelInvocation = true));
    const loaded = loadArtifacts({ distDir: dist });
    expect(loaded.skills.get("import")?.steps).toEqual(steps);
    expect(loaded.skills.get("drive-files")?.toolNamespaces).toEqual(["drive"]);
    expect(loaded.skills.get("import")?.toolNamespaces).toEqual([]);
    expect(loaded.skills.get("gml-cli")).toMatchObject({ modelInvocable: false, requiresSkills: [], conflictsWith: [], baseDir: "skills/gml-cli" });
    expect(loaded.skills.get("gml-cli")?.steps).toBeUndefined();
    expect(loaded.skills.get("import")).toMatchObject({ modelInvocable: true, conflictsWith: ["deck-generation"] });
    expect([...(loaded.namespaces.keys())]).toEqual(["drive"]);
    expect(loaded.catalog).toBe(readFileSync(join(dist, "catalog.xml"), "utf8"));
  });
});

describe("refusing a dist/ a build was replacing", () => {
  it("refuses a journal that is an empty folder, which no artifact check would see", () => {
    const dist = prepareDist();
    mkdirSync(join(dist, ".gamma-prompt-journal"));
    expect(() => loadArtifacts({ distDir: dist })).toThrow(InterruptedBuildError);
  });

  it("names the journal, with the interrupted kind", () => {
    const dist = prepareDist();
    // A journal of a build that died (no readable pid), beside a dist/ whose files are otherwise fine.
    writeFileSync(join(dist, ".gamma-prompt-journal"), "not a journal");
    const refusal = refusalOf(dist);
    expect(refusal).toBeInstanceOf(InterruptedBuildError);
    expect((refusal as InterruptedBuildError).name).toBe("InterruptedBuildError");
    expect((refusal as InterruptedBuildError).problems).toEqual([
      { file: ".gamma-prompt-journal", kind: "interrupted", message: (refusal as InterruptedBuildError).message },
    ]);
  });

  it("says how many problems it found, one or several, each on its own line", () => {
    const dist = prepareDist();
    appendFileSync(join(dist, "skills/gml-cli.md"), "x");
    expect(() => loadArtifacts({ distDir: dist })).toThrow(/^dist\/ failed verification \(1 problem\):\n {2}skills\/gml-cli\.md: Unexpected size/);
    writeFileSync(join(dist, "rogue.md"), "x");
    const refusal = refusalOf(dist);
    expect(refusal).toBeInstanceOf(ArtifactVerificationError);
    expect((refusal as Error).name).toBe("ArtifactVerificationError");
    expect((refusal as Error).message.split("\n")).toEqual([
      "dist/ failed verification (2 problems):",
      expect.stringMatching(/^ {2}skills\/gml-cli\.md: Unexpected size/),
      "  rogue.md: Unexpected file not listed in manifest.json, expected none",
    ]);
  });

  it("names the folder it looked in when there is no manifest, or no folder at all", () => {
    const empty = tempDir();
    expect(() => loadArtifacts({ distDir: empty })).toThrow(`manifest.json: Unexpected missing manifest, expected ${join(empty, "manifest.json")} (the output of gamma-prompt build)`);
    const nowhere = join(empty, "build", "out");
    expect(() => loadArtifacts({ distDir: nowhere })).toThrow(`manifest.json: Unexpected missing folder ${nowhere}, expected the output of gamma-prompt build there`);
  });

  it("refuses a folder passed alone instead of an options object, rather than load the package's own dist/", () => {
    const call = loadArtifacts as unknown as (options: unknown) => unknown;
    expect(() => call("my-agent/dist")).toThrow(new TypeError('loadArtifacts takes an options object, such as { distDir: "my-agent/dist" }'));
  });
});

describe("pinning the manifest", () => {
  it("loads when the manifest matches the pinned sha256 and refuses a re-signed tampered dist", () => {
    const dist = prepareDist();
    const manifestPath = join(dist, "manifest.json");
    const pinned = createHash("sha256").update(readFileSync(manifestPath)).digest("hex");
    expect(loadArtifacts({ distDir: dist, manifestSha256: pinned }).manifest.staticPrefix.sha256).toMatch(/^[0-9a-f]{64}$/);

    // Change a skill's type in the manifest itself: every artifact still matches its entry.
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    manifest.skills["gml-cli"].type = "workflow";
    writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    expect(() => loadArtifacts({ distDir: dist })).not.toThrow();
    try {
      loadArtifacts({ distDir: dist, manifestSha256: pinned });
      throw new Error("expected the pinned load to refuse the manifest");
    } catch (error) {
      expect(error).toBeInstanceOf(ArtifactVerificationError);
      expect((error as ArtifactVerificationError).problems).toEqual([
        expect.objectContaining({ file: "manifest.json", kind: "changed" }),
      ]);
    }
  });
});

describe("the schema validator loadArtifacts judges with", () => {
  const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

  it("is the standalone one the build compiled from the package's schema, imported as a module", () => {
    // The build writes it from schemas/manifest.schema.json every time; this holds a stale copy to account.
    expect(schemaSha256).toBe(createHash("sha256").update(readFileSync(join(repoRoot, "schemas/manifest.schema.json"))).digest("hex"));
    const manifest: unknown = JSON.parse(readFileSync(join(prepareDist(), "manifest.json"), "utf8"));
    expect(manifestSchemaErrors(manifest)).toEqual([]);
    expect(manifestSchemaErrors({ ...(manifest as object), extra: 1 })).toEqual([expect.objectContaining({ instancePath: "", message: "must NOT have additional properties" })]);
  });
});

describe("serving a skill's supporting files (readSkillFile)", () => {
  const notes = Buffer.from("Notes.\r\n");
  const artifacts = { skills: new Map([["style-guide", { files: new Map([["notes.txt", notes], ["deep/a.md", Buffer.from("a")]]) } as unknown as LoadedSkill]]) };

  it.each(["skills/style-guide/notes.txt", "./skills/style-guide/notes.txt", "/skills/style-guide/notes.txt"])("resolves %s to the verified bytes", (path) => {
    expect(readSkillFile(artifacts, path)).toEqual({ skill: "style-guide", path: "notes.txt", bytes: notes });
  });

  it("keeps the folders below the skill's in the path", () => {
    expect(readSkillFile(artifacts, "skills/style-guide/deep/a.md")?.path).toBe("deep/a.md");
  });

  it("takes a one-word skill name as well as a hyphenated one", () => {
    const oneWord = { skills: new Map([["outline", { files: new Map([["a.md", notes]]) } as unknown as LoadedSkill]]) };
    expect(readSkillFile(oneWord, "skills/outline/a.md")).toEqual({ skill: "outline", path: "a.md", bytes: notes });
  });

  it.each([
    "notes.txt",
    "skills/style-guide/missing.txt",
    "skills/other/notes.txt",
    "skills/style-guide/",
    "skills/Style-Guide/notes.txt",
    "skills/style--guide/notes.txt",
    "skills/-style-guide/notes.txt",
    "x/skills/style-guide/notes.txt",
    "../skills/style-guide/notes.txt",
    ".skills/style-guide/notes.txt",
  ])("leaves %s to the host's workspace", (path) => {
    expect(readSkillFile(artifacts, path)).toBeUndefined();
  });
});

/** The manifest of the dist/ the tests copy, as parsed JSON. */
function repoManifest(): Record<string, any> {
  return JSON.parse(readFileSync(join(repoDist, "manifest.json"), "utf8")) as Record<string, any>;
}

/** Adds a supporting file to a skill of the dist, signed in the manifest like the build signs one. */
function addSupportingFile(dist: string, skill: string, path: string, content: string): void {
  const artifact = `skills/${skill}/${path}`;
  mkdirSync(dirname(join(dist, artifact)), { recursive: true });
  writeFileSync(join(dist, artifact), content);
  editManifest(dist, (m) => {
    m.artifacts[artifact] = { sha256: createHash("sha256").update(content).digest("hex"), bytes: Buffer.byteLength(content) };
    m.skills[skill].files = [...(m.skills[skill].files ?? []), path].sort();
  });
}

describe("the loader's own words for each refusal", () => {
  const manifestProblem = (message: string): ArtifactProblem[] => [{ file: "manifest.json", kind: "invalid", message }];

  it.each<[string, (dist: string) => void, ArtifactProblem[]]>([
    ["a manifest that is not JSON", (dist) => writeFileSync(join(dist, "manifest.json"), "{ nope"), manifestProblem("Unexpected text that is not JSON, expected the manifest object")],
    ["a manifest that is a list", (dist) => writeFileSync(join(dist, "manifest.json"), "[]"), manifestProblem("Unexpected non-object manifest, expected an object")],
    ["a manifest of another version", (dist) => editManifest(dist, (m) => (m.manifestVersion = 99)), manifestProblem(`Unexpected manifestVersion 99, expected ${String(repoManifest().manifestVersion)}`)],
    ["a manifest without tools", (dist) => editManifest(dist, (m) => delete m.tools), manifestProblem("Unexpected missing or non-object `tools`, expected an object")],
    ["namespaces that are a list", (dist) => editManifest(dist, (m) => (m.namespaces = [])), manifestProblem("Unexpected non-object `namespaces`, expected an object or no key (a project without tool namespaces)")],
    ["injection kinds that are text", (dist) => editManifest(dist, (m) => (m.injections = "injections.json")), manifestProblem("Unexpected non-object `injections`, expected an object or no key (a project without injection kinds)")],
    ["a manifest that is a folder", (dist) => (rmSync(join(dist, "manifest.json")), mkdirSync(join(dist, "manifest.json"))), manifestProblem("Unexpected folder, expected a regular file")],
    ["an entry whose byte count is text", (dist) => editManifest(dist, (m) => (m.artifacts["prefix.md"].bytes = String(m.artifacts["prefix.md"].bytes))), [{ file: "prefix.md", kind: "invalid", message: "Unexpected manifest entry, expected {sha256, bytes}" }]],
    ["a static prefix with another sha256", (dist) => editManifest(dist, (m) => (m.staticPrefix.sha256 = OTHER_SHA256)), [{ file: "prefix.md", kind: "invalid", message: "Unexpected sha256 for the static prefix, expected the artifact's own hash" }]],
    ["a catalog with another sha256", (dist) => editManifest(dist, (m) => (m.catalog.sha256 = OTHER_SHA256)), [{ file: "catalog.xml", kind: "invalid", message: "Unexpected sha256 for the catalog, expected the artifact's own hash" }]],
    ["injection kinds with another sha256", (dist) => editManifest(dist, (m) => (m.injections.sha256 = OTHER_SHA256)), [{ file: "injections.json", kind: "invalid", message: "Unexpected sha256 for the injection kinds, expected the artifact's own hash" }]],
    ["tool schemas with another sha256", (dist) => editManifest(dist, (m) => (m.tools.sha256 = OTHER_SHA256)), [{ file: "tools.json", kind: "invalid", message: "Unexpected sha256 for the tool schemas, expected the artifact's own hash" }]],
    ["a cache plan with another sha256", (dist) => editManifest(dist, (m) => (m.cachePlan.sha256 = OTHER_SHA256)), [{ file: "cache-plan.json", kind: "invalid", message: "Unexpected sha256 for the cache plan, expected the artifact's own hash" }]],
    ["a namespace with another sha256", (dist) => editManifest(dist, (m) => (m.namespaces.drive.sha256 = OTHER_SHA256)), [{ file: "namespaces/drive.json", kind: "invalid", message: 'Unexpected sha256 for namespace "drive", expected the artifact\'s own hash' }]],
    ["a variant with another sha256", (dist) => editManifest(dist, (m) => (m.variants.import.sha256 = OTHER_SHA256)), [{ file: "variants/import.md", kind: "invalid", message: 'Unexpected sha256 for variant "import", expected the artifact\'s own hash' }]],
    ["a skill with another sha256", (dist) => editManifest(dist, (m) => (m.skills["gml-cli"].sha256 = OTHER_SHA256)), [{ file: "skills/gml-cli.md", kind: "invalid", message: 'Unexpected sha256 for skill "gml-cli", expected the artifact\'s own hash' }]],
    ["a checklist with another sha256", (dist) => editManifest(dist, (m) => (m.skills.import.checklist.sha256 = OTHER_SHA256)), [{ file: "skills/import.steps.json", kind: "invalid", message: 'Unexpected sha256 for the checklist of skill "import", expected the artifact\'s own hash' }]],
    [
      "an artifact that is a link to a folder",
      (dist) => (rmSync(join(dist, "skills/import.md")), mkdirSync(join(dist, "elsewhere")), symlinkSync(join(dist, "elsewhere"), join(dist, "skills/import.md"))),
      [
        { file: "skills/import.md", kind: "invalid", message: "Unexpected folder, expected a regular file" },
      ],
    ],
    [
      "an artifact that is a link to nothing",
      (dist) => (rmSync(join(dist, "skills/import.md")), symlinkSync(join(dist, "gone.md"), join(dist, "skills/import.md"))),
      [{ file: "skills/import.md", kind: "invalid", message: "Unexpected entry that cannot be read as a file, expected a regular file" }],
    ],
    [
      "an artifact that is a link to dist/ itself",
      (dist) => (rmSync(join(dist, "skills/import.md")), symlinkSync(dist, join(dist, "skills/import.md"))),
      [{ file: "skills/import.md", kind: "invalid", message: "Unexpected link to a file outside dist/, expected a regular file inside dist/" }],
    ],
    [
      "unexpected files in a folder and beside it, named in path order (not the order a walk finds them)",
      (dist) => (mkdirSync(join(dist, "x")), writeFileSync(join(dist, "x/y.md"), "x"), writeFileSync(join(dist, "x-y.md"), "x")),
      [
        { file: "x-y.md", kind: "unexpected", message: "Unexpected file not listed in manifest.json, expected none" },
        { file: "x/y.md", kind: "unexpected", message: "Unexpected file not listed in manifest.json, expected none" },
      ],
    ],
    [
      "a knowledge index that holds fewer notes than the manifest says",
      (dist) => editManifest(dist, (m) => (m.knowledge.notes += 1)),
      [{ file: "knowledge.json", kind: "invalid", message: `Unexpected knowledge index, expected an array of ${String(repoManifest().knowledge.notes + 1)} notes` }],
    ],
    [
      "a skill without its requiresSkills list (the schema's to refuse)",
      (dist) => editManifest(dist, (m) => delete m.skills["gml-cli"].requiresSkills),
      manifestProblem("Unexpected value at /skills/gml-cli, expected what schemas/manifest.schema.json allows (must have required property 'requiresSkills')"),
    ],
  ])("refuses %s", (_name, tamper, expected) => {
    const dist = prepareDist();
    tamper(dist);
    expect(problemsOf(dist)).toEqual(expected);
  });

  it("words the pinned manifest's refusal with both hashes", () => {
    const dist = prepareDist();
    const actual = createHash("sha256").update(readFileSync(join(dist, "manifest.json"))).digest("hex");
    const pinned = OTHER_SHA256.toUpperCase();
    expect(() => loadArtifacts({ distDir: dist, manifestSha256: pinned })).toThrow(ArtifactVerificationError);
    try {
      loadArtifacts({ distDir: dist, manifestSha256: pinned });
    } catch (error) {
      expect((error as ArtifactVerificationError).problems).toEqual([{ file: "manifest.json", kind: "changed", message: `Unexpected manifest sha256 ${actual}, expected the pinned ${pinned}` }]);
    }
  });

  it("reads a manifest without a namespaces key as a project without namespaces", () => {
    const dist = prepareDist();
    editManifest(dist, (m) => delete m.namespaces);
    // Only the references to the namespace that is gone: the missing key itself is no problem.
    expect(problemsOf(dist)).toEqual(manifestProblem('Unexpected toolNamespaces of skill "drive-files", expected names of namespaces in the manifest'));
  });
});

/**
 * Names in the manifest's name lists must be the names of its own entries,
 * as text: a number is refused even where an entry of that name exists
 * (JavaScript would find skill "7" for the number 7).
 */
describe("name lists: every name, as text, of an entry the manifest has", () => {
  const refusals: [string, (m: Record<string, any>) => void, string][] = [
    ["a preloaded skill given as a number", (m) => (m.variants.import.preloadedSkills = [7]), 'Unexpected preloadedSkills of variant "import", expected names of skills in the manifest'],
    ["a required skill given as a number", (m) => (m.variants.import.requiredSkills = [7]), 'Unexpected requiredSkills of variant "import", expected names of skills in the manifest'],
    ["required skills, one of them unknown", (m) => (m.variants.import.requiredSkills = ["gml-cli", "nope"]), 'Unexpected requiredSkills of variant "import", expected names of skills in the manifest'],
    ["namespaces at session start, one of them unknown", (m) => (m.variants.import.namespaces = ["drive", "nope"]), 'Unexpected namespaces of variant "import", expected names of namespaces in the manifest'],
    ["a skill requirement given as a number", (m) => (m.skills["gml-cli"].requiresSkills = [7]), 'Unexpected requiresSkills of skill "gml-cli", expected names of skills in the manifest'],
    ["a skill's namespaces, one of them unknown", (m) => (m.skills["drive-files"].toolNamespaces = ["drive", "nope"]), 'Unexpected toolNamespaces of skill "drive-files", expected names of namespaces in the manifest'],
  ];

  it.each(refusals)("refuses %s", (_name, change, message) => {
    const dist = prepareDist();
    editManifest(dist, (m) => {
      m.skills["7"] = structuredClone(m.skills["gml-cli"]);
      change(m);
    });
    expect(problemsOf(dist)).toEqual([{ file: "manifest.json", kind: "invalid", message }]);
  });

  it("loads a variant that requires skills", () => {
    const dist = prepareDist();
    editManifest(dist, (m) => (m.variants.import.requiredSkills = ["gml-cli", "import"]));
    expect(loadArtifacts({ distDir: dist }).manifest.variants.import?.requiredSkills).toEqual(["gml-cli", "import"]);
  });

  it("loads a variant that sends a namespace from session start, as the compiler builds one", async () => {
    const root = await projectWithOverlay(join(fixturesDir, "namespaces"));
    expect((await build({ root, persistentCache: false })).ok).toBe(true);
    const loaded = loadArtifacts({ distDir: join(root, "dist") });
    expect(loaded.manifest.variants.import?.namespaces).toEqual(["crm"]);
    expect([...loaded.namespaces.keys()]).toEqual(["crm"]);
  });

  it("keeps each skill's requirements and conflicts as the manifest lists them", () => {
    const loaded = loadArtifacts({ distDir: prepareDist() });
    const manifest = repoManifest();
    for (const [name, skill] of loaded.skills) {
      expect(skill.requiresSkills).toEqual(manifest.skills[name].requiresSkills);
      expect(skill.conflictsWith).toEqual(manifest.skills[name].conflictsWith);
    }
    expect(loaded.skills.get("deck-generation")?.requiresSkills).toEqual(["gml-authoring", "gml-cli", "ask-user-questions"]);
  });
});

describe("a skill's supporting files in dist/", () => {
  it("loads them and serves their verified bytes, colons in names included", () => {
    const dist = prepareDist();
    addSupportingFile(dist, "gml-cli", "1:30.md", "at half past one\n");
    addSupportingFile(dist, "gml-cli", "notes/draft:final.md", "final\n");
    const loaded = loadArtifacts({ distDir: dist });
    expect([...(loaded.skills.get("gml-cli")?.files.keys() ?? [])]).toEqual(["1:30.md", "notes/draft:final.md"]);
    expect(readSkillFile(loaded, "skills/gml-cli/notes/draft:final.md")?.bytes.toString("utf8")).toBe("final\n");
    expect(loaded.skills.get("import")?.files.size).toBe(0);
  });

  it.each(["a\\b.md", "C:notes.md", "a//b.md", "./a.md", "a/./b.md", "a/../b.md"])("refuses the path %j, and only that", (path) => {
    const dist = prepareDist();
    addSupportingFile(dist, "gml-cli", "ok.md", "ok\n");
    editManifest(dist, (m) => (m.skills["gml-cli"].files = ["ok.md", path]));
    expect(problemsOf(dist)).toEqual([{ file: "manifest.json", kind: "invalid", message: 'Unexpected files of skill "gml-cli", expected paths relative to the skill\'s folder' }]);
  });

  it("refuses a list that mixes a good path with one leaving the folder, without looking the good one up", () => {
    const dist = prepareDist();
    editManifest(dist, (m) => (m.skills["gml-cli"].files = ["notes.md", "../import.md"]));
    expect(problemsOf(dist)).toEqual([{ file: "manifest.json", kind: "invalid", message: 'Unexpected files of skill "gml-cli", expected paths relative to the skill\'s folder' }]);
  });

  it("does not resolve a path that holds a line break", () => {
    const dist = prepareDist();
    addSupportingFile(dist, "gml-cli", "notes.md", "notes\n");
    const loaded = loadArtifacts({ distDir: dist });
    expect(readSkillFile(loaded, "skills/gml-cli/notes.md")?.path).toBe("notes.md");
    expect(readSkillFile(loaded, "skills/gml-cli/notes.md\nmore")).toBeUndefined();
  });
});

describe("the order of what loadArtifacts returns", () => {
  it("is name order, whatever order the manifest lists variants, skills and namespaces in", () => {
    const dist = prepareDist();
    const namespace = JSON.parse(readFileSync(join(dist, "namespaces/drive.json"), "utf8"));
    const copy = `${JSON.stringify({ ...namespace, name: "archive" })}`;
    writeFileSync(join(dist, "namespaces/archive.json"), copy);
    editManifest(dist, (m) => {
      const reversed = (record: Record<string, unknown>) => Object.fromEntries(Object.entries(record).reverse());
      m.artifacts["namespaces/archive.json"] = { sha256: createHash("sha256").update(copy).digest("hex"), bytes: Buffer.byteLength(copy) };
      m.namespaces.archive = { ...m.namespaces.drive, file: "namespaces/archive.json", sha256: m.artifacts["namespaces/archive.json"].sha256 };
      m.namespaces = { drive: m.namespaces.drive, archive: m.namespaces.archive };
      m.variants = reversed(m.variants);
      m.skills = reversed(m.skills);
    });
    const loaded = loadArtifacts({ distDir: dist });
    const sorted = (names: Iterable<string>) => [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(Object.keys(loaded.variants)).toEqual(["base", "deck-generation", "import"]);
    expect([...loaded.skills.keys()]).toEqual(sorted(loaded.skills.keys()));
    expect([...loaded.skills.keys()][0]).toBe("ask-user-questions");
    expect([...loaded.namespaces.keys()]).toEqual(["archive", "drive"]);
  });

  it("names a long list of unexpected files in path order, though a walk finds a folder's files before the names that sort first", () => {
    const dist = prepareDist();
    mkdirSync(join(dist, "a"));
    const inFolder = Array.from({ length: 30 }, (_, index) => `a/${String(index).padStart(2, "0")}.md`);
    const beside = Array.from({ length: 40 }, (_, index) => `a-${String(index).padStart(2, "0")}.md`);
    for (const file of [...inFolder, ...beside]) writeFileSync(join(dist, file), "x");
    // "-" sorts before "/": every a-NN.md comes before a/NN.md.
    expect(problemsOf(dist).map((problem) => problem.file)).toEqual([...beside, ...inFolder]);
  });

  it("names the variants a cache plan misses in name order", () => {
    const dist = prepareDist();
    resignArtifact(dist, "cache-plan.json", (plan) => ({ ...plan, variants: {} }));
    editManifest(dist, (m) => (m.variants = Object.fromEntries(Object.entries(m.variants).reverse())));
    expect(problemsOf(dist).map((problem) => problem.message)).toEqual(
      ["base", "deck-generation", "import"].map((name) => `Unexpected missing plan for variant "${name}", expected its blocks`),
    );
  });
});

describe("a dist/ a build starts replacing while it is read", () => {
  /** Options whose pinned hash starts the build (a journal appears) at the moment the loader reads it. */
  function startBuildWhileReading(dist: string, then: () => string): { distDir: string; manifestSha256: string } {
    return {
      distDir: dist,
      get manifestSha256() {
        mkdirSync(join(dist, ".gamma-prompt-journal"), { recursive: true });
        return then();
      },
    };
  }

  it("explains a refusal by the build's journal", () => {
    const dist = prepareDist();
    expect(() => loadArtifacts(startBuildWhileReading(dist, () => OTHER_SHA256))).toThrow(InterruptedBuildError);
  });

  it("lets any other failure through as it is", () => {
    const dist = prepareDist();
    const failure = new Error("the host's own failure");
    expect(() =>
      loadArtifacts(
        startBuildWhileReading(dist, () => {
          throw failure;
        }),
      ),
    ).toThrow(failure);
  });
});

describe("the default dist/", () => {
  it("is the package's own dist/ folder", () => {
    expect(defaultDistDir()).toBe(join(fileURLToPath(new URL("../../", import.meta.url)), "dist/"));
  });
});
