/** The stored state's format version and the errors a store reports (shared by the stores and the journal). */

export const STATE_VERSION = 1;

export class StateStoreError extends Error {
  constructor(
    readonly location: string,
    message: string,
  ) {
    super(`${location}: ${message}`);
    this.name = "StateStoreError";
  }
}

/** A second writer changed the same state (two processes for one session): refused, never merged. */
export class StateConflictError extends StateStoreError {
  constructor(location: string, message: string) {
    super(location, message);
    this.name = "StateConflictError";
  }
}
