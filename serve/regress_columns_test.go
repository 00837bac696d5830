package serve

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// everyColumn is the store as the regress page read it before store.Filter.ForRegression: the judged run and
// every baseline run with all of their columns.
type everyColumn struct{ *store.DB }

func (e everyColumn) SelectRunFor(ctx context.Context, ref string, f store.Filter) ([]store.Measurement, error) {
	f.ForRegression = false
	return e.DB.SelectRunFor(ctx, ref, f)
}

func (e everyColumn) ReadRegressionInput(ctx context.Context, ref string, cur []store.Measurement) (store.RegressionInput, error) {
	in, err := e.DB.ReadRegressionInput(ctx, ref, cur)
	if err != nil {
		return in, err
	}
	in.Base = nil
	for _, board := range slices.Sorted(maps.Keys(in.Runs)) {
		for _, id := range in.Window[board] {
			ms, err := e.DB.Measurements(ctx, store.Filter{RunID: id, Board: board})
			if err != nil {
				return in, err
			}
			in.Base = append(in.Base, ms...)
		}
	}
	return in, nil
}

// TestRegressPageReadsEnoughColumns renders the regress page and its JSON over a store whose points use every
// column a verdict can depend on (drivers that change, CPU timing, precision targets, failed points with errors,
// suspect and invalid points with reasons, wrong outputs, asymmetric series), once as the page reads them (only
// the columns a regression check judges by) and once with every column: the pages must be the same.
func TestRegressPageReadsEnoughColumns(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fleet.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	db.Now = fixtureClock()
	r := rand.New(rand.NewPCG(7, 28))
	for run := range 6 {
		w, err := db.BeginRun(ctx, store.RunInfo{Label: []string{"nightly", "adhoc"}[run%2], ToolVersion: "v1", Host: "lab1"})
		if err != nil {
			t.Fatal(err)
		}
		for _, board := range []string{"am64x", "imx6q", "rpi4"} {
			must(t, w.BoardStarted(ctx, board))
			for rep := range 3 {
				for _, alg := range []string{"aes-128-cbc", "sha256", "rsa"} {
					for _, size := range []int{16, 1024, 16384} {
						p := protocol.Point{Mode: "cpu", Algorithm: alg, Op: "encrypt", BlockSize: size, Threads: 1 + r.IntN(2),
							Repeat: rep, Engine: "e", Count: 1000, Seconds: 1, Timing: "wall", WallS: 1, UserS: 0.5, SysS: 0.3,
							CPUPct: 50 + 50*r.Float64(), SysBusyPct: 3, IRQDelta: 9, RawID: 1, Line: rep + 1,
							PublishedMin: 1, PublishedMax: 2}
						if alg == "rsa" {
							p.BlockSize, p.KeyBits, p.Op, p.OpsPerSec = 0, 2048, "sign", 1000*(1+0.4*r.Float64())
						} else {
							p.BytesPerSec = float64(size) * 1e4 * (1 + 0.4*r.Float64())
						}
						switch r.IntN(12) {
						case 0:
							p.Failed, p.Error = true, fmt.Sprintf("engine fell back %d", r.IntN(3))
						case 1:
							p.Validity, p.ValidityReasons = protocol.ValidityInvalid, []string{fmt.Sprintf("background CPU %d %%", 10+r.IntN(50))}
						case 2:
							p.Validity, p.ValidityReasons = protocol.ValiditySuspect, []string{"hot board"}
						case 3:
							p.Verification, p.VerificationDetail = protocol.VerificationWrong, fmt.Sprintf("output %d differed", r.IntN(4))
						case 4:
							p.Timing, p.WallEst = "cpu", 3
						case 5:
							p.Flags = []string{"precision-target: ±2 % within 9 repeats"}
						case 6:
							p.Driver = []string{"cbc-aes-sa2ul", "cbc-aes-ce"}[r.IntN(2)]
						}
						must(t, w.Point(ctx, board, p))
					}
				}
			}
			must(t, w.BoardFinished(ctx, board, protocol.StatusOK, ""))
		}
		must(t, w.Finish(ctx, protocol.StatusOK))
	}
	db.Close()
	ro, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	serve := func(st Store, target string) []byte {
		t.Helper()
		h, err := (&Server{DB: st}).Handler()
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d\n%.400s", target, rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}
	for _, target := range []string{"/regress?baseline=previous", "/regress?baseline=nightly", "/regress?baseline=1&run=5",
		"/regress?baseline=latest&run=4&threshold=1%25", "/api/regress?baseline=previous", "/api/regress?baseline=nightly"} {
		got, want := serve(ro, target), serve(everyColumn{ro}, target)
		if !bytes.Equal(got, want) {
			t.Errorf("GET %s with the regression columns differs from every column:\n%s\n--- every column:\n%s", target, got, want)
		}
		if !bytes.Contains(want, []byte("wrong")) || !bytes.Contains(want, []byte("invalid")) {
			t.Errorf("GET %s: the page shows no wrong output or invalid point: the test data lost its point", target)
		}
	}
}
