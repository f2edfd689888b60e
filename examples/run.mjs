// `npm run example`: the deck request on one agent; `npm run example -- --servers`: sessions across servers.
await import(process.argv.includes("--servers") ? "./servers.mjs" : "./deck-request.mjs");
