/**
 * What a model call starts from besides the transcript Pi keeps: the
 * messages of a user turn (the user's words, the turn's knowledge hints, the
 * pending injections not handed to Pi yet) and the anchor that puts the
 * execution state back into the context after a compaction or a reload.
 * Pending injections stay pending until a model call used a context that
 * carried them; this only marks where they wait. Pi-free.
 */
import type { LoadedSkill } from "./artifacts.js";
import { anchorPreloadedSkills, renderAnchor } from "./anchor.js";
import type { InvocationEnforcer } from "./invocation/required-skills.js";
import type { SessionKnowledge } from "./knowledge/session-knowledge.js";
import { ANCHOR_CUSTOM_TYPE, createTrustedMessage, isAnchorMessage, kindOf, type GammaCustomMessage, type ImagePart, type RuntimeUserMessage } from "./messages.js";
import type { SessionStateOwner } from "./state/owner.js";

export interface TurnInput {
  text?: string;
  images?: ImagePart[];
  /** Ready-made user messages, sent before `text`. */
  messages?: RuntimeUserMessage[];
  /** Skills this turn requires (the interface knows the request, e.g. "new deck"): see `requireSkills`. */
  requiredSkills?: readonly string[];
}

export type TurnMessage = RuntimeUserMessage | GammaCustomMessage;

/** What the context needs from the rest of the session. */
export interface ContextHost {
  readonly owner: SessionStateOwner;
  readonly skills: ReadonlyMap<string, LoadedSkill>;
  /** The skills the session's variant preloads: its system prompt holds their bodies. */
  readonly preloaded: ReadonlySet<string>;
  readonly knowledge: SessionKnowledge;
  readonly enforcer: InvocationEnforcer;
  now(): number;
}

export class SessionContext {
  /** Set when the context the session was opened on lacks what the state holds (see {@link anchorDue}). */
  private due = false;

  constructor(private readonly host: ContextHost) {}

  /**
   * The context the session was opened on lacks bodies the state holds
   * active (skills its variant preloaded, which the serving variant does
   * not): the next context made carries a fresh anchor, whether it is a
   * resume, a reload or the next turn's messages.
   */
  anchorDue(): void {
    this.due = true;
  }

  /**
   * The messages for the next `Agent.prompt(messages)`: the user's message,
   * the turn's knowledge hints, then every pending injection not already
   * handed to Pi, oldest first.
   */
  turnMessages(input: TurnInput): TurnMessage[] {
    if (input.requiredSkills !== undefined) this.host.enforcer.require(input.requiredSkills, "turn");
    const messages: TurnMessage[] = [...(input.messages ?? [])];
    if (input.text !== undefined || (input.images?.length ?? 0) > 0) {
      messages.push({
        role: "user",
        content: [...(input.text === undefined ? [] : [{ type: "text" as const, text: input.text }]), ...(input.images ?? [])],
        timestamp: this.host.now(),
      });
    }
    if (messages.length > 0) {
      // Knowledge hints ride with the user's turn, right after the user's own words.
      const hints = this.host.knowledge.hintsForTurn(turnText(messages));
      if (hints !== undefined) messages.push(hints);
    }
    // Owed since the session opened (no resume or reload made one): the anchor comes first, with the pending events.
    if (this.due) messages.unshift(this.anchor());
    for (const entry of this.host.owner.pending.select((candidate) => candidate.queuedAs === undefined)) messages.push(entry.message);
    return messages;
  }

  /**
   * The messages an AgentSession's next prompt carries after the user's own
   * (its next-turn list): the turn's knowledge hints, then the unsent
   * injections, oldest first, marked as riding with that prompt.
   */
  nextTurnMessages(text: string): GammaCustomMessage[] {
    const hints = this.host.knowledge.hintsForTurn(text);
    const anchor = this.due ? this.anchor() : undefined;
    const pending = this.host.owner.pending;
    const due = pending.select((entry) => entry.queuedAs === undefined);
    pending.markQueued(
      due.map((entry) => entry.id),
      "next_turn",
    );
    return [...(anchor === undefined ? [] : [anchor]), ...(hints === undefined ? [] : [hints]), ...due.map((entry) => entry.message)];
  }

  /**
   * The anchor for the current state. It carries every pending injection not
   * waiting in a Pi queue; they stay pending, marked as riding with this
   * anchor, until a model call used a context holding it, so restoring the
   * context again before that (or a restart) loses none of them. After a
   * compaction the anchor also carries those already in the context (the
   * summary may have replaced them); a session resumed on its whole
   * transcript passes `carryInContext: false`, as the transcript holds them.
   */
  anchor(options: { carryInContext?: boolean } = {}): GammaCustomMessage {
    const { owner, skills, enforcer } = this.host;
    const inContext = options.carryInContext !== false;
    const carried = owner.pending.select((entry) => entry.queuedAs === undefined || entry.queuedAs === "anchor" || (inContext && entry.queuedAs === "context"));
    const ids = carried.map((entry) => entry.id);
    owner.pending.markQueued(ids, "anchor");
    this.due = false;
    return createTrustedMessage({
      kind: kindOf(ANCHOR_CUSTOM_TYPE),
      content: renderAnchor({ state: owner.snapshot(), skills, injections: carried, missingRequired: enforcer.missing() }),
      details: { anchor: true, stateRevision: owner.revision, injectionIds: ids },
      timestamp: this.host.now(),
    });
  }

  /**
   * The anchor a resumed session needs, if any. A context that holds an
   * anchor already (the one the last server sent) keeps it: the conversation
   * after it shows what changed since, and a fresh one would push it out of
   * its place in the cached prefix each time the session moves to another
   * server, and add its whole text to the transcript each time. One is made
   * when the context holds none, to carry an injection not queued yet, when
   * one is owed ({@link anchorDue}), or when the newest one it holds was made
   * on another variant (it lists as preloaded a skill this variant's system
   * prompt lacks, so that body is nowhere in the context).
   */
  resumeAnchor(messages: readonly unknown[]): GammaCustomMessage | undefined {
    const unqueued = this.host.owner.pending.select((entry) => entry.queuedAs === undefined).length > 0;
    const held = messages.findLast((message) => isAnchorMessage(message)) as GammaCustomMessage | undefined;
    if (!unqueued && !this.due && held !== undefined && !this.madeOnAnotherVariant(held)) return undefined;
    return this.anchor({ carryInContext: false });
  }

  private madeOnAnotherVariant(anchor: GammaCustomMessage): boolean {
    return anchorPreloadedSkills(anchor.content).some((name) => !this.host.preloaded.has(name));
  }

  /** After a compaction: every older anchor dropped and a fresh one appended, so the context holds exactly one. */
  restore<M>(messages: readonly M[]): (M | GammaCustomMessage)[] {
    return withAnchor(messages, this.anchor());
  }

  /**
   * A reload of a context that was not compacted, decided as on a resumed
   * session ({@link resumeAnchor}): an anchor it holds stays where it is and
   * none is added, so the request's prefix stays the same; otherwise a fresh
   * one replaces the older ones.
   */
  reload<M>(messages: readonly M[]): (M | GammaCustomMessage)[] {
    const anchor = this.resumeAnchor(messages);
    return anchor === undefined ? [...messages] : withAnchor(messages, anchor);
  }
}

function withAnchor<M>(messages: readonly M[], anchor: GammaCustomMessage): (M | GammaCustomMessage)[] {
  return [...messages.filter((message) => !isAnchorMessage(message)), anchor];
}

/** The text of a turn's user messages, for candidate selection. */
function turnText(messages: readonly TurnMessage[]): string {
  return messages
    .flatMap((message) => (message.role !== "user" ? [] : typeof message.content === "string" ? [message.content] : message.content.flatMap((part) => (part.type === "text" ? [part.text] : []))))
    .join("\n");
}
