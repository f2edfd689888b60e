/** Temp copies of the embedded default for evaluation tests: dist/ and the scenarios, with or without their cassettes. */
import { cpSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";
import { removeTempDirs, tempDirSync } from "../../helpers/temp-project.js";

export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

afterAll(removeTempDirs);

/** A project folder holding the real dist/ and evals/*.yaml (`scenarios` limits which), with the cassettes when `cassettes` is set. */
export function evalProject(options: { scenarios?: readonly string[]; cassettes?: boolean } = {}): string {
  const root = tempDirSync("gamma-eval-");
  cpSync(join(repoRoot, "dist"), join(root, "dist"), { recursive: true });
  mkdirSync(join(root, "evals"));
  const names = readdirSync(join(repoRoot, "evals")).filter((name) => name.endsWith(".yaml") && (options.scenarios === undefined || options.scenarios.includes(name.replace(/\.yaml$/, ""))));
  for (const name of names) {
    cpSync(join(repoRoot, "evals", name), join(root, "evals", name));
    const cassettes = join(repoRoot, "evals", "cassettes", name.replace(/\.yaml$/, ""));
    if (options.cassettes === true) cpSync(cassettes, join(root, "evals", "cassettes", name.replace(/\.yaml$/, "")), { recursive: true });
  }
  return root;
}

/** Runs `work` with global fetch refusing every request: proof that nothing went to a network. */
export async function withoutNetwork<T>(work: () => Promise<T>): Promise<T> {
  const original = globalThis.fetch;
  const attempts: string[] = [];
  globalThis.fetch = (async (input: string | URL | Request) => {
    attempts.push(String(input instanceof Request ? input.url : input));
    throw new Error("network refused in this test");
  }) as typeof fetch;
  try {
    const result = await work();
    if (attempts.length > 0) throw new Error(`network used: ${attempts.join(", ")}`);
    return result;
  } finally {
    globalThis.fetch = original;
  }
}
