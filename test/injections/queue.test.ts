import { describe, expect, it } from "vitest";
import { InjectionQueue, type RuntimeInjection } from "../../src/runtime/injections/index.js";
import { event } from "./helpers/fixtures.js";

const all = { select: () => true };

function ids(injections: RuntimeInjection[]): string[] {
  return injections.map((injection) => injection.id);
}

describe("ordering and idempotency", () => {
  it("delivers by occurredAt as an instant, then by arrival, whatever the ids", () => {
    const queue = new InjectionQueue();
    queue.add(event({ id: "c", occurredAt: "2026-03-01T10:00:02Z" }));
    queue.add(event({ id: "b", occurredAt: "2026-03-01T10:00:01Z" }));
    queue.add(event({ id: "a2", occurredAt: "2026-03-01T12:00:01+02:00" })); // same instant as "b", arrived after it
    queue.add(event({ id: "z", occurredAt: "2026-03-01T10:00:00.5Z" }));
    expect(ids(queue.drain(all).deliver)).toEqual(["z", "b", "a2", "c"]);
  });

  it("processes the same id once, even after it was delivered", () => {
    const queue = new InjectionQueue();
    const first = event({ id: "same" });
    expect(queue.add(first)).toBe("queued");
    expect(queue.add({ ...first, summary: "changed" })).toBe("duplicate");
    expect(queue.drain(all).deliver).toHaveLength(1);
    expect(queue.add(first)).toBe("duplicate");
    expect(queue.drain(all).deliver).toHaveLength(0);
  });

  it("keeps evicting the oldest processed ids while the oldest one is still pending", () => {
    const queue = new InjectionQueue(undefined, { rememberIds: 2 });
    queue.add(event({ id: "pending-first", kind: "system_update", requiresDecision: true }));
    for (const id of ["a", "b", "c"]) {
      queue.add(event({ id, kind: "system_update", requiresDecision: true }));
      queue.drain({ select: (injection) => injection.id === id });
    }
    const remembered = queue.snapshot().seenIds;
    expect(remembered).toEqual(["b", "c"]);
    // Evicted from the processed ids, the pending event is still recognised.
    expect(queue.add(event({ id: "pending-first" }))).toBe("duplicate");
    expect(queue.add(event({ id: "a", kind: "system_update", requiresDecision: true }))).toBe("queued");
  });

  it("remembers processed ids across a snapshot and restore (restart)", () => {
    const queue = new InjectionQueue();
    queue.add(event({ id: "sent" }));
    queue.drain(all);
    queue.add(event({ id: "waiting", kind: "client_view" }));
    const restored = new InjectionQueue(JSON.parse(JSON.stringify(queue.snapshot())));
    expect(ids(restored.pending())).toEqual(["waiting"]);
    expect(restored.add(event({ id: "sent" }))).toBe("duplicate");
    expect(restored.add(event({ id: "waiting" }))).toBe("duplicate");
    // Coalescing still knows the restored snapshot.
    expect(restored.add(event({ id: "newer-view", kind: "client_view" }))).toBe("coalesced");
    expect(ids(restored.pending())).toEqual(["newer-view"]);
  });
});

describe("coalescing of unsent snapshots", () => {
  it("keeps only the latest client_view", () => {
    const queue = new InjectionQueue();
    queue.add(event({ id: "v1", kind: "client_view", summary: "card 1" }));
    queue.add(event({ id: "v2", kind: "client_view", summary: "card 2" }));
    expect(queue.add(event({ id: "v3", kind: "client_view", summary: "card 3" }))).toBe("coalesced");
    expect(queue.drain(all).deliver.map((injection) => injection.summary)).toEqual(["card 3"]);
  });

  it("drops an older snapshot that arrives after a newer one", () => {
    const queue = new InjectionQueue();
    queue.add(event({ id: "late-new", kind: "client_view", occurredAt: "2026-03-01T11:00:00Z" }));
    expect(queue.add(event({ id: "early-old", kind: "client_view", occurredAt: "2026-03-01T10:00:00Z" }))).toBe("superseded");
    expect(ids(queue.pending())).toEqual(["late-new"]);
  });

  it("keeps the latest revision per artifact path (or ref), separately for each artifact", () => {
    const queue = new InjectionQueue();
    const update = (id: string, subject: RuntimeInjection["subject"]): RuntimeInjection =>
      event({ id, kind: "artifact_update", delivery: "steer", ...(subject ? { subject } : {}) });
    queue.add(update("brief-r1", { path: "q3/brief.xml", revision: "r1" }));
    queue.add(update("deck-r1", { ref: "gamma:file:g_1:d_1", revision: "r1" }));
    queue.add(update("brief-r2", { path: "q3/brief.xml", revision: "r2" }));
    queue.add(update("deck-r2", { ref: "gamma:file:g_1:d_1", revision: "r2" }));
    queue.add(update("other-r1", { path: "q3/notes.md", revision: "r1" }));
    expect(ids(queue.drain(all).deliver)).toEqual(["brief-r2", "deck-r2", "other-r1"]);
  });

  it("never lets the agent's own echo replace another actor's unsent revision of the same path", () => {
    const queue = new InjectionQueue();
    const update = (id: string, origin: RuntimeInjection["origin"]): RuntimeInjection =>
      event({ id, kind: "artifact_update", delivery: "steer", subject: { path: "q3/brief.xml" }, ...(origin ? { origin } : {}) });
    queue.add(update("collab-r2", { actor: "collaborator" }));
    expect(queue.add(update("echo-r3", { actor: "agent", toolCallId: "call_1" }))).toBe("queued");
    // Echoes still coalesce among themselves.
    expect(queue.add(update("echo-r4", { actor: "agent", toolCallId: "call_2" }))).toBe("coalesced");
    const result = queue.drain({ select: () => true, toolCallIdsInContext: new Set(["call_1", "call_2"]) });
    expect(ids(result.deliver)).toEqual(["collab-r2"]);
    expect(ids(result.suppressed)).toEqual(["echo-r4"]);
  });

  it("keeps the latest workspace_update (per workspace subject)", () => {
    const queue = new InjectionQueue();
    queue.add(event({ id: "ws1", kind: "workspace_update", delivery: "steer" }));
    queue.add(event({ id: "ws2", kind: "workspace_update", delivery: "steer" }));
    queue.add(event({ id: "theme1", kind: "workspace_update", delivery: "steer", subject: { ref: "workspace:theme" } }));
    queue.add(event({ id: "ws3", kind: "workspace_update", delivery: "steer" }));
    expect(ids(queue.drain(all).deliver)).toEqual(["theme1", "ws3"]);
  });

  it("keeps one background_result per job", () => {
    const queue = new InjectionQueue();
    const result = (id: string, jobId: string): RuntimeInjection =>
      event({ id, kind: "background_result", delivery: "follow_up", source: "background_job", details: { jobId } });
    queue.add(result("a-progress", "job-a"));
    queue.add(result("b-done", "job-b"));
    queue.add(result("a-done", "job-a"));
    queue.add(event({ id: "c-done", kind: "background_result", delivery: "follow_up", dedupeKey: "job-c" }));
    queue.add(event({ id: "c-again", kind: "background_result", delivery: "follow_up", dedupeKey: "job-c" }));
    expect(ids(queue.drain(all).deliver)).toEqual(["b-done", "a-done", "c-again"]);
  });

  it("never coalesces events that each need a decision", () => {
    const queue = new InjectionQueue();
    queue.add(event({ id: "view-decide-1", kind: "client_view", requiresDecision: true }));
    queue.add(event({ id: "view-decide-2", kind: "client_view", requiresDecision: true }));
    queue.add(event({ id: "view-passive", kind: "client_view" }));
    queue.add(event({ id: "brief-decide", kind: "artifact_update", requiresDecision: true, subject: { path: "brief.xml" } }));
    queue.add(event({ id: "brief-passive", kind: "artifact_update", subject: { path: "brief.xml" } }));
    queue.add(event({ id: "update-1", kind: "system_update", requiresDecision: true, dedupeKey: "quota" }));
    queue.add(event({ id: "update-2", kind: "system_update", requiresDecision: true, dedupeKey: "quota" }));
    expect(ids(queue.drain(all).deliver)).toEqual([
      "view-decide-1", "view-decide-2", "view-passive", "brief-decide", "brief-passive", "update-1", "update-2",
    ]);
  });

  it("does not coalesce notes, guidance or updates without a shared dedupeKey", () => {
    const queue = new InjectionQueue();
    queue.add(event({ id: "n1" }));
    queue.add(event({ id: "n2" }));
    queue.add(event({ id: "g1", kind: "system_guidance", delivery: "steer" }));
    queue.add(event({ id: "g2", kind: "system_guidance", delivery: "steer", dedupeKey: "tone" }));
    queue.add(event({ id: "g3", kind: "system_guidance", delivery: "steer", dedupeKey: "tone" }));
    expect(ids(queue.drain(all).deliver)).toEqual(["n1", "n2", "g1", "g3"]);
  });
});

describe("duplicate suppression and selective draining", () => {
  it("drops an event whose origin tool call already has its result in the context", () => {
    const queue = new InjectionQueue();
    queue.add(event({ id: "echo", kind: "artifact_update", origin: { actor: "agent", toolCallId: "call_1" }, subject: { path: "a" } }));
    queue.add(event({ id: "later-edit", kind: "artifact_update", origin: { actor: "user", toolCallId: "call_2" }, subject: { path: "b" } }));
    queue.add(event({ id: "no-origin", kind: "system_note" }));
    const result = queue.drain({ select: () => true, toolCallIdsInContext: new Set(["call_1"]) });
    expect(ids(result.deliver)).toEqual(["later-edit", "no-origin"]);
    expect(ids(result.suppressed)).toEqual(["echo"]);
    expect(queue.size).toBe(0);
  });

  it("takes only the selected events and leaves the rest pending in order", () => {
    const queue = new InjectionQueue();
    queue.add(event({ id: "view", kind: "client_view" }));
    queue.add(event({ id: "steer", kind: "system_guidance", delivery: "steer" }));
    queue.add(event({ id: "later", kind: "background_result", delivery: "follow_up" }));
    expect(ids(queue.drain({ select: (injection) => injection.delivery === "steer" }).deliver)).toEqual(["steer"]);
    expect(ids(queue.pending())).toEqual(["view", "later"]);
    // A delivered snapshot no longer blocks a new one of the same thing.
    queue.drain({ select: (injection) => injection.kind === "client_view" });
    expect(queue.add(event({ id: "view-2", kind: "client_view" }))).toBe("queued");
  });
});

describe("requeueing an event Pi never delivered", () => {
  it("puts a processed event back, unless a newer snapshot of the same thing is pending", () => {
    const queue = new InjectionQueue();
    const older = event({ id: "view-1", kind: "client_view" });
    const note = event({ id: "note-1" });
    queue.add(older);
    queue.add(note);
    queue.drain(all);
    expect(queue.add(note)).toBe("duplicate");
    expect(queue.requeue(note)).toBe("queued");
    expect(queue.requeue(note)).toBe("duplicate");
    queue.add(event({ id: "view-2", kind: "client_view" }));
    expect(queue.requeue(older)).toBe("superseded");
    expect(ids(queue.pending())).toEqual(["note-1", "view-2"]);
  });
});

describe("reading occurredAt", () => {
  it("agrees with Date.parse on every form the envelope accepts", async () => {
    const { parseInstant } = await import("../../src/runtime/injections/order.js");
    const samples = [
      "2026-03-01T10:00:00Z", "2026-03-01T10:00:00.5Z", "2026-03-01T10:00:00.123Z", "2026-03-01T10:00:00.123456789Z",
      "2026-03-01T12:00:00+02:00", "2026-03-01T04:30:00-05:30", "1999-12-31T23:59:59.999+14:00", "2024-02-29T00:00:00Z",
      "2026-02-31T00:00:00Z", "0001-01-01T00:00:00Z",
    ];
    for (const sample of samples) expect(parseInstant(sample), sample).toBe(Date.parse(sample));
  });
});
