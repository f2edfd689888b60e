import { execFile, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { pool } from "../../src/evals/pool.js";

/**
 * The two Agent Skills validators kept in test/fixtures/validators/, run as
 * their authors ship them, with a system Python: skills-ref needs strictyaml
 * and click, quick_validate.py needs yaml. GAMMA_PYTHON names an interpreter
 * to use instead of python3 (a virtual environment, for a machine without
 * Debian's packages). No interpreter that can run them is a failure that
 * says what is missing, never a skip.
 */

const validators = fileURLToPath(new URL("../fixtures/validators/", import.meta.url));
export const SKILLS_REF_SRC = `${validators}skills-ref/src`;
export const QUICK_VALIDATE = `${validators}quick-validate/quick_validate.py`;
const MODULES = ["strictyaml", "click", "yaml"];

export type Python = { command: string } | { problem: string };

let found: Python | undefined;

export function findPython(): Python {
  if (found) return found;
  const candidates = [process.env["GAMMA_PYTHON"], "python3", "/usr/bin/python3"].filter((candidate): candidate is string => candidate !== undefined && candidate !== "");
  const tried: string[] = [];
  for (const command of [...new Set(candidates)]) {
    const run = spawnSync(command, ["-c", `import ${MODULES.join(", ")}`], { encoding: "utf8" });
    if (run.status === 0) return (found = { command });
    const reason = run.error ? run.error.message : (run.stderr.trim().split("\n").at(-1) ?? `exit ${String(run.status)}`);
    tried.push(`${command}: ${reason}`);
  }
  return (found = {
    problem:
      `No Python can run the Agent Skills validators (${tried.join("; ")}). Install Debian's python3-strictyaml, python3-click and python3-yaml, ` +
      "or set GAMMA_PYTHON to a Python 3 with strictyaml, click and pyyaml installed (docs/guide/skills.md, Running the validators).",
  });
}

/** The interpreter, or a thrown error naming what is missing: the calling test fails with it. */
export function python(): string {
  const result = findPython();
  if ("problem" in result) throw new Error(result.problem);
  return result.command;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(python(), [...args], { cwd, encoding: "utf8", env: { ...process.env, PYTHONUTF8: "1", PYTHONDONTWRITEBYTECODE: "1", ...env } }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `skills-ref validate FOLDER` (its CLI, as `python -m skills_ref.cli`). */
export function skillsRef(folder: string, cwd: string): Promise<Run> {
  return run(["-m", "skills_ref.cli", "validate", folder], cwd, { PYTHONPATH: SKILLS_REF_SRC });
}

/** `skills-ref read-properties FOLDER`: the name, description and the rest, as skills-ref reads them. */
export function skillsRefProperties(folder: string, cwd: string): Promise<Run> {
  return run(["-m", "skills_ref.cli", "read-properties", folder], cwd, { PYTHONPATH: SKILLS_REF_SRC });
}

/** `quick_validate.py FOLDER`. */
export function quickValidate(folder: string, cwd: string): Promise<Run> {
  return run([QUICK_VALIDATE, folder], cwd);
}

/** Runs `task` on every item, a few at a time (each is a Python start-up), with the eval runner's pool. */
export function eachLimited<T, R>(items: readonly T[], task: (item: T) => Promise<R>, limit = 4): Promise<R[]> {
  return pool(items, limit, task);
}
