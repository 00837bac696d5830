package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/internal/pgtest"
	"github.com/jackc/pgx/v5"
)

// pgServer is the throwaway PostgreSQL cluster the controllers of -controllers share (pgtest's: initdb in a
// temporary directory, a private port, fsync off), one fresh database per round and number of boards.
type pgServer struct{ srv *pgtest.Server }

func startPG() (*pgServer, error) {
	srv, err := pgtest.Start(context.Background())
	if err != nil {
		return nil, fmt.Errorf("-controllers: start postgresql: %w", err)
	}
	return &pgServer{srv}, nil
}

func (p *pgServer) stop() { p.srv.Stop() }

func (p *pgServer) database(name string) (string, error) {
	return p.srv.CreateDatabase(context.Background(), name)
}

// dbStat is what the database has done so far: the cluster's CPU, the database's transactions as
// pg_stat_database counts them, the errors the server logged (a unique violation, a serialization failure or
// a deadlock is logged as ERROR), and what fleet stored and still holds.
type dbStat struct {
	cpu                           float64
	commits, rollbacks, deadlocks int64
	errors                        int
	points, boardRuns, leasesHeld int64
}

// dbDelta is what a phase added; leasesHeld is the count at its end.
type dbDelta = dbStat

func (a dbStat) since(b dbStat) dbDelta {
	return dbDelta{cpu: a.cpu - b.cpu, commits: a.commits - b.commits, rollbacks: a.rollbacks - b.rollbacks,
		deadlocks: a.deadlocks - b.deadlocks, errors: a.errors - b.errors, points: a.points - b.points,
		boardRuns: a.boardRuns - b.boardRuns, leasesHeld: a.leasesHeld}
}

// stat reads dbStat of the database at dsn; a figure it cannot read ends the benchmark, since a missing one
// would read as "no conflicts".
func (p *pgServer) stat(dsn string) dbStat {
	ctx := context.Background()
	var st dbStat
	var err error
	if st.cpu, err = clusterCPU(filepath.Join(p.srv.Dir, "data")); err != nil {
		fatalf("database CPU: %v", err)
	}
	log, err := os.ReadFile(filepath.Join(p.srv.Dir, "postgres.log"))
	if err != nil {
		fatalf("database log: %v", err)
	}
	st.errors = strings.Count(string(log), "ERROR:")
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		fatalf("database stats: %v", err)
	}
	defer c.Close(ctx)
	err = c.QueryRow(ctx, `SELECT xact_commit, xact_rollback, deadlocks FROM pg_stat_database
		WHERE datname = current_database()`).Scan(&st.commits, &st.rollbacks, &st.deadlocks)
	if err == nil {
		err = c.QueryRow(ctx, `SELECT (SELECT count(*) FROM measurements), (SELECT count(*) FROM board_runs),
			(SELECT count(*) FROM leases)`).Scan(&st.points, &st.boardRuns, &st.leasesHeld)
	}
	if err != nil {
		fatalf("database stats: %v", err)
	}
	return st
}

// clusterCPU is the CPU seconds (user+sys) of the cluster in dataDir so far: the postmaster, the children it
// has reaped (a client's backend is reaped when the client disconnects) and its live children, as
// bench/store/pgcpu.sh counts them.
func clusterCPU(dataDir string) (float64, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	pm := strings.SplitN(string(b), "\n", 2)[0]
	ticks, err := statTicks(pm, true)
	if err != nil {
		return 0, err
	}
	children, _ := filepath.Glob("/proc/" + pm + "/task/*/children")
	for _, f := range children {
		b, _ := os.ReadFile(f)
		for _, pid := range strings.Fields(string(b)) {
			t, _ := statTicks(pid, false) // a child that exited since is in the postmaster's reaped time
			ticks += t
		}
	}
	return float64(ticks) / clockTicks, nil
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on every Linux architecture fleet runs on.
const clockTicks = 100

// statTicks is utime+stime of /proc/PID/stat, and with reaped cutime+cstime too.
func statTicks(pid string, reaped bool) (int64, error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces: count the fields after its ')'.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 15 {
		return 0, fmt.Errorf("/proc/%s/stat: %d fields", pid, len(f))
	}
	last := 13 // fields 14 and 15 (utime, stime) are f[11], f[12]; cutime, cstime f[13], f[14]
	if reaped {
		last = 15
	}
	var sum int64
	for _, v := range f[11:last] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%s/stat: %q: %w", pid, v, err)
		}
		sum += n
	}
	return sum, nil
}
