// Package store keeps runs, board facts, measurements and raw outputs in SQLite (modernc.org/sqlite, pure Go,
// the default: one file, no setup) or PostgreSQL (pgx through database/sql, for a lab whose controllers share
// one history), with embedded numbered migrations per dialect, batched writes as results stream, and queries
// over history.
//
// Open takes a file name or a postgres:// URL. The DML is written once, in the subset both databases accept, with
// SQLite's placeholders; conn rebinds them for PostgreSQL in one place (dialect.go). The DDL lives in
// migrations/sqlite and migrations/postgres, the same numbers and names in both. Times are fixed-width UTC text
// in both, so they order as text and survive a copy exactly. A database with tables but no fleet migration
// history belongs to another application and is refused, never migrated. On PostgreSQL, migrations hold an
// advisory lock, a transaction aborted for a concurrent one (deadlock, serialization failure) runs again, and
// a URL is shown only without its password (Redact).
//
// Writing: Open a DB, BeginRun, and hand the RunWriter to the controller as its sink (it has fleet.Sink's
// method set; store does not import fleet). Points are committed in batches as they arrive — every
// DB.BatchSize points or DB.BatchDelay after the first uncommitted one, and always on BoardFinished and
// Finish — each batch in one immediate transaction, so a controller that dies loses at most the batch in flight
// and never leaves half of one. On PostgreSQL a batch's points go in with one binary COPY inside that transaction
// (pgcopy.go), elsewhere with multi-row INSERTs; both are built from one column list (columns.go). A run whose controller died keeps status protocol.StatusRunning and no finished time:
// show it as incomplete. Several processes may write one file at once (WAL, busy_timeout, BEGIN IMMEDIATE), or
// one PostgreSQL database (row locks; the latest pointers are upserted in key order).
//
// Leases keep two runs off one board (AcquireLease, RenewLease, ReleaseLease, Leases; the RunWriter has
// fleet.Leaser's method set): one row per board, taken atomically, renewed by the holder's heartbeat, deleted on
// release and by Finish; a lease whose holder died expires. Expiry is judged by one clock: the machine's
// (DB.Now) for SQLite, the server's now() for PostgreSQL.
//
// Reference runs (ImportReference, status protocol.StatusReference) hold a vendor's published figures, with the
// published min/max (migration 0006_reference): they never claim a series' latest pointer (also when copied), and the
// baseline, history, change and "latest" queries leave them out, so a reference is never taken for a
// measurement; Reference and ResolveReference read them by label.
//
// Results are never updated in place (triggers refuse it); only the status, error, facts and finished time of
// runs and board runs change. A small table holds the newest point of every series, kept on insert, so
// LatestPoints never scans history; DropBoards gives a dropped board's series back to their newest run left
// (migration 0010 rebuilt the table where earlier versions had not).
//
// Errors: ErrReadOnly (read-only file, directory or file system), ErrFull (disk full) and ErrCannotOpen mean
// the database cannot be used for writing; ErrNewerSchema means a newer fleet migrated it and Open refuses it,
// for reading too. cmd maps them to exit status 2; ErrNotFound wraps unknown runs. ErrBaselineInvalid (beside
// ErrNotFound) says a baseline matched only runs without a valid point: regress exits 4 on it, "not judged".
// Errors name the database file, or the PostgreSQL URL without its password.
//
// Reading: Runs, ResolveRun, Measurements, LatestPoints, History, BoardRuns, RawOutputs, LatestFacts and
// ResolveBaselines / ResolveBaselineWindow (a regression check's baseline per board: one run, or a label's last K
// valid runs, baseline_window.go) return the plain types of types.go; no SQL leaves this package. Runs and
// BoardRuns count each run's and board run's points by verdict with the causes (Judged, validity_counts.go: a
// grouped count and the distinct reasons of the suspect and invalid points), so that every front end shows a
// run's validity beside its status; BoardRuns also gives each board's previous facts (Previous), for what changed
// on the board since.
package store
