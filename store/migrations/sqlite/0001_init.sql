-- 0001: runs, board runs, measurements, skips, raw outputs and the latest point of each series.
-- Results are never updated in place: only runs.status/finished and board_runs.status/error/finished change.
-- Times are UTC text of fixed width (2006-01-02T15:04:05.000000000Z), so they sort as text.

CREATE TABLE runs (
	id           INTEGER PRIMARY KEY,
	started      TEXT    NOT NULL,
	finished     TEXT,
	label        TEXT    NOT NULL DEFAULT '',
	tool_version TEXT    NOT NULL DEFAULT '',
	host         TEXT    NOT NULL DEFAULT '',
	command_line TEXT    NOT NULL DEFAULT '',
	source       TEXT    NOT NULL DEFAULT '',
	status       TEXT    NOT NULL
);
CREATE INDEX runs_started ON runs (started, id);
CREATE INDEX runs_label ON runs (label, started, id);

CREATE TABLE board_runs (
	run_id   INTEGER NOT NULL REFERENCES runs (id),
	board    TEXT    NOT NULL,
	status   TEXT    NOT NULL,
	error    TEXT    NOT NULL DEFAULT '',
	facts    TEXT, -- agent.Facts as JSON; NULL until the probe answered
	started  TEXT    NOT NULL,
	finished TEXT,
	PRIMARY KEY (run_id, board)
);
CREATE INDEX board_runs_board ON board_runs (board, run_id);

CREATE TABLE measurements (
	id            INTEGER PRIMARY KEY,
	run_id        INTEGER NOT NULL,
	board         TEXT    NOT NULL,
	mode          TEXT    NOT NULL,
	algorithm     TEXT    NOT NULL,
	op            TEXT    NOT NULL DEFAULT '',
	block_size    INTEGER NOT NULL DEFAULT 0,
	key_bits      INTEGER NOT NULL DEFAULT 0,
	curve         TEXT    NOT NULL DEFAULT '',
	threads       INTEGER NOT NULL DEFAULT 0,
	repeat        INTEGER NOT NULL DEFAULT 0,
	engine        TEXT    NOT NULL DEFAULT '',
	driver        TEXT    NOT NULL DEFAULT '',
	count         REAL    NOT NULL DEFAULT 0,
	seconds       REAL    NOT NULL DEFAULT 0,
	timing        TEXT    NOT NULL DEFAULT '',
	wall_est_s    REAL    NOT NULL DEFAULT 0,
	bytes_per_sec REAL    NOT NULL DEFAULT 0,
	ops_per_sec   REAL    NOT NULL DEFAULT 0,
	wall_s        REAL    NOT NULL DEFAULT 0,
	user_s        REAL    NOT NULL DEFAULT 0,
	sys_s         REAL    NOT NULL DEFAULT 0,
	cpu_pct       REAL    NOT NULL DEFAULT 0,
	sys_busy_pct  REAL    NOT NULL DEFAULT 0,
	irq_delta     INTEGER NOT NULL DEFAULT 0,
	failed        INTEGER NOT NULL DEFAULT 0,
	error         TEXT    NOT NULL DEFAULT '',
	flags         TEXT, -- JSON array; NULL when there are none
	raw_id        INTEGER NOT NULL DEFAULT 0,
	line          INTEGER NOT NULL DEFAULT 0,
	FOREIGN KEY (run_id, board) REFERENCES board_runs (run_id, board)
);
-- One index serves a run's points per board, the points of one series in one run (latest, history: a seek
-- per run of the board), and keeps inserts nearly sequential: run ids only grow, so a streamed batch touches
-- a few pages at the end of the index instead of one page per series (which made ingest I/O bound).
CREATE INDEX measurements_run_series ON measurements (run_id, board, mode, algorithm, block_size, threads, op,
	key_bits, curve);

CREATE TABLE skips (
	id        INTEGER PRIMARY KEY,
	run_id    INTEGER NOT NULL,
	board     TEXT    NOT NULL,
	mode      TEXT    NOT NULL,
	algorithm TEXT    NOT NULL DEFAULT '',
	reason    TEXT    NOT NULL DEFAULT '',
	FOREIGN KEY (run_id, board) REFERENCES board_runs (run_id, board)
);
CREATE INDEX skips_run ON skips (run_id, board);

CREATE TABLE raw_outputs (
	run_id  INTEGER NOT NULL,
	board   TEXT    NOT NULL,
	raw_id  INTEGER NOT NULL,
	command TEXT    NOT NULL, -- JSON array of argv
	env     TEXT, -- JSON array; NULL when empty
	stdout  TEXT    NOT NULL DEFAULT '',
	stderr  TEXT    NOT NULL DEFAULT '',
	exit    INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (run_id, board, raw_id),
	FOREIGN KEY (run_id, board) REFERENCES board_runs (run_id, board)
);

-- The newest run that measured each series, kept on insert so that "latest per series" never scans
-- measurements. run_started decides which run is newer, so importing an old run never hides a newer one.
CREATE TABLE latest (
	board          TEXT    NOT NULL,
	mode           TEXT    NOT NULL,
	algorithm      TEXT    NOT NULL,
	op             TEXT    NOT NULL,
	block_size     INTEGER NOT NULL,
	key_bits       INTEGER NOT NULL,
	curve          TEXT    NOT NULL,
	threads        INTEGER NOT NULL,
	run_id         INTEGER NOT NULL,
	run_started    TEXT    NOT NULL,
	PRIMARY KEY (board, mode, algorithm, op, block_size, key_bits, curve, threads)
) WITHOUT ROWID;
