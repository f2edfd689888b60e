-- gamma-prompt/runtime/postgres, migration 1: sessions that outlive their server.
-- Forward-only. Applied by migratePostgres() (or `gamma-prompt postgres migrate`) in one transaction,
-- under an advisory lock, and recorded in gamma_schema_migrations.

-- One row per session: its lease (the host that may write, and the fencing token every write checks)
-- and its latest snapshot.
create table gamma_sessions (
  session_key text primary key,
  variant text not null,
  lease_owner text,
  lease_token bigint not null default 0,
  lease_expires_at timestamptz,
  snapshot jsonb,
  snapshot_revision integer not null default 0,
  created_at timestamptz not null default now()
);

-- The execution state's records after the snapshot: one row per change. Two writers can never both
-- commit revision n.
create table gamma_state_records (
  session_key text not null references gamma_sessions (session_key) on delete cascade,
  revision integer not null,
  record jsonb not null,
  primary key (session_key, revision)
);

-- Pi's transcript as written: session entries (AgentSession) or messages (Agent), in order.
create table gamma_transcript (
  session_key text not null references gamma_sessions (session_key) on delete cascade,
  seq integer not null,
  entry jsonb not null,
  primary key (session_key, seq)
);

-- Runtime injections other services published for a session. The table is the truth; NOTIFY on the
-- channel gamma_events (payload: the session key) only wakes the host. A row is routed once a state
-- record that routes it is stored, in the same statement; a row the session refuses keeps the reason.
create table gamma_events (
  session_key text not null,
  event_id text not null,
  seq bigint generated always as identity,
  payload jsonb not null,
  published_at timestamptz not null default now(),
  routed_at timestamptz,
  refused_at timestamptz,
  refusal text,
  primary key (session_key, event_id)
);

create index gamma_events_unrouted on gamma_events (session_key, seq) where routed_at is null and refused_at is null;
