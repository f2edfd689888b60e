-- gamma-prompt/runtime/postgres: migrations 1 to 2, as `gamma-prompt postgres migrate` applies them.
-- One statement, so one transaction: under the command's advisory lock it creates gamma_schema_migrations
-- when missing, refuses a table that holds migrations which are not gamma-prompt's, applies each migration
-- the table does not record, in order, and records its version, name and checksum. Applied again, it
-- changes nothing; `gamma-prompt postgres migrate` and the servers find the database it migrated current.
do $gamma_migrate$
declare
  recorded record;
  applied integer[] := '{}';
begin
  perform pg_advisory_xact_lock(4207316613);
  create table if not exists gamma_schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now());
  -- A row with one of gamma-prompt's versions but another name or checksum was written by something else.
  for recorded in
    select m.version, m.name, to_jsonb(m) ->> 'checksum' as checksum, ours.name as our_name, ours.checksum as our_checksum
    from gamma_schema_migrations m left join (values (1, 'sessions', '24a13591ec8cdf8de36bf2c410bd5ee09c1d06d0ca71b50c927ce27a4e47d679'), (2, 'migration_checksums', 'ca75d2e472975e634c24cbba91483ac439930ab91f047d488c5263de9cbc353d')) as ours (version, name, checksum) on ours.version = m.version
    where m.version <= 2
    order by m.version
  loop
    if recorded.our_name is null or recorded.our_name <> recorded.name or recorded.checksum <> recorded.our_checksum then
      raise exception '%', format(
        'Unexpected row in gamma_schema_migrations: migration %s is recorded as "%s" %s; the table holds migrations that are not gamma-prompt''s, so nothing was applied (give gamma-prompt a database or schema of its own)',
        recorded.version, recorded.name,
        case
          when recorded.our_name is null then 'which gamma-prompt never shipped'
          when recorded.our_name <> recorded.name then format('but gamma-prompt''s migration %s is "%s"', recorded.version, recorded.our_name)
          else format('with checksum %s, but gamma-prompt''s has checksum %s', left(recorded.checksum, 12), left(recorded.our_checksum, 12))
        end
      ) using errcode = 'P0001';
    end if;
  end loop;
  -- migration 1: sessions
  if not exists (select 1 from gamma_schema_migrations where version = 1) then
    execute $gamma_migration_1$-- gamma-prompt/runtime/postgres, migration 1: sessions that outlive their server.
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
$gamma_migration_1$;
    insert into gamma_schema_migrations (version, name) values (1, 'sessions');
    applied := applied || 1;
  end if;
  -- migration 2: migration_checksums
  if not exists (select 1 from gamma_schema_migrations where version = 2) then
    execute $gamma_migration_2$-- gamma-prompt/runtime/postgres, migration 2: each applied migration's checksum.
-- Forward-only. Rows recorded before this migration keep a null checksum and are matched by version and name;
-- from here on, the sha256 (hex) of each migration's SQL text is recorded too and compared on every run.
alter table gamma_schema_migrations add column checksum text;
$gamma_migration_2$;
    insert into gamma_schema_migrations (version, name) values (2, 'migration_checksums');
    applied := applied || 2;
  end if;
  -- The checksum column comes with migration 2: each migration applied here gets its checksum once it is there.
  if exists (select 1 from pg_attribute where attrelid = to_regclass('gamma_schema_migrations') and attname = 'checksum' and not attisdropped) then
    execute 'update gamma_schema_migrations m set checksum = ours.checksum from (values (1, ''sessions'', ''24a13591ec8cdf8de36bf2c410bd5ee09c1d06d0ca71b50c927ce27a4e47d679''), (2, ''migration_checksums'', ''ca75d2e472975e634c24cbba91483ac439930ab91f047d488c5263de9cbc353d'')) as ours (version, name, checksum) where m.version = ours.version and m.version = any($1)' using applied;
  end if;
end
$gamma_migrate$;
