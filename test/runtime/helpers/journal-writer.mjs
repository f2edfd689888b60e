// A session server for the crash test: routes the events of a JSON file into a
// FileStateStore, round after round (ids suffixed with the round), printing
// each revision it made durable, until the parent kills it.
import { readFileSync, writeSync } from "node:fs";
import { FileStateStore, loadArtifacts, SessionProtocolController } from "../../../lib/runtime/index.js";

const [statePath, distDir, eventsPath, compactAfterBytes] = process.argv.slice(2);
const events = JSON.parse(readFileSync(eventsPath, "utf8"));
const store = new FileStateStore(statePath, { compactAfterBytes: Number(compactAfterBytes) });
const controller = new SessionProtocolController({ artifacts: loadArtifacts({ distDir }), variant: "base", store });
for (let round = 0; ; round++) {
  for (const event of events) {
    controller.routeUpdate({ ...event, id: `${event.id}-${round}` });
    writeSync(1, `${controller.state.revision}\n`);
  }
}
