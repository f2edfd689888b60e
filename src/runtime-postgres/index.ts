// The declarations name Node's types (Buffer, node:fs): a project that does not list "node" in `types` (TypeScript 7's default) still gets them.
/// <reference types="node" preserve="true" />
/**
 * `gamma-prompt/runtime/postgres`: sessions whose state, transcript and
 * events live in PostgreSQL, so a session survives its server and other
 * services reach it wherever it runs. node-postgres (`pg`) is an optional
 * peer dependency; the host passes its pool. The core runtime imports none of this.
 */
export { migratePostgres, postgresMigrations, type Migration, type MigrationResult } from "./migrate.js";
export { EVENTS_CHANNEL, MAX_EVENT_BYTES, publishUpdate, type PublishResult } from "./events.js";
export { PostgresSessions, type Hosted, type HostedAgent, type HostedAgentOptions, type HostedSession, type HostedSessionOptions, type PostgresSessionsOptions } from "./host.js";
export { PostgresStateStore, type PostgresStateStoreOptions } from "./state-store.js";
export {
  DatabaseReadOnlyError,
  DatabaseRolledBackError,
  DatabaseTimeoutError,
  DatabaseUnreachableError,
  EventRejectedError,
  ForeignMigrationError,
  LeaseLostError,
  LeaseNotReleasedError,
  LeaseUnconfirmedError,
  ListenerUnansweredError,
  SchemaNotMigratedError,
  SessionLeasedError,
  SessionPathError,
  SessionsClosedError,
  StoredFormatError,
  type HostedPath,
} from "./errors.js";
export type { Lease } from "./lease.js";
export type { Pool, Queryable } from "./database.js";
