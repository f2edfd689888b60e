import { describe, expect, it } from "vitest";
import { defaultDelivery, effectiveDelivery, isDueAt, shouldWake } from "../../src/runtime/injections/index.js";
import { event, kinds } from "./helpers/fixtures.js";

describe("the delivery policy", () => {
  it("takes each kind's default delivery from the kinds table (dist/injections.json), not from runtime code", () => {
    expect(kinds.map((entry) => defaultDelivery(entry.kind, kinds))).toEqual(kinds.map((entry) => entry.delivery));
    const swapped = kinds.map((entry) => (entry.kind === "client_view" ? { ...entry, delivery: "steer" as const } : entry));
    expect(defaultDelivery("client_view", swapped)).toBe("steer");
  });

  it("maps each delivery to the moments it may enter", () => {
    const steer = event({ delivery: "steer" });
    const followUp = event({ delivery: "follow_up" });
    const nextTurn = event({ delivery: "next_turn" });
    expect([steer, followUp, nextTurn].map((injection) => isDueAt("batch_end", injection))).toEqual([true, true, false]);
    expect([steer, followUp, nextTurn].map((injection) => isDueAt("triggered_turn", injection))).toEqual([true, true, false]);
    expect([steer, followUp, nextTurn].map((injection) => isDueAt("user_turn", injection))).toEqual([true, true, true]);
  });

  it("steers an artifact_update whose subject is a current artifact (by ref or path)", () => {
    const byRef = event({ kind: "artifact_update", delivery: "follow_up", subject: { ref: "gamma:file:g_1:d_2" } });
    const byPath = event({ kind: "artifact_update", delivery: "next_turn", subject: { path: "q3/brief.xml" } });
    const other = event({ kind: "artifact_update", delivery: "next_turn", subject: { path: "q3/notes.md" } });
    const context = { currentArtifacts: [{ ref: "gamma:file:g_1:d_2" }, { ref: "file:q3/brief.xml", path: "q3/brief.xml" }] };
    expect([byRef, byPath, other].map((injection) => effectiveDelivery(injection, context))).toEqual(["steer", "steer", "next_turn"]);
    // Only artifact updates: another kind about the same subject keeps its own delivery.
    expect(effectiveDelivery(event({ kind: "client_view", subject: { ref: "gamma:file:g_1:d_2" } }), context)).toBe("next_turn");
  });

  it("wakes an idle session only for a steering decision about an active task", () => {
    const decision = event({ kind: "system_update", delivery: "steer", requiresDecision: true });
    const passive = event({ kind: "system_update", delivery: "steer" });
    const laterDecision = event({ kind: "background_result", delivery: "follow_up", requiresDecision: true });
    expect(shouldWake([decision], { hasActiveTask: true })).toBe(true);
    expect(shouldWake([decision], { hasActiveTask: false })).toBe(false);
    expect(shouldWake([decision], {})).toBe(false);
    expect(shouldWake([passive, laterDecision], { hasActiveTask: true })).toBe(false);
  });
});
