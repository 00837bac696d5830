package serve

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// hostile is text a pasted capture may carry: markup, an event handler and a javascript: URL.
const hostile = `<script>alert("x")</script><img src=x onerror=alert(1)><a href="javascript:alert(2)">click</a>`

// fixtureClock makes run times deterministic: every call is a minute after the previous one.
func fixtureClock() func() time.Time {
	t := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Minute); return t }
}

// writeFixture stores three finished runs of two boards (the last with a 30 % drop of am64x devcrypto), one
// run still going, and hostile text in every stored string a page shows. It returns the database path.
func writeFixture(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fleet.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.Now = fixtureClock()
	db.BatchSize = 1 // the unfinished run's points are committed as they come
	for i, label := range []string{"nightly", "nightly", "nightly"} {
		drop := 1.0
		if i == 2 {
			drop = 0.7
		}
		writeRun(t, db, label, drop, true)
	}
	writeRun(t, db, hostile, 1, false) // still running: no Finish
	return path
}

func writeRun(t testing.TB, db *store.DB, label string, drop float64, finish bool) {
	t.Helper()
	ctx := context.Background()
	w, err := db.BeginRun(ctx, store.RunInfo{Label: label, ToolVersion: "v0.9.0", Host: "lab1",
		CommandLine: "fleet run --boards am64x,imx6q --repeat 4"})
	if err != nil {
		t.Fatal(err)
	}
	for _, board := range []string{"am64x", "imx6q"} {
		if !finish { // a run still going holds its boards, as fleet run does, for as long as the tests last
			if _, ok, err := w.AcquireLease(ctx, board, 100*365*24*time.Hour); err != nil || !ok {
				t.Fatalf("lease %s: %v, %v", board, ok, err)
			}
		}
		must(t, w.BoardStarted(ctx, board))
		facts := protocol.Facts{Hostname: board, Machine: "aarch64", Kernel: "6.1.0-ti",
			OpenSSL: "OpenSSL 3.0.13 " + hostile, OpenSSLVersion: "3.0.13", CPU: protocol.CPUFacts{Model: "Cortex-A53", Cores: 2},
			DevCrypto: true, AFALG: true, Engines: map[string]string{"devcrypto": "available"},
			ProcCrypto: []protocol.CryptoAlg{{Name: "cbc(aes)", Driver: "cbc-aes-sa2ul", Priority: 400}},
			Modes:      []protocol.ModeFact{{Mode: "cpu", Available: true}, {Mode: "devcrypto", Available: true}}}
		must(t, w.BoardFacts(ctx, board, facts))
		must(t, w.Raw(ctx, board, protocol.Raw{ID: 1, Command: []string{"openssl", "speed", "-elapsed", hostile},
			Stdout: "version: 3.0.13\n" + hostile + "\naes-128-cbc 1000.0k", Stderr: hostile}))
		for r := range 4 {
			for _, mode := range []string{"cpu", "devcrypto"} {
				for _, alg := range []string{"aes-128-cbc", "sha256"} {
					for _, size := range []int{16, 1024, 16384} {
						bps := float64(size) * 1e4 * (1 + 0.003*float64(r))
						if mode == "devcrypto" {
							bps *= float64(size) / 4096
							if board == "am64x" {
								bps *= drop
							}
						}
						must(t, w.Point(ctx, board, protocol.Point{Mode: mode, Algorithm: alg, Op: "encrypt", BlockSize: size,
							Threads: 1, Repeat: r, Count: 1000, Seconds: 1, Timing: "wall", BytesPerSec: bps, WallS: 1,
							UserS: 0.5, SysS: 0.3, CPUPct: 80, RawID: 1}))
					}
				}
			}
		}
		must(t, w.Skip(ctx, board, protocol.Skip{Mode: "afalg", Algorithm: "sha256", Reason: "engine afalg: " + hostile}))
		if finish {
			must(t, w.BoardFinished(ctx, board, protocol.StatusOK, ""))
		}
	}
	if finish {
		must(t, w.Finish(ctx, protocol.StatusOK))
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// openFixture opens a new fixture database read-only.
func openFixture(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.OpenReadOnly(context.Background(), writeFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// startServer serves the database at path read-only, as `fleet serve` does.
func startServer(t testing.TB, path string) *httptest.Server {
	t.Helper()
	return startServerTags(t, path, nil)
}

// startServerTags is startServer with the inventory's tags of the boards.
func startServerTags(t testing.TB, path string, tags map[string][]string) *httptest.Server {
	t.Helper()
	db, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	// The pages are asserted, not their speed: under -race beside the whole suite on 2 cores, /changes (a change
	// search per series of the lab) was seen past the 10 s production bound.
	s := &Server{DB: db, Tags: tags, Logf: t.Logf, QueryTimeout: 2 * time.Minute,
		Now: func() time.Time { return time.Date(2026, 3, 1, 13, 0, 0, 0, time.UTC) }}
	h, err := s.Handler()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}
