package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/fleetlab/fleet/store"
)

// BenchmarkPages times every page and API answer in the handler (no network), on the database named by
// FLEET_SERVE_BENCH_DB — the 1 M-point store of bench/store:
//
//	go run ./bench/store -points 1000000 -db /tmp/fleet-1m.db
//	FLEET_SERVE_BENCH_DB=/tmp/fleet-1m.db go test -run '^$' -bench Pages -benchtime 20x ./serve
//
// Without it, on the small test fixture. With FLEET_SERVE_BENCH_OUT set to a directory, each page's last body is
// written there as NAME.out, so that two builds' pages over the same store can be compared byte for byte.
func BenchmarkPages(b *testing.B) {
	path := os.Getenv("FLEET_SERVE_BENCH_DB")
	if path == "" {
		path = writeFixture(b)
	}
	ctx := context.Background()
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := &Server{DB: db}
	h, err := s.Handler()
	if err != nil {
		b.Fatal(err)
	}
	newest, err := db.ResolveRun(ctx, "latest")
	if err != nil {
		b.Fatal(err)
	}
	keys, err := db.SeriesKeys(ctx)
	if err != nil || len(keys) == 0 {
		b.Fatalf("no series: %v", err)
	}
	k := keys[0]
	for _, x := range keys {
		if x.Mode == "cpu" && x.BlockSize == 1024 {
			k = x
			break
		}
	}
	series := url.Values{"board": {k.Board}, "mode": {k.Mode}, "algorithm": {k.Algorithm},
		"size": {strconv.Itoa(k.BlockSize)}}.Encode()
	run := "/runs/" + strconv.FormatInt(newest, 10)
	for _, p := range []struct{ name, path string }{
		{"runs", "/"},
		{"runs_page_5_label_board", "/?label=nightly&board=" + url.QueryEscape(k.Board) + "&page=5"},
		{"run", run},
		{"compare_latest", "/compare"},
		{"compare_one_board_alg", "/compare?boards=" + url.QueryEscape(k.Board) + "&algorithms=" + url.QueryEscape(k.Algorithm)},
		{"history", "/history?" + series},
		{"history_page_3", "/history?" + series + "&page=3"},
		{"regress_previous", "/regress?baseline=previous"},
		{"api_runs", "/api/runs"},
		{"api_run", "/api" + run},
		{"api_results_latest", "/api/results"},
		{"api_history", "/api/history?" + series},
	} {
		b.Run(p.name, func(b *testing.B) {
			if p.name == "history_page_3" && os.Getenv("FLEET_SERVE_BENCH_DB") == "" {
				b.Skip("the fixture's history has one page")
			}
			var last []byte
			cpu0 := cpuTime()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p.path, nil))
				if rec.Code != http.StatusOK {
					b.Fatalf("GET %s: %d\n%.400s", p.path, rec.Code, rec.Body)
				}
				b.SetBytes(int64(rec.Body.Len()))
				last = rec.Body.Bytes()
			}
			// On a shared machine the wall time follows the load; the CPU time this process spent does not.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			if dir := os.Getenv("FLEET_SERVE_BENCH_OUT"); dir != "" {
				if err := os.WriteFile(filepath.Join(dir, p.name+".out"), last, 0o644); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// cpuTime is the user and system CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
