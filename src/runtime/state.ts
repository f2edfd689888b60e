/**
 * Where a session's execution state is kept, in one import: the store
 * contract, the memory and file stores, and the errors they and the state
 * owner report. The modules behind it are under ./state/ (the contract and
 * the memory store, the file store, the journal, the owner).
 */
export { MemoryStateStore, type MaybePromise, type StateRecovery, type StateStore, type StateStoreOptions } from "./state/store.js";
export { FileStateStore, type FileStateStoreOptions } from "./state/file-store.js";
export { SessionDisposedError, STATE_VERSION, StateConflictError, StateStoreError, StateWriteFailedError } from "./state/errors.js";
