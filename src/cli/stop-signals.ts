/** What a shell reports for a process its signal ended (128 + the signal's number): 130 for Ctrl-C, 143 for SIGTERM. */
export const exitInterrupted = (signal: NodeJS.Signals | undefined): number => (signal === "SIGTERM" ? 143 : 130);

/**
 * Listens for Ctrl-C and SIGTERM until the returned function is called. The first one calls `onFirst`, which
 * stops the command at a safe point; any later one ends the process at once (130 for SIGINT, 143 for SIGTERM).
 * The signals are counted, not left to Node's default handling once the first is taken: two that arrive
 * during one long synchronous stretch are handed over in the same turn, and with no listener left the second
 * would be dropped.
 */
export function listenForStop(onFirst: (signal: NodeJS.Signals) => void): () => void {
  let received = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    received += 1;
    if (received === 1) onFirst(signal);
    else process.exit(exitInterrupted(signal));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return () => {
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
  };
}
