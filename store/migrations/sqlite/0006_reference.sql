-- 0009: vendors' published tables as reference data (runs with status 'reference', fleet import --reference).
-- A reference figure may come with the range the vendor published beside it ("mean (min m, max M)"), in the
-- unit of bytes_per_sec or ops_per_sec; 0 when none. Reference runs never enter latest, baselines or history
-- (the store's queries leave status 'reference' out), so no index changes.
ALTER TABLE measurements ADD COLUMN published_min REAL NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN published_max REAL NOT NULL DEFAULT 0;
