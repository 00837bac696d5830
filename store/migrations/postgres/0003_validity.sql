-- 0003 (PostgreSQL): validity, as migrations/sqlite/0003_validity.sql.
ALTER TABLE measurements ADD COLUMN validity TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE measurements ADD COLUMN validity_reasons TEXT; -- JSON array; NULL when there are none
ALTER TABLE measurements ADD COLUMN evidence TEXT; -- protocol.Evidence as JSON; NULL when the agent sent none

ALTER TABLE board_runs ADD COLUMN validity TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE board_runs ADD COLUMN validity_reasons TEXT; -- JSON array
