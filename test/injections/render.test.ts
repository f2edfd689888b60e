import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  acceptInjection,
  containsReservedTag,
  createTrustedInjectionMessage,
  escapeXml,
  renderInjection,
} from "../../src/runtime/injections/index.js";
import { readGolden } from "../helpers/golden.js";
import { fixturePath, kinds } from "./helpers/fixtures.js";
import { hasReservedOpener, readerView } from "./helpers/oracle.js";

const cases = readdirSync(fixturePath("render")).sort();

describe("rendering: one tag per kind, summary as body, subject data as attributes", () => {
  it.each(cases)("%s matches its golden file", (name) => {
    const injection = acceptInjection(JSON.parse(readFileSync(fixturePath(`render/${name}/event.json`), "utf8")), { kinds });
    const rendered = renderInjection(injection, kinds);
    const golden = fixturePath(`render/${name}/expected.txt`);
    expect(`${rendered}\n`).toBe(readGolden(golden, `${rendered}\n`));
  });

  it.each(cases)("%s keeps routing, origin ids, dedupe key and free-form details private", (name) => {
    const raw = JSON.parse(readFileSync(fixturePath(`render/${name}/event.json`), "utf8")) as Record<string, unknown>;
    const injection = acceptInjection(
      {
        ...raw,
        dedupeKey: "PRIVATE-DEDUPE",
        origin: { ...(raw["origin"] as object | undefined), interactionId: "PRIVATE-INTERACTION", toolCallId: "PRIVATE-CALL" },
        details: { ...(raw["details"] as object | undefined), secret: "PRIVATE-DETAIL" },
      },
      { kinds },
    );
    const rendered = renderInjection(injection, kinds);
    expect(rendered).not.toContain("PRIVATE");
    expect(rendered).not.toMatch(/\b(source|delivery|requiresDecision|dedupeKey|interactionId|toolCallId|jobId)=/);
    const tag = kinds.find((entry) => entry.kind === injection.kind)?.tag ?? "";
    expect(rendered.startsWith(`<${tag} id="`)).toBe(true);
    expect(rendered.endsWith(`</${tag}>`)).toBe(true);
    // Exactly one opening and one closing tag: nothing inside is markup.
    expect(rendered.match(/</g)?.length).toBe(2);
  });

  it("escapes every value with one table, so the body cannot close or open a tag", () => {
    expect(escapeXml(`&<>"'`)).toBe("&amp;&lt;&gt;&quot;&apos;");
    const injection = acceptInjection(JSON.parse(readFileSync(fixturePath("render/escaping/event.json"), "utf8")), { kinds });
    const body = renderInjection(injection, kinds).split("\n").slice(1, -1).join("\n");
    expect(body).not.toMatch(/[<>]/);
    expect(containsReservedTag(body)).toBe(false);
  });

  it("neutralises look-alike brackets inside values, which escaping alone leaves", () => {
    const injection = acceptInjection(JSON.parse(readFileSync(fixturePath("render/look-alike-brackets/event.json"), "utf8")), { kinds });
    const rendered = renderInjection(injection, kinds);
    const inner = rendered.slice(rendered.indexOf(">") + 1, rendered.lastIndexOf("<"));
    expect(containsReservedTag(inner)).toBe(false);
    expect(containsReservedTag(rendered.slice(0, rendered.indexOf(">")).replace(/^<client_view/, ""))).toBe(false);
  });

  it("neutralises reserved tags spelt in Unicode tag characters (invisible copies of ASCII) inside values", () => {
    const injection = acceptInjection(JSON.parse(readFileSync(fixturePath("render/unicode-tag-characters/event.json"), "utf8")), { kinds });
    const rendered = renderInjection(injection, kinds);
    const opening = rendered.slice(0, rendered.indexOf("\n"));
    const inner = rendered.slice(rendered.indexOf("\n") + 1, rendered.lastIndexOf("\n"));
    // Read as a model that decodes tag characters reads it: no reserved tag but the envelope's own.
    expect(hasReservedOpener(inner), readerView(inner)).toBe(false);
    expect(hasReservedOpener(opening.replace(/^<artifact_update/, "")), readerView(opening)).toBe(false);
  });

  it("uses the tag from the kinds table (the one the prefix defines)", () => {
    const injection = acceptInjection(JSON.parse(readFileSync(fixturePath("render/client-view/event.json"), "utf8")));
    expect(() => renderInjection(injection, kinds.filter((entry) => entry.kind !== "client_view"))).toThrow(/dist\/injections\.json/);
  });
});

describe("the trusted custom message", () => {
  it("carries the rendered tag as content and only trusted metadata in details", () => {
    const injection = acceptInjection(JSON.parse(readFileSync(fixturePath("render/artifact-update-brief/event.json"), "utf8")), { kinds });
    const message = createTrustedInjectionMessage(injection, kinds, { timestamp: 42 });
    expect(message).toEqual({
      role: "custom",
      customType: "gamma.artifact_update",
      content: renderInjection(injection, kinds),
      display: false,
      details: {
        trusted: true,
        gammaInjection: true,
        injectionType: "artifact_update",
        injectionId: "evt_123",
        occurredAt: "2026-03-01T10:00:00Z",
        dedupeKey: "brief",
      },
      timestamp: 42,
    });
  });

  it("carries no dedupe key when the event has none, and the clock's time when none is given", () => {
    const injection = acceptInjection(JSON.parse(readFileSync(fixturePath("render/client-view/event.json"), "utf8")), { kinds });
    expect(injection.dedupeKey).toBeUndefined();
    const before = Date.now();
    const message = createTrustedInjectionMessage(injection, kinds);
    expect(Object.keys(message.details).sort()).toEqual(["gammaInjection", "injectionId", "injectionType", "occurredAt", "trusted"]);
    expect(message.timestamp).toBeGreaterThanOrEqual(before);
    expect(message.timestamp).toBeLessThanOrEqual(Date.now());
  });
});
