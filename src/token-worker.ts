/**
 * The worker thread a large one-shot build counts its tokens in, while the
 * main thread lints and renders (the client is
 * pipeline/render/token-worker-client.ts). It loads the tokenizer as soon as
 * it starts, which takes about as long as linting a thousand skills, then
 * answers each request with the counts and join measures the main thread's
 * TokenCounter would have made: the same tokenizer, the same functions.
 * This module sits at the top of src/ (and of lib/), beside tokens.ts.
 */
import { parentPort } from "node:worker_threads";
import { measureJoin, tokenizer, type TokenAnswer, type TokenRequest } from "./tokens.js";

if (parentPort) {
  const port = parentPort;
  const tokens = tokenizer();
  port.on("message", (request: TokenRequest) => {
    const answer: TokenAnswer = {
      id: request.id,
      counts: request.texts.map((text) => tokens.count(text)),
      joins: request.joins.map(([tail, suffix]) => measureJoin(tokens, tail, suffix)),
    };
    port.postMessage(answer);
  });
}
