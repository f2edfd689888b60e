import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { moduleRoot } from "../../package-paths.js";
import type { JoinMeasure, TokenAnswer, TokenRequest } from "../../tokens.js";

/**
 * Counts tokens on a second thread (src/token-worker.ts) while the main
 * thread goes on. A large cold build spends about a quarter of its time in
 * the tokenizer: loading its 200,000 ranks, then counting the prefix and every
 * skill's body for the manifest. Started before lint, the worker has loaded
 * the tokenizer by the time the bodies are known, counts them while the
 * prompts render, and hands the counts to the build's TokenCounter.
 *
 * The worker only ever saves time: one that cannot start (no compiled worker
 * beside this module, as under the test runner), fails or stops answers
 * `undefined`, and whatever was not counted there is counted on the main
 * thread as before. Its answers come from the same tokenizer and functions
 * the main thread runs, so the build's bytes are the same either way.
 */

/** The compiled worker, beside tokens.js at the top of lib/. */
const WORKER_FILE = new URL("token-worker.js", moduleRoot);

/** What the worker counted: counts by text, and join measures by request. */
export interface CountedTokens {
  counts: Map<string, number>;
  joins: Array<{ tail: string; suffix: string; measure: JoinMeasure }>;
}

export class TokenWorker {
  private readonly pending = new Map<number, (answer: TokenAnswer | undefined) => void>();
  private nextId = 0;
  private stopped = false;

  private constructor(private readonly worker: Worker) {
    // Idle, the worker never keeps the process alive; while a request waits for it, it does.
    worker.unref();
    worker.on("message", (answer: TokenAnswer) => this.settle(answer.id, answer));
    const stop = (): void => {
      this.stopped = true;
      for (const id of [...this.pending.keys()]) this.settle(id, undefined);
    };
    worker.on("error", stop);
    worker.on("exit", stop);
  }

  /**
   * A started worker, or undefined when there is none to start or no second core to run it on (then count
   * on the main thread).
   */
  static start(file: URL = WORKER_FILE): TokenWorker | undefined {
    if (availableParallelism() < 2 || !existsSync(file)) return undefined;
    try {
      return new TokenWorker(new Worker(file));
    } catch {
      return undefined;
    }
  }

  /** Counts `texts` and measures each (tail, suffix) join; undefined when the worker could not answer. Never rejects. */
  async count(texts: Iterable<string>, joins: ReadonlyArray<readonly [tail: string, suffix: string]> = []): Promise<CountedTokens | undefined> {
    if (this.stopped) return undefined;
    const request: TokenRequest = { id: this.nextId++, texts: [...new Set(texts)], joins: joins.map(([tail, suffix]) => [tail, suffix]) };
    const answer = await new Promise<TokenAnswer | undefined>((resolve) => {
      this.pending.set(request.id, resolve);
      this.worker.ref();
      try {
        this.worker.postMessage(request);
      } catch {
        this.settle(request.id, undefined);
      }
    });
    if (!answer || answer.counts.length !== request.texts.length || answer.joins.length !== request.joins.length) return undefined;
    return {
      counts: new Map(request.texts.map((text, index) => [text, answer.counts[index] as number])),
      joins: request.joins.map(([tail, suffix], index) => ({ tail, suffix, measure: answer.joins[index] as JoinMeasure })),
    };
  }

  /** Stops the worker; a request still waiting is answered undefined. */
  close(): void {
    this.stopped = true;
    void this.worker.terminate();
  }

  private settle(id: number, answer: TokenAnswer | undefined): void {
    const resolve = this.pending.get(id);
    if (!resolve) return;
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
    resolve(answer);
  }
}
