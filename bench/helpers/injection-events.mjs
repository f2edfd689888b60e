// The mixed runtime injections the routing benchmarks send: every kind, several time zones, re-sent ids,
// echoes of the agent's own tool calls and decisions, the same for the same count on every run.

/** A deterministic mix: ~5% re-sent ids, ~5% echoes of the agent's own tool calls, some decisions. */
export function generateEvents(count) {
  const events = [];
  const base = Date.UTC(2026, 2, 1, 9);
  const zones = ["Z", "+02:00", "-05:00"];
  for (let index = 0; index < count; index++) {
    const roll = (index * 7919) % 100;
    const resend = roll < 5 && index > 0;
    const id = resend ? `evt_${index - 1}` : `evt_${index}`;
    const instant = new Date(base + ((index * 104_729) % (count * 10)) * 100);
    const zone = zones[index % 3];
    const shift = zone === "Z" ? 0 : zone === "+02:00" ? 2 : -5;
    const local = new Date(instant.getTime() + shift * 3_600_000).toISOString().slice(0, 19);
    const occurredAt = `${local}${zone}`;
    const common = { id, occurredAt, requiresDecision: false };
    let event;
    if (roll < 30) {
      event = { ...common, kind: "client_view", source: "client", delivery: "next_turn", summary: `The user opened card ${index % 40}.`, subject: { ref: "gamma:file:g_1:d_2" } };
    } else if (roll < 55) {
      event = {
        ...common, kind: "artifact_update", source: "workspace", delivery: "steer",
        summary: `The user edited section ${index % 9} of the brief.`,
        subject: { path: `session/generations/doc-${index % 200}/brief.xml`, revision: `sha256:${index.toString(16)}` },
        origin: { actor: roll < 50 ? "user" : "agent", ...(roll >= 50 ? { toolCallId: `call_${index % 1000}` } : {}) },
        details: { change: "content_saved" },
      };
    } else if (roll < 65) {
      event = { ...common, kind: "workspace_update", source: "workspace", delivery: "steer", summary: "Workspace instructions changed.", subject: { revision: `ws_${index}` } };
    } else if (roll < 75) {
      event = { ...common, kind: "background_result", source: "background_job", delivery: "follow_up", summary: `Job ${index % 300} finished.`, details: { jobId: `job-${index % 300}` } };
    } else if (roll < 85) {
      event = { ...common, kind: "system_note", source: "server", delivery: "next_turn", summary: `Note ${index}: the workspace plan & limits <unchanged>.` };
    } else if (roll < 93) {
      event = { ...common, kind: "system_guidance", source: "server", delivery: "steer", summary: `Keep card ${index % 12} under 60 words.`, dedupeKey: `guidance-${index % 50}` };
    } else {
      event = { ...common, kind: "system_update", source: "server", delivery: "steer", requiresDecision: true, summary: `Quota event ${index}.` };
    }
    events.push(event);
  }
  return events;
}

