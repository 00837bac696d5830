-- 0003: validity. Each point keeps the evidence the agent collected around it and the controller's verdict; each
-- board run its verdict over its points. '' is "not judged": points stored before this migration, imported
-- captures, agents without evidence.
ALTER TABLE measurements ADD COLUMN validity TEXT NOT NULL DEFAULT '';
ALTER TABLE measurements ADD COLUMN validity_reasons TEXT; -- JSON array; NULL when there are none
ALTER TABLE measurements ADD COLUMN evidence TEXT; -- protocol.Evidence as JSON; NULL when the agent sent none

ALTER TABLE board_runs ADD COLUMN validity TEXT NOT NULL DEFAULT '';
ALTER TABLE board_runs ADD COLUMN validity_reasons TEXT; -- JSON array
