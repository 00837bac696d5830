-- 0002 (PostgreSQL): results are never updated in place; a rerun is a new run. Only runs and board_runs change
-- (status, error, facts, finished), and rows may still be deleted by a future prune. As SQLite's triggers.
CREATE FUNCTION fleet_never_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION '% are never updated in place', TG_ARGV[0] USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER measurements_never_updated BEFORE UPDATE ON measurements
	FOR EACH ROW EXECUTE FUNCTION fleet_never_updated('measurements');

CREATE TRIGGER skips_never_updated BEFORE UPDATE ON skips
	FOR EACH ROW EXECUTE FUNCTION fleet_never_updated('skips');

CREATE TRIGGER raw_outputs_never_updated BEFORE UPDATE ON raw_outputs
	FOR EACH ROW EXECUTE FUNCTION fleet_never_updated('raw outputs');
