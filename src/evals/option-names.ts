/**
 * How an evaluation's messages name an option: as `runEvals` takes it (`model`, `replay: true`), the default,
 * or as the command line's flag (`--model`, `--replay`), so that each caller reads what it passed or would pass.
 */
export const OPTION_NAMES = {
  library: {
    record: "record: true",
    replay: "replay: true",
    model: "model",
    modelExpected: "model (provider/id, e.g. openai/gpt-5) or scriptedModel",
    baseUrl: "baseUrl",
    runs: "runs",
    concurrency: "concurrency",
    threshold: "threshold",
    recordFirst: 'runEvals({ record: true, model: "provider/id" })',
  },
  cli: {
    record: "--record",
    replay: "--replay",
    model: "--model",
    modelExpected: "--model provider/id (e.g. openai/gpt-5)",
    baseUrl: "--base-url",
    runs: "--runs",
    concurrency: "--concurrency",
    threshold: "--threshold",
    recordFirst: "gamma-prompt eval --record --model provider/id",
  },
} as const;

export type OptionSpelling = keyof typeof OPTION_NAMES;
export type OptionNames = (typeof OPTION_NAMES)[OptionSpelling];
