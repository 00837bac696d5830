// Command store measures the fleet store at scale (bench/README.md §d and §j): it ingests N points through
// store.RunWriter exactly as `fleet run` streams them (one goroutine per board, batches of 50), then times
// latest-per-series and one-series-history queries over the result. -db takes a SQLite file or the URL of an
// empty PostgreSQL database, so both backends are measured by the same code.
//
//	go run ./bench/store -points 1000000
//	go run ./bench/store -points 1000000 -db 'postgres://fleet@127.0.0.1/fleetbench?sslmode=disable'
package main

import (
	"cmp"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fleetlab/fleet/internal/pgtest"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

func main() {
	points := flag.Int("points", 1_000_000, "points to ingest (0: none, only time the queries over -db as it is)")
	boards := flag.Int("boards", 5, "boards per run, written concurrently")
	dbPath := flag.String("db", "", "database: a SQLite file, or a postgres:// URL of an empty PostgreSQL database "+
		"(default: a new SQLite file in a temporary directory)")
	postgres := flag.Bool("postgres", false, "start a throwaway PostgreSQL server (Debian's binaries, as the tests do) "+
		"and use a new database on it instead of -db")
	reps := flag.Int("queries", 20, "times each query runs; the median is reported")
	batch := flag.Int("batch", 0, "points per commit (store.DB.BatchSize; 0: the default, 50)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the ingest to this file")
	queryprofile := flag.String("queryprofile", "", "write a CPU profile of the queries to this file")
	only := flag.String("only", "", "time only the queries whose name contains this text")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench store:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	stopServer := func() {} // os.Exit skips the deferred Stop
	if *postgres {
		srv, err := pgtest.Start(context.Background())
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench store:", err)
			os.Exit(1)
		}
		defer srv.Stop()
		stopServer = func() { srv.Stop() }
		if *dbPath, err = srv.CreateDatabase(context.Background(), "bench"); err != nil {
			fmt.Fprintln(os.Stderr, "bench store:", err)
			srv.Stop()
			os.Exit(1)
		}
		fmt.Printf("server: PostgreSQL %s, started for this benchmark, on loopback TCP\n", srv.Version())
	}
	if err := run(context.Background(), *dbPath, *points, *boards, *batch, *reps, *queryprofile, *only); err != nil {
		fmt.Fprintln(os.Stderr, "bench store:", err)
		stopServer()
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// sweep is one board's points in one run: modes × algorithms × sizes × repeats, repeats interleaved.
func sweep() []protocol.Point {
	var ps []protocol.Point
	for r := range 3 {
		for _, mode := range []string{"soft", "cpu", "devcrypto", "afalg", "kcapi"} {
			for _, alg := range []string{"aes-128-cbc", "aes-256-cbc", "aes-128-gcm", "chacha20-poly1305",
				"sha1", "sha256", "sha512"} {
				for _, size := range []int{16, 64, 256, 1024, 8192, 16384} {
					bps := float64(size) * 1e5 * (1 + 0.01*float64(r))
					ps = append(ps, protocol.Point{Mode: mode, Algorithm: alg, Op: "encrypt", BlockSize: size,
						Threads: 1, Repeat: r, Count: bps * 3 / float64(size), Seconds: 3, Timing: "wall",
						BytesPerSec: bps, WallS: 3.01, UserS: 2.95, SysS: 0.04, CPUPct: 99.3, RawID: r})
				}
			}
		}
	}
	return ps
}

func run(ctx context.Context, path string, total, boards, batch, reps int, queryprofile, only string) error {
	if path == "" {
		dir, err := os.MkdirTemp("", "fleet-bench-store-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "fleet.db")
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	db.BatchSize = batch

	fmt.Printf("machine: %s/%s, %d CPUs (GOMAXPROCS %d)\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		runtime.GOMAXPROCS(0))
	fmt.Printf("database: %s\n", db.Path)
	fmt.Printf("load: %s before the ingest\n", loadAvg())
	if total > 0 {
		if err := ingestAll(ctx, db, path, total, boards, batch); err != nil {
			return err
		}
		fmt.Printf("load: %s after the ingest\n", loadAvg())
	}
	defer func() { fmt.Printf("load: %s after the queries\n", loadAvg()) }()

	queries := storeQueries(ctx, db)
	if queryprofile != "" {
		f, err := os.Create(queryprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	for _, q := range queries {
		if !strings.Contains(q.name, only) {
			continue
		}
		if err := timeQuery(q, reps); err != nil {
			return err
		}
	}
	return nil
}

// benchQuery is one query the benchmark times: f runs it once and returns how many rows it read.
type benchQuery struct {
	name string
	f    func() (int, error)
}

// storeQueries are the queries timed over the ingested store: the ones `fleet` front ends make.
func storeQueries(ctx context.Context, db *store.DB) []benchQuery {
	return []benchQuery{
		{"LatestPoints, all series", func() (int, error) {
			ms, err := db.LatestPoints(ctx, store.Filter{})
			return len(ms), err
		}},
		{"LatestPoints, one board", func() (int, error) {
			ms, err := db.LatestPoints(ctx, store.Filter{Board: "board0"})
			return len(ms), err
		}},
		{"LatestPoints, label, one board", func() (int, error) {
			ms, err := db.LatestPoints(ctx, store.Filter{Board: "board0", Label: "nightly"})
			return len(ms), err
		}},
		{"History, one series", func() (int, error) {
			ms, err := db.History(ctx, store.SeriesKey{Board: "board1", Mode: "cpu", Algorithm: "aes-128-cbc",
				BlockSize: 1024})
			return len(ms), err
		}},
		{"Measurements, latest run per board", func() (int, error) {
			ms, err := db.Measurements(ctx, store.Filter{Latest: true, Board: "board2"})
			return len(ms), err
		}},
		{"Runs, newest 20", func() (int, error) {
			rs, err := db.Runs(ctx, store.RunFilter{Limit: 20})
			return len(rs), err
		}},
	}
}

// timeQuery runs q reps times and prints the median, minimum and maximum wall time and the median CPU time.
func timeQuery(q benchQuery, reps int) error {
	var times, cpus []time.Duration
	var rows int
	for range reps {
		t0, c0 := time.Now(), cpuTime()
		n, err := q.f()
		if err != nil {
			return fmt.Errorf("%s: %w", q.name, err)
		}
		times, cpus = append(times, time.Since(t0)), append(cpus, cpuTime()-c0)
		rows = n
	}
	slices.Sort(times)
	slices.Sort(cpus)
	fmt.Printf("query: %-36s %5d rows  median %7.2f ms  min %7.2f ms  max %7.2f ms  cpu median %7.2f ms\n",
		q.name, rows, ms(times[len(times)/2]), ms(times[0]), ms(times[len(times)-1]), ms(cpus[len(cpus)/2]))
	return nil
}

// ingestAll writes total points (rounded up to whole runs) and prints how long it took.
func ingestAll(ctx context.Context, db *store.DB, path string, total, boards, batch int) error {
	perBoard := sweep()
	perRun := len(perBoard) * boards
	runs := (total + perRun - 1) / perRun
	fmt.Printf("ingest: %d runs × %d boards × %d points = %d points, %d series, batches of %d\n", runs, boards,
		len(perBoard), runs*perRun, boards*len(perBoard)/3, cmp.Or(batch, 50))
	start, cpu0 := time.Now(), cpuTime()
	stored := 0
	for i := range runs {
		if err := ingestRun(ctx, db, i, boards, perBoard); err != nil {
			return err
		}
		stored += perRun
	}
	ingest, cpu := time.Since(start), cpuTime()-cpu0
	size, err := databaseSize(ctx, path)
	if err != nil {
		return err
	}
	fmt.Printf("ingest: %d points in %.2f s wall = %.0f points/s; %.2f s CPU (user+sys) = %.0f points/CPU-s; "+
		"database %d MiB\n", stored, ingest.Seconds(), float64(stored)/ingest.Seconds(), cpu.Seconds(),
		float64(stored)/cpu.Seconds(), size>>20)

	return nil
}

// databaseSize is the size of the SQLite file, or of the PostgreSQL database (pg_database_size: tables,
// indexes and TOAST, without the WAL).
func databaseSize(ctx context.Context, path string) (int64, error) {
	if !store.IsPostgres(path) {
		fi, err := os.Stat(path)
		if err != nil {
			return 0, err
		}
		return fi.Size(), nil
	}
	db, err := sql.Open("pgx", path)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int64
	if err := db.QueryRowContext(ctx, `SELECT pg_database_size(current_database())`).Scan(&n); err != nil {
		return 0, fmt.Errorf("database size: %w", err)
	}
	return n, nil
}

// cpuTime is the user and system CPU time of this process so far: on a shared machine it varies less than
// the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAvg is the machine's load average (1, 5, 15 minutes), printed beside the figures: on a shared machine
// they mean little without it.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ingestRun writes one run with the boards streaming concurrently, as the controller does.
func ingestRun(ctx context.Context, db *store.DB, i, boards int, ps []protocol.Point) error {
	w, err := db.BeginRun(ctx, store.RunInfo{Label: "nightly", ToolVersion: "bench", Host: "bench"})
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make([]error, boards)
	for b := range boards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			board := fmt.Sprintf("board%d", b)
			errs[b] = func() error {
				if err := w.BoardStarted(ctx, board); err != nil {
					return err
				}
				for _, p := range ps {
					if err := w.Point(ctx, board, p); err != nil {
						return err
					}
				}
				return w.BoardFinished(ctx, board, "ok", "")
			}()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("run %d: %w", i, err)
		}
	}
	return w.Finish(ctx, protocol.StatusOK)
}
