import { describe, expect, it } from "vitest";
import { promptCacheKeys } from "../../src/runtime/prompt-cache.js";

const input = (sessionKey: string, variant = "import") => ({ variant, sessionKey, prefixCacheKey: "942b6bb1e95dd011bd55405e7ef10107e02d6447241195466ae96256770df867" });

describe("prompt_cache_key policies", () => {
  it("per session: stable for one session key, different across sessions, under 64 characters, no raw id on the wire", () => {
    const key = promptCacheKeys.perSession(input("5f0c-session"));
    expect(key).toBe(promptCacheKeys.perSession(input("5f0c-session")));
    expect(key).not.toBe(promptCacheKeys.perSession(input("another")));
    expect(key).toMatch(/^gp-942b6bb1e95d-[0-9a-f]{16}$/);
    expect(key).not.toContain("5f0c");
  });

  it("sharded: sessions of a variant share at most n keys; variants never share one", () => {
    const sharded = promptCacheKeys.sharded(4);
    const keys = new Set(Array.from({ length: 200 }, (_, index) => sharded(input(`session-${index}`))));
    expect(keys.size).toBe(4);
    expect(sharded(input("session-1", "base"))).not.toBe(sharded(input("session-1", "import")));
    expect(() => promptCacheKeys.sharded(0)).toThrow(RangeError);
    expect(promptCacheKeys.none()).toBeUndefined();
  });
});
