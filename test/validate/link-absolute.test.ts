/**
 * An absolute link is a broken-link error only where lint can prove the file
 * missing: inside the project's own folder on this machine. Anywhere else it
 * names a host's file system (Claude.ai mounts skills at /mnt/skills/user/ and
 * /mnt/skills/public/) that lint cannot see, and is a link-outside-skill
 * warning. The project's absolute path depends on the machine, so the case is
 * written here, in a temporary folder, rather than as a committed fixture.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lint } from "../../src/lint.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";

afterAll(removeTempDirs);

describe("an absolute link", () => {
  it("is an error inside the project's folder when the file is missing there, and a warning everywhere else", async () => {
    const root = await tempDir("gamma-link-absolute-");
    mkdirSync(join(root, "skills/s/references"), { recursive: true });
    writeFileSync(join(root, "skills/s/references/a.md"), "a\n");
    const posixRoot = root.split("\\").join("/");
    const body = [
      "---",
      "name: s",
      "description: Use when x.",
      "---",
      "",
      `See [gone](${posixRoot}/skills/s/references/gone.md), [here](${posixRoot}/skills/s/references/a.md) and [flowing](/mnt/skills/user/flowing/SKILL.md).`,
      "",
    ].join("\n");
    writeFileSync(join(root, "skills/s/SKILL.md"), body);
    const result = await lint({ root, profile: "agentskills" });
    const found = result.diagnostics.filter((diagnostic) => diagnostic.ruleId === "skill/broken-link" || diagnostic.ruleId === "skill/link-outside-skill").map((diagnostic) => [diagnostic.ruleId, diagnostic.severity, diagnostic.message]);
    expect(found).toEqual([
      ["skill/broken-link", "error", `Unexpected link to "${posixRoot}/skills/s/references/gone.md", which does not exist, expected a file at skills/s/references/gone.md`],
      ["skill/link-outside-skill", "warning", `Unexpected absolute link "${posixRoot}/skills/s/references/a.md" into the project's folder on this machine, expected a path relative to the skill's folder (skills/s/): a model reading the skill anywhere else, or a skill installed on its own, does not find it`],
      [
        "skill/link-outside-skill",
        "warning",
        `Unexpected absolute link "/mnt/skills/user/flowing/SKILL.md", expected a path relative to the skill's folder (skills/s/): it names a place on the file system of the host that reads the skill (Claude.ai mounts skills at /mnt/skills/), where lint cannot look, and a skill installed on its own may not find it`,
      ],
    ]);
  });
});
