-- 0004: every run gets a UUID besides its id, so that runs can move between databases: ids are each database's
-- own, the UUID stays with the run. fleet generates it (a random version 4 UUID) when a run begins or is
-- imported; runs stored before this migration get a random one here (gen_random_uuid, built in since PostgreSQL
-- 13). Stored as text, as in SQLite, so both dialects read and compare it alike.
ALTER TABLE runs ADD COLUMN uuid TEXT NOT NULL DEFAULT '';

UPDATE runs SET uuid = gen_random_uuid()::text;

CREATE UNIQUE INDEX runs_uuid ON runs (uuid);
