-- 0010 (PostgreSQL): latest and point_counts made right where DropBoards before this version left them wrong. It deleted the
-- latest rows a dropped board's run had claimed without giving those series back to an older run that measured
-- them (so "latest per series" lost them until the board measured them again), and kept the dropped board's
-- point counts. latest is rebuilt from the points: per series, the newest run (by start, then id) that is not
-- a vendor reference and has points of it, as the writer and DropBoards now keep it. The distinct series of
-- each run come from measurements_run_series alone (it holds every series column).
DELETE FROM point_counts WHERE NOT EXISTS (SELECT 1 FROM board_runs b
	WHERE b.run_id = point_counts.run_id AND b.board = point_counts.board);

DELETE FROM latest;

INSERT INTO latest (board, mode, algorithm, op, block_size, key_bits, curve, threads, run_id, run_started)
	SELECT board, mode, algorithm, op, block_size, key_bits, curve, threads, run_id, started FROM (
		SELECT s.board, s.mode, s.algorithm, s.op, s.block_size, s.key_bits, s.curve, s.threads, r.id AS run_id,
			r.started, row_number() OVER (PARTITION BY s.board, s.mode, s.algorithm, s.op, s.block_size, s.key_bits,
				s.curve, s.threads ORDER BY r.started DESC, r.id DESC) AS n
		FROM (SELECT DISTINCT run_id, board, mode, algorithm, op, block_size, key_bits, curve, threads
			FROM measurements) s
		JOIN runs r ON r.id = s.run_id
		WHERE r.status <> 'reference') newest
	WHERE n = 1;
