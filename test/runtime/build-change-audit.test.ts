/**
 * A session reopened on another build with its session log: the log says
 * what the build changed (`build_changed`), so the completion audit, live and
 * offline, judges the workflows the session has now: not one the build took
 * out of the state, and every one it brought in.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { audit } from "../../src/audit.js";
import { build } from "../../src/build.js";
import { loadArtifacts, type LoadedArtifacts } from "../../src/runtime/artifacts.js";
import { FileSessionLog } from "../../src/runtime/audit/recorder.js";
import { createGammaAgent } from "../../src/runtime/pi-adapter.js";
import { FileStateStore } from "../../src/runtime/state.js";
import type { ProtocolEvent } from "../../src/runtime/yield.js";
import { removeTempDirs, repoRoot } from "../build/helpers.js";
import { copyParts, tempDir } from "../helpers/temp-project.js";
import { prepareDist } from "./helpers/dist.js";
import { fauxToolCall, recordingExecutors, toolUse } from "./helpers/pi.js";
import { fauxPerTest, NO_KNOWLEDGE_HINTS } from "./helpers/session.js";

afterAll(removeTempDirs);

const pi = fauxPerTest();
const deployedDist = prepareDist();
const deployed = loadArtifacts({ distDir: deployedDist });
/** The embedded default where the import workflow requires drive-files (a workflow) as well. */
let importNeedsDrive: LoadedArtifacts;
let importNeedsDriveDist: string;
const REQUIRES = "  gamma-requires-skills: gml-authoring gml-cli ask-user-questions\n";

beforeAll(async () => {
  const root = await copyParts(repoRoot, ["skills", "prompts", "schemas", "knowledge"], join(await tempDir("audit-redeploy"), "project"));
  const source = await readFile(join(root, "skills/import/SKILL.md"), "utf8");
  expect(source).toContain(REQUIRES);
  await writeFile(join(root, "skills/import/SKILL.md"), source.replace(REQUIRES, "  gamma-requires-skills: gml-authoring gml-cli ask-user-questions drive-files\n"));
  const built = await build({ root, persistentCache: false });
  expect(built.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  importNeedsDriveDist = join(root, "dist");
  importNeedsDrive = loadArtifacts({ distDir: importNeedsDriveDist });
}, 60_000);

function open(artifacts: LoadedArtifacts, paths: { state: string; log: string }, events: ProtocolEvent[], messages?: AgentMessage[]) {
  return pi.disposeAfterTest(
    createGammaAgent({
      artifacts,
      variant: "base",
      model: pi.faux().getModel(),
      store: new FileStateStore(paths.state),
      sessionLog: new FileSessionLog(paths.log),
      executors: recordingExecutors(),
      onProtocolEvent: (event) => events.push(event),
      ...(messages === undefined ? {} : { messages }),
      ...NO_KNOWLEDGE_HINTS,
    }),
  );
}

/** A session on `first` where the model loaded import, then reopened on `then`, where the model yields at once; the audit events of that yield. */
async function loadImportThenYieldOn(first: LoadedArtifacts, then: LoadedArtifacts) {
  const folder = await tempDir("audit-redeploy-session");
  const paths = { state: join(folder, "state.json"), log: join(folder, "session.jsonl") };
  const before = open(first, paths, []);
  pi.faux().setResponses([toolUse(fauxToolCall("skill", { name: "import" }))]);
  await before.agent.prompt(before.controller.buildTurnMessages({ text: "Import my deck" }) as AgentMessage[]);
  const transcript = before.agent.state.messages.slice();
  const activeBefore = before.controller.state.activeSkills.map((skill) => skill.name);
  pi.disposeNow(before);

  const events: ProtocolEvent[] = [];
  const after = open(then, paths, events, transcript);
  pi.faux().setResponses([toolUse(fauxToolCall("message_user", { message: "Here is where things stand.", blockOnUser: true }))]);
  await after.agent.prompt(after.controller.buildTurnMessages({ text: "Where are we?" }) as AgentMessage[]);
  const audits = events.flatMap((event) => (event.type === "audit" ? [event.report] : []));
  const log = (await readFile(paths.log, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
  return { activeBefore, activeAfter: after.controller.state.activeSkills.map((skill) => skill.name), events, audits, log, paths };
}

const skillsOf = (findings: ReadonlyArray<{ skill?: string }>) => [...new Set(findings.map((finding) => finding.skill))];

describe("the completion audit of a session reopened on another build", () => {
  it("no longer judges a workflow the new build took out of the state (active only as a requirement it dropped)", async () => {
    const run = await loadImportThenYieldOn(importNeedsDrive, deployed);
    expect(run.activeBefore).toContain("drive-files");
    expect(run.activeAfter).not.toContain("drive-files");
    expect(run.events).toContainEqual(expect.objectContaining({ type: "build_changed", droppedSkills: ["drive-files"] }));
    // The log says where the session moved and what is active from there.
    const moved = run.log.find((record) => record["type"] === "build_changed");
    expect(moved).toEqual({ type: "build_changed", cacheKey: deployed.manifest.staticPrefix.cacheKey, variant: "base", activeSkills: run.activeAfter });

    const [live] = run.audits;
    expect(live?.workflows).toEqual(["import"]);
    expect(skillsOf(live?.findings ?? [])).toEqual(["import"]);

    // Offline, against the build the session moved to: the same workflows, and only the yield made on it.
    const offline = await audit({ files: [run.paths.log], distDir: deployedDist });
    expect(offline.diagnostics.filter((diagnostic) => diagnostic.ruleId === "audit/dist-mismatch" || diagnostic.ruleId === "audit/unknown-skill")).toEqual([]);
    expect(offline.transcripts[0]?.reports.map((report) => report.workflows)).toEqual([["import"]]);
    expect(offline.diagnostics.some((diagnostic) => diagnostic.message.includes("of drive-files"))).toBe(false);
  });

  it("judges a workflow the new build brought into the state as a requirement of an active skill", async () => {
    const run = await loadImportThenYieldOn(deployed, importNeedsDrive);
    expect(run.activeBefore).not.toContain("drive-files");
    expect(run.activeAfter).toContain("drive-files");
    const [live] = run.audits;
    expect(live?.workflows).toEqual(["import", "drive-files"]);
    expect(skillsOf(live?.findings ?? [])).toEqual(["import", "drive-files"]);

    const offline = await audit({ files: [run.paths.log], distDir: importNeedsDriveDist });
    expect(offline.transcripts[0]?.reports.map((report) => report.workflows)).toEqual([["import", "drive-files"]]);
  });
});
