// The modules mutation testing covers: for each, the source files Stryker
// mutates and the only test files it runs against them (two shared cores: a
// module's own tests, never the whole suite). `npm run mutate -- <name>` runs one.
export const MUTATION_MODULES = {
  "artifact-verification": {
    mutate: ["src/runtime/artifacts.ts", "src/runtime/cache-plan.ts", "src/runtime/manifest-schema.ts"],
    tests: ["test/runtime/tampered-artifacts.test.ts", "test/robustness/manifest-fuzz.test.ts", "test/build/cache-plan.test.ts", "test/runtime/cache-plan.test.ts"],
  },
  "neutraliser-transport": {
    mutate: ["src/runtime/injections/neutralise.ts", "src/runtime/injections/transport.ts"],
    tests: [
      "test/injections/spoofing.test.ts",
      "test/injections/untrusted-channels.test.ts",
      "test/injections/render.test.ts",
      "test/injections/reserved-names.test.ts",
    ],
  },
  "journal-recovery": {
    mutate: ["src/protocol/dist-journal.ts", "src/pipeline/emit/recovery.ts", "src/runtime/state/journal.ts"],
    // crash.test.ts is not run here: its one test kills some twenty real builds, minutes per mutant on two cores, and
    // the killed builds run the unmutated lib/. dist-recovery.test.ts lays out what those kills leave, in process.
    tests: ["test/build/dist-recovery.test.ts", "test/runtime/state-journal.test.ts"],
  },
  "emit-transaction": {
    mutate: ["src/pipeline/emit/emit.ts", "src/pipeline/emit/lock.ts"],
    // In process and small: concurrent.test.ts and crash.test.ts drive real CLI processes, which run the unmutated
    // lib/; atomic-replace, incremental and safe-write run whole builds, which every mutant would repeat.
    tests: ["test/build/emit-transaction.test.ts", "test/build/output-lock.test.ts"],
  },
  "skill-graph": {
    mutate: ["src/protocol/skill-graph.ts"],
    tests: ["test/lint/graph.test.ts", "test/lint/deep-graph.test.ts", "test/build/variant-closure.test.ts", "test/runtime/deep-requirements.test.ts"],
  },
  "eval-judge": {
    mutate: ["src/evals/expectations.ts", "src/evals/stats.ts"],
    tests: ["test/evals/judge.test.ts", "test/evals/results.test.ts"],
  },
  "cost-simulator": {
    mutate: ["src/cost/simulate.ts", "src/cost/cost.ts", "src/cost/warming.ts", "src/cost/tool-policies.ts"],
    tests: ["test/cost/hand-computed.test.ts", "test/cost/warming.test.ts", "test/cost/tool-policies.test.ts", "test/cost/cost.test.ts"],
  },
  "cache-plan": {
    mutate: ["src/pipeline/render/cache-plan.ts"],
    tests: ["test/build/cache-plan.test.ts"],
  },
};
