/**
 * The state journal in one import: what a durable change looks like, how it
 * applies, and how a store reads a snapshot and its records back into one
 * state (./state/journal.ts).
 */
export { applyChange, checkRecord, checkState, parseJournal, replay, seenIdsOf, type ParsedJournal, type StateChange, type StateCore, type StateRecord } from "./state/journal.js";
