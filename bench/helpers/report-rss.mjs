// Preloaded with --import into a measured process: reports its peak resident
// set size (KiB on Linux) on stderr as the last line, when the process exits.
process.on("exit", () => {
  process.stderr.write(`\nmaxRSS=${process.resourceUsage().maxRSS}\n`);
});
