/**
 * Crash injection for the tests that kill a build at an exact step of its
 * dist/ transaction. `GAMMA_PROMPT_FAILPOINT=<name>@<n>` kills the process
 * with SIGKILL the n-th time it passes the named point (n defaults to 1).
 * Unset, a failpoint costs one comparison and changes nothing: it never
 * touches what a build writes.
 */
const setting = parseSetting(process.env["GAMMA_PROMPT_FAILPOINT"]);
let passes = 0;

export type FailpointName = "stage" | "journal" | "apply" | "commit" | "rollback";

export function failpoint(name: FailpointName): void {
  if (setting === undefined || setting.name !== name) return;
  passes++;
  if (passes === setting.count) process.kill(process.pid, "SIGKILL");
}

function parseSetting(value: string | undefined): { name: string; count: number } | undefined {
  if (!value) return undefined;
  const [name = "", count = "1"] = value.split("@");
  return { name, count: Number.parseInt(count, 10) || 1 };
}
