/**
 * What `require("gamma-prompt/runtime")` loads: the runtime is an ES module
 * that awaits its Pi imports at the top level, which require() cannot load.
 * package.json points its "module-sync" condition here, after "import": Node
 * matches that condition for require() as well as for import, and an import
 * stops at "import" first; TypeScript reads no "module-sync", so it still
 * refuses the require at compile time. Without this, Node would say the
 * subpath is not exported at all.
 */
throw Object.assign(
  new Error('gamma-prompt/runtime is an ES module that awaits its Pi imports at the top level, so require() cannot load it: load it with await import("gamma-prompt/runtime"), from CommonJS too'),
  { code: "ERR_REQUIRE_ASYNC_MODULE" },
);
