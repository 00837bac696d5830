-- 0009: the points of each board run counted by validity verdict, reasons and failure, kept by the writer as it inserts
-- points (measurements are never updated or deleted one by one), so that listing runs with "24 of 24 points
-- invalid: background CPU" reads a few rows per run instead of grouping every point of it. id orders a board
-- run's (verdict, reasons) pairs by their first point, as the causes are listed.
CREATE TABLE point_counts (
	id               INTEGER PRIMARY KEY,
	run_id           INTEGER NOT NULL REFERENCES runs (id),
	board            TEXT    NOT NULL,
	validity         TEXT    NOT NULL,
	validity_reasons TEXT    NOT NULL, -- JSON array as in measurements, '' where that is NULL
	failed           INTEGER NOT NULL,
	points           INTEGER NOT NULL,
	UNIQUE (run_id, board, validity, validity_reasons, failed)
);

INSERT INTO point_counts (run_id, board, validity, validity_reasons, failed, points)
	SELECT run_id, board, validity, coalesce(validity_reasons, ''), failed, count(*) FROM measurements
	GROUP BY run_id, board, validity, coalesce(validity_reasons, ''), failed ORDER BY min(id);
