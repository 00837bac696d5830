-- 0012 (PostgreSQL): where a point ran, as migrations/sqlite/0012_point_cpus.sql.
ALTER TABLE measurements ADD COLUMN cpus TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE measurements ADD COLUMN cluster TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE measurements ADD COLUMN pinned_busy_pct DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN other_busy_pct DOUBLE PRECISION NOT NULL DEFAULT 0;
