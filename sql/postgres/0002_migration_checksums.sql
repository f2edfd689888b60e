-- gamma-prompt/runtime/postgres, migration 2: each applied migration's checksum.
-- Forward-only. Rows recorded before this migration keep a null checksum and are matched by version and name;
-- from here on, the sha256 (hex) of each migration's SQL text is recorded too and compared on every run.
alter table gamma_schema_migrations add column checksum text;
