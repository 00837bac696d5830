-- 0002: results are never updated in place; a rerun is a new run. Only runs and board_runs change
-- (status, error, facts, finished), and rows may still be deleted by a future prune.
CREATE TRIGGER measurements_never_updated BEFORE UPDATE ON measurements
BEGIN
	SELECT RAISE(ABORT, 'measurements are never updated in place');
END;

CREATE TRIGGER skips_never_updated BEFORE UPDATE ON skips
BEGIN
	SELECT RAISE(ABORT, 'skips are never updated in place');
END;

CREATE TRIGGER raw_outputs_never_updated BEFORE UPDATE ON raw_outputs
BEGIN
	SELECT RAISE(ABORT, 'raw outputs are never updated in place');
END;
