import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RebuildQueue } from "../../src/watch/queue.js";

/** A build the test finishes by hand, so overlap and batching are observable without timing. */
function controlledBuilds() {
  const batches: string[][] = [];
  const finishers: Array<() => void> = [];
  let running = 0;
  let maxRunning = 0;
  const runBuild = (paths: string[]) => {
    batches.push(paths);
    running++;
    maxRunning = Math.max(maxRunning, running);
    return new Promise<void>((resolve) => {
      finishers.push(() => {
        running--;
        resolve();
      });
    });
  };
  return {
    runBuild,
    batches,
    finishNext: async () => {
      finishers.shift()?.();
      await vi.advanceTimersByTimeAsync(0);
    },
    get maxRunning() {
      return maxRunning;
    },
  };
}

describe("RebuildQueue", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("turns a burst of changes into one build with every path once, sorted", async () => {
    const builds = controlledBuilds();
    const queue = new RebuildQueue(100, builds.runBuild);
    for (let i = 0; i < 50; i++) {
      queue.add(i % 2 === 0 ? "skills/b/SKILL.md" : "prompts/prefix.hbs");
      await vi.advanceTimersByTimeAsync(4);
    }
    expect(builds.batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(100);
    expect(builds.batches).toEqual([["prompts/prefix.hbs", "skills/b/SKILL.md"]]);
  });

  it("never starts a build while one runs and batches changes made meanwhile into the next", async () => {
    const builds = controlledBuilds();
    const queue = new RebuildQueue(100, builds.runBuild);
    queue.add("skills/a/SKILL.md");
    await vi.advanceTimersByTimeAsync(100);
    expect(builds.batches).toHaveLength(1);

    queue.add("skills/b/SKILL.md");
    await vi.advanceTimersByTimeAsync(150);
    queue.add("skills/c/SKILL.md");
    await vi.advanceTimersByTimeAsync(150);
    expect(builds.batches).toHaveLength(1);
    expect(queue.busy).toBe(true);

    await builds.finishNext();
    expect(builds.batches).toEqual([["skills/a/SKILL.md"], ["skills/b/SKILL.md", "skills/c/SKILL.md"]]);
    await builds.finishNext();
    expect(builds.maxRunning).toBe(1);
    expect(queue.busy).toBe(false);
  });

  it("waits for the debounce window when a change lands just before a build ends", async () => {
    const builds = controlledBuilds();
    const queue = new RebuildQueue(100, builds.runBuild);
    queue.add("skills/a/SKILL.md");
    await vi.advanceTimersByTimeAsync(100);
    queue.add("skills/b/SKILL.md");
    await builds.finishNext();
    expect(builds.batches).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(builds.batches).toEqual([["skills/a/SKILL.md"], ["skills/b/SKILL.md"]]);
  });

  it("runs an exclusive task (the initial build) without overlap and queues changes behind it", async () => {
    const builds = controlledBuilds();
    const queue = new RebuildQueue(100, builds.runBuild);
    let finishInitial: () => void = () => undefined;
    const initial = queue.runExclusive(() => new Promise<void>((resolve) => (finishInitial = resolve)));
    queue.add("skills/a/SKILL.md");
    await vi.advanceTimersByTimeAsync(500);
    expect(builds.batches).toEqual([]);
    finishInitial();
    await initial;
    await vi.advanceTimersByTimeAsync(0);
    expect(builds.batches).toEqual([["skills/a/SKILL.md"]]);
  });

  it("keeps going after a build rejects", async () => {
    let calls = 0;
    const queue = new RebuildQueue(100, async () => {
      calls++;
      if (calls === 1) throw new Error("boom");
    });
    queue.add("skills/a/SKILL.md");
    await vi.advanceTimersByTimeAsync(100);
    queue.add("skills/a/SKILL.md");
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toBe(2);
  });

  it("on close, drops pending changes and resolves only after the build in flight", async () => {
    const builds = controlledBuilds();
    const queue = new RebuildQueue(100, builds.runBuild);
    queue.add("skills/a/SKILL.md");
    await vi.advanceTimersByTimeAsync(100);
    queue.add("skills/b/SKILL.md");
    let closed = false;
    const closing = queue.close().then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(500);
    expect(closed).toBe(false);
    await builds.finishNext();
    await closing;
    expect(closed).toBe(true);
    queue.add("skills/c/SKILL.md");
    await vi.advanceTimersByTimeAsync(500);
    expect(builds.batches).toEqual([["skills/a/SKILL.md"]]);
  });
});
