package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/store"
)

func dbCopyCommand() *cli.Command {
	return &cli.Command{
		Name:  "copy",
		Usage: "copy runs from one database to another (SQLite or PostgreSQL, either way), skipping those already there",
		Description: `Copies the runs of SRC into DST, oldest first, each whole: its boards with their facts, status and
validity, what was not measured and why, the raw openssl output, and every point with its validity evidence.
SRC and DST are each a SQLite file or a postgres:// URL. Runs DST already has are skipped — a run is known by
its UUID (fleet show prints it), not its id — so copying again copies only what is new, and a run copied back
and forth stays one run. Copied runs get DST's own ids; the newest run of every series stays the newest.

Each run is copied in one transaction: Ctrl-C (exit 130) or a failure leaves whole runs only, and the same
command run again resumes. SRC is only read, and must be up to date (fleet db migrate --db SRC). DST is created
(a new SQLite file) or migrated if needed; one written by a newer fleet is refused (exit 2).

A run still running in SRC is left out and named: copied now, its later points would never follow, since a
run DST has is never copied again. The note says whether it holds a board's lease (being measured now: copy it
when it ends) or none (its controller may have died, and the run will stay running for ever):
--include-running copies such runs as they are.

   fleet db copy --from fleet.db --to "$FLEET_DB"                       your history into the lab's database
   fleet db copy --from fleet.db --to 'postgres://fleet@db.lab.example/fleet?sslmode=require' --board am64x
   fleet db copy --from "$FLEET_DB" --to lab-backup.db --since 2026-11-01
   fleet db copy --from "$FLEET_DB" --to mine.db --runs 41,42           two runs, by id in SRC (or by UUID)`,
		Before: refuseDBFlag("db copy", "--from SRC and --to DST"),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Required: true, Usage: "copy from `SRC`: a SQLite file or a postgres:// URL (read only)"},
			&cli.StringFlag{Name: "to", Required: true, Usage: "copy into `DST`: a SQLite file (created if missing) or a postgres:// URL"},
			&cli.StringSliceFlag{Name: "runs", Usage: "only these runs of SRC: `ID|UUID`,... (fleet runs --db SRC lists them)",
				Action: func(c *cli.Context, vs []string) error { _, _, err := parseRunRefs(vs); return err }},
			&cli.StringFlag{Name: "board", Usage: "only runs that measured `BOARD` (with all their boards)"},
			&cli.StringFlag{Name: "since", Usage: "only runs started at or after `DATE|RUN` (2026-11-01, 2026-11-01T02:00, 7d, 36h, a run id of SRC)"},
			&cli.BoolFlag{Name: "include-running", Usage: "also copy runs still running in SRC, as they are (for runs whose controller died)"},
			&cli.StringFlag{Name: "db", Hidden: true}, // refused by Before: --from and --to name the databases
		},
		Action: dbCopyAction,
	}
}

func dbCopyAction(c *cli.Context) error {
	from, to := c.String("from"), c.String("to")
	switch {
	case strings.TrimSpace(from) == "":
		return usageErr("--from: empty; want a SQLite file or a postgres:// URL")
	case strings.TrimSpace(to) == "":
		return usageErr("--to: empty; want a SQLite file or a postgres:// URL")
	case from == to:
		return usageErr("--from and --to name the same database; copy between two")
	}
	f := store.CopyFilter{Board: c.String("board"), IncludeRunning: c.Bool("include-running")}
	var err error
	if f.RunIDs, f.RunUUIDs, err = parseRunRefs(c.StringSlice("runs")); err != nil {
		return err
	}
	src, err := store.OpenReadOnly(c.Context, from)
	if err != nil {
		if errors.Is(err, store.ErrOlderSchema) {
			return usageErr("--from: %w; or run fleet db migrate --db SRC", err)
		}
		return usageErr("--from: %w", err)
	}
	defer src.Close()
	if f.Since, err = resolveSince(c, src, c.String("since"), time.Now()); err != nil {
		return err
	}
	if err := checkCopyFilter(c.Context, src, f); err != nil {
		return err
	}
	// A SQLite DST this command creates is removed again when nothing was copied into it: a failed copy
	// leaves no empty database for the next command to take for a real one.
	created := false
	if !store.IsPostgres(to) {
		_, err := os.Stat(to)
		created = errors.Is(err, fs.ErrNotExist)
	}
	removeCreated := func() {
		if created {
			if err := store.RemoveSQLite(to); err != nil {
				fmt.Fprintf(c.App.ErrWriter, "fleet: remove the database this copy created: %v\n", err)
			}
		}
	}
	dst, err := store.Open(c.Context, to)
	if err != nil {
		removeCreated()
		return usageErr("--to: %w", err)
	}
	defer dst.Close()

	bar := newCopyProgress(c.App.ErrWriter)
	res, err := store.Copy(c.Context, src, dst, f, bar.update)
	bar.done(err == nil)
	w := c.App.Writer
	if err != nil {
		if res.Copied == 0 && created {
			dst.Close()
			removeCreated()
		}
		if res.Copied > 0 {
			fmt.Fprintf(c.App.ErrWriter, "fleet: copied %s into %s before stopping; the same command copies the rest\n",
				runsCount(res.Copied, res.Points), dbName(dst))
		}
		return err
	}
	line := "copied " + runsCount(res.Copied, res.Points)
	if res.Present > 0 {
		line += fmt.Sprintf(", %d already there", res.Present)
	}
	fmt.Fprintln(w, line)
	if n := len(res.Running); n > 0 {
		fmt.Fprintf(w, "left out %s still running in %s: %s; copy them when they end (--include-running copies them as they are)\n",
			plural(n, "run"), dbName(src), runningNotes(c.Context, src, res.Running))
	}
	return nil
}

// runningNotes names the runs left out, each with what SRC's board leases say of it: a run holding a live lease
// is being measured now; one without may have lost its controller (or be between two boards).
func runningNotes(ctx context.Context, src *store.DB, ids []int64) string {
	leases, err := src.Leases(ctx)
	if err != nil {
		leases = nil // the notes are a courtesy: the ids alone still say what was left out
	}
	notes := make([]string, len(ids))
	for i, id := range ids {
		var boards []string
		for _, l := range leases {
			if l.RunID == id && !l.Expired {
				boards = append(boards, l.Board)
			}
		}
		switch {
		case err != nil:
			notes[i] = strconv.FormatInt(id, 10)
		case len(boards) > 0:
			notes[i] = fmt.Sprintf("%d (measuring %s now)", id, strings.Join(boards, ", "))
		default:
			notes[i] = fmt.Sprintf("%d (holds no board's lease: its controller may have died)", id)
		}
	}
	return strings.Join(notes, ", ")
}

// parseRunRefs reads --runs: run ids and UUIDs, comma-separated or repeated.
func parseRunRefs(vs []string) (ids []int64, uuids []string, err error) {
	for _, v := range splitList(vs) {
		if store.IsRunUUID(v) {
			uuids = append(uuids, v)
			continue
		}
		id, perr := strconv.ParseInt(v, 10, 64)
		if perr != nil || id <= 0 {
			return nil, nil, usageErr("--runs: %q is neither a run id (a positive number) nor a run UUID (as fleet show prints it)", v)
		}
		ids = append(ids, id)
	}
	return ids, uuids, nil
}

// runsCount says "3 runs (1200 points)", or "0 runs".
func runsCount(runs, points int) string {
	if runs == 0 {
		return "0 runs"
	}
	return fmt.Sprintf("%s (%s)", plural(runs, "run"), plural(points, "point"))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// checkCopyFilter refuses, before DST is touched, a --runs or --board that names nothing in SRC: "copied 0
// runs" would read as success for a typing mistake.
func checkCopyFilter(ctx context.Context, src *store.DB, f store.CopyFilter) error {
	refs := make([]string, 0, len(f.RunIDs)+len(f.RunUUIDs))
	for _, id := range f.RunIDs {
		refs = append(refs, strconv.FormatInt(id, 10))
	}
	refs = append(refs, f.RunUUIDs...)
	for _, ref := range refs {
		if _, err := src.ResolveRun(ctx, ref); errors.Is(err, store.ErrNotFound) {
			return usageErr("--runs %s: %w (fleet runs --db SRC lists them)", ref, err)
		} else if err != nil {
			return err
		}
	}
	if f.Board != "" {
		runs, err := src.Runs(ctx, store.RunFilter{Board: f.Board, Limit: 1})
		if err != nil {
			return err
		}
		if len(runs) == 0 {
			return usageErr("--board %s: no run in %s measured it", f.Board, src.Path)
		}
	}
	return nil
}
