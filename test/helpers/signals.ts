import { readFileSync } from "node:fs";
import { constants } from "node:os";

/**
 * Sends `signal` to a process twice as two separate deliveries: the second is sent only once the process has
 * taken the first (it is no longer pending), so the kernel cannot merge them into one. Where /proc tells
 * nothing, the second follows after a pause.
 */
export async function signalTwice(pid: number, signal: NodeJS.Signals): Promise<void> {
  process.kill(pid, signal);
  const bit = 1n << BigInt(constants.signals[signal] - 1);
  for (let tries = 0; tries < 2000; tries++) {
    const pending = pendingSignals(pid);
    if (pending === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      break;
    }
    if ((pending & bit) === 0n) break;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  process.kill(pid, signal);
}

/** The signals pending for the whole process (a signal sent with kill), from /proc; undefined elsewhere. */
function pendingSignals(pid: number): bigint | undefined {
  try {
    const line = /^ShdPnd:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return line?.[1] === undefined ? undefined : BigInt(`0x${line[1]}`);
  } catch {
    return undefined;
  }
}
