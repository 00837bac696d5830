-- 0005: board leases. One row per board while a run measures it, so that two runs — in one process or in several
-- controllers sharing this database — never measure one board at once. A row is taken with an atomic INSERT … ON
-- CONFLICT … DO UPDATE … WHERE the old row has expired, renewed by the holder's heartbeat and deleted when the
-- board's part of the run ends. A holder that died leaves a row whose expires has passed: the next run that wants
-- the board takes it over. Rows are not results: they come and go, and no other table refers to them (nor they to
-- runs, so that a lease never blocks removing a run). Times are UTC text of fixed width like every other time
-- here, so expires compares as text. SQLite is one machine's file, so the controllers' clocks are one clock.
CREATE TABLE leases (
	board     TEXT    PRIMARY KEY,
	run_id    INTEGER NOT NULL,
	label     TEXT    NOT NULL DEFAULT '',
	host      TEXT    NOT NULL DEFAULT '',
	pid       INTEGER NOT NULL DEFAULT 0,
	since     TEXT    NOT NULL, -- when this run took the board
	heartbeat TEXT    NOT NULL, -- the holder's last renewal
	expires   TEXT    NOT NULL  -- heartbeat + the holder's time to live; after it anyone may take the board
);
