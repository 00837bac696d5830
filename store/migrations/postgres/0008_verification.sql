-- 0007 (PostgreSQL): verification. Each point keeps the controller's verdict on its path's output (ok, wrong, unknown)
-- and what was wrong or why it is unknown. '' is "not verified": points stored before this migration, imports.
ALTER TABLE measurements ADD COLUMN verification TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE measurements ADD COLUMN verification_detail TEXT NOT NULL DEFAULT '';
