package serve

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// historyNights and historyStep shape writeHistoryFixture: nights of board local, the level falling to 15 % from
// night historyStep (AES-NI switched off, as in a lab), the kernel changing on the same night.
const (
	historyNights = 40
	historyStep   = 25
)

// writeHistoryFixture stores historyNights nightly runs of board local (cpu and soft aes-128-cbc and sha256 at
// three sizes, three repeats) with a step on cpu aes-128-cbc at night historyStep, and one untagged board
// other with a short history. It returns the database path.
func writeHistoryFixture(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fleet.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.Now = fixtureClock()
	for night := 1; night <= historyNights; night++ {
		w, err := db.BeginRun(ctx, store.RunInfo{Label: "nightly", ToolVersion: "v0.9.0", Host: "lab1",
			CommandLine: "fleet run --profile nightly"})
		if err != nil {
			t.Fatal(err)
		}
		boards := []string{"local"}
		if night > historyNights-4 {
			boards = append(boards, "other")
		}
		for _, board := range boards {
			must(t, w.BoardStarted(ctx, board))
			kernel := "6.1.0-18-amd64"
			if night >= historyStep {
				kernel = "6.1.0-21-amd64"
			}
			must(t, w.BoardFacts(ctx, board, protocol.Facts{Hostname: board, Machine: "x86_64", Kernel: kernel,
				OpenSSLVersion: "3.0.13", CPU: protocol.CPUFacts{Model: "Xeon", Cores: 2}}))
			for r := range 3 {
				for _, mode := range []string{"cpu", "soft"} {
					for _, alg := range []string{"aes-128-cbc", "sha256"} {
						for _, size := range []int{16, 1024, 16384} {
							level := 1200e6 * float64(size) / 16384
							if mode == "soft" {
								level /= 6
							}
							if board == "local" && mode == "cpu" && alg == "aes-128-cbc" && night >= historyStep {
								level *= 0.15
							}
							noise := 1 + 0.004*float64((night*7+r*3+size)%5-2)
							must(t, w.Point(ctx, board, protocol.Point{Mode: mode, Algorithm: alg, Op: "encrypt",
								BlockSize: size, Threads: 1, Repeat: r, Count: 1000, Seconds: 1, Timing: "wall",
								BytesPerSec: level * noise, WallS: 1, UserS: 0.9, SysS: 0.05, CPUPct: 95}))
						}
					}
				}
			}
			must(t, w.BoardFinished(ctx, board, protocol.StatusOK, ""))
		}
		must(t, w.Finish(ctx, protocol.StatusOK))
	}
	return path
}

// historyURL is the history page of local's stepping series.
var historyURL = fmt.Sprintf("/history?board=local&mode=cpu&algorithm=aes-128-cbc&size=%d", 16384)
