-- 0004: every run gets a UUID besides its id, so that runs can move between databases: ids are each database's
-- own, the UUID stays with the run. fleet generates it (a random version 4 UUID) when a run begins or is
-- imported; runs stored before this migration get a random one here, in the same format.
ALTER TABLE runs ADD COLUMN uuid TEXT NOT NULL DEFAULT '';

UPDATE runs SET uuid = lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4'
	|| substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + abs(random() % 4), 1)
	|| substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)));

CREATE UNIQUE INDEX runs_uuid ON runs (uuid);
