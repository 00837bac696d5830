package serve

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fleetlab/fleet/internal/browsertest"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// writeBusyNightFixture stores four nightly runs of board local (aes-128-cbc on the CPU path, six sizes, four
// repeats: 24 points each); run 3 was a busy night, every point invalid for background CPU and a third slower.
func writeBusyNightFixture(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fleet.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.Now = fixtureClock()
	for run := 1; run <= 4; run++ {
		w, err := db.BeginRun(ctx, store.RunInfo{Label: "nightly", ToolVersion: "v0.9.0", CommandLine: "fleet run --boards local"})
		if err != nil {
			t.Fatal(err)
		}
		must(t, w.BoardStarted(ctx, "local"))
		must(t, w.BoardFacts(ctx, "local", protocol.Facts{Hostname: "lab", Machine: "x86_64", Kernel: "6.18.44",
			OpenSSLVersion: "3.0.19", CPU: protocol.CPUFacts{Model: "Xeon", Cores: 2}}))
		for r := range 4 {
			for _, size := range protocol.DefaultSizes {
				p := protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: size, Threads: 1, Repeat: r,
					Count: 1000, Seconds: 1, Timing: "wall", BytesPerSec: 1.2e9 * (1 + 0.002*float64(r)), WallS: 1, UserS: 1,
					CPUPct: 100, Validity: protocol.ValidityOK}
				if run == 3 {
					p.BytesPerSec *= 0.66
					p.Validity, p.ValidityReasons = protocol.ValidityInvalid, []string{"background CPU 45 % (limit 10 %)"}
				}
				must(t, w.Point(ctx, "local", p))
			}
		}
		if run == 3 {
			must(t, w.BoardValidity(ctx, "local", protocol.ValidityInvalid, []string{"24 of 24 points invalid (first: background CPU 45 % (limit 10 %))"}))
		}
		must(t, w.BoardFinished(ctx, "local", protocol.StatusOK, ""))
		must(t, w.Finish(ctx, protocol.StatusOK))
	}
	return path
}

// TestValidityInChromium: the busy night's run page says "invalid — 24 of 24 points invalid: background CPU",
// in red (its run ended ok, but nothing of it can be judged: never a red "ok"); the runs list has the validity column; the history chart draws the busy night
// hollow and out of the line, and the run page's own chart draws its points hollow.
func TestValidityInChromium(t *testing.T) {
	b := browsertest.New(t)
	srv := startServer(t, writeBusyNightFixture(t))
	shots := os.Getenv("FLEET_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	clean := func(t *testing.T, p *browsertest.Page) {
		t.Helper()
		if len(p.ConsoleErrors) > 0 || len(p.FailedRequests) > 0 {
			t.Errorf("console errors %q, failed requests %q", p.ConsoleErrors, p.FailedRequests)
		}
	}

	p := b.Load(t, srv.URL+"/runs/3")
	clean(t, p)
	if got, want := p.Eval(t, `document.querySelector("h1").innerText`), "Run 3 (nightly): invalid — 24 of 24 points invalid: background CPU"; got != want {
		t.Errorf("run page headline %q, want %q", got, want)
	}
	if got := p.Eval(t, `getComputedStyle(document.querySelector("h1 span")).color`); got != "rgb(176, 0, 32)" {
		t.Errorf("the status of an all-invalid run is drawn in %s, want red rgb(176, 0, 32)", got)
	}
	if n := p.Eval(t, `String(document.querySelectorAll("svg circle.invalid").length)`); n != "6" {
		t.Errorf("%s hollow points on the run's chart, want its 6 block sizes", n)
	}
	p.Screenshot(t, filepath.Join(shots, "run-invalid.png"))

	p = b.Load(t, srv.URL+"/runs/2")
	clean(t, p)
	if got := p.Eval(t, `document.querySelector("h1").innerText`); got != "Run 2 (nightly): ok" {
		t.Errorf("a valid run's headline %q", got)
	}
	if got := p.Eval(t, `getComputedStyle(document.querySelector("h1 span")).color`); got != "rgb(0, 122, 77)" {
		t.Errorf("the status of a valid run is drawn in %s, want green", got)
	}

	p = b.Load(t, srv.URL+"/")
	clean(t, p)
	cells := p.Eval(t, `Array.from(document.querySelectorAll("table.runs td.validity")).map(td => td.innerText).join("|")`)
	if cells != "ok|24/24 invalid: background CPU|ok|ok" {
		t.Errorf("runs list validity cells %q", cells)
	}
	// the status column: the word and its colour agree on every row
	status := p.Eval(t, `Array.from(document.querySelectorAll("table.runs tr td:nth-child(4)")).map(td => td.innerText + " " + getComputedStyle(td).color).join("|")`)
	if want := "ok rgb(0, 122, 77)|invalid rgb(176, 0, 32)|ok rgb(0, 122, 77)|ok rgb(0, 122, 77)"; status != want {
		t.Errorf("runs list status cells %q, want %q", status, want)
	}
	p.Screenshot(t, filepath.Join(shots, "runs-invalid.png"))

	p = b.Load(t, srv.URL+"/history?board=local&mode=cpu&algorithm=aes-128-cbc&size=16384")
	clean(t, p)
	if n := p.Eval(t, `String(document.querySelectorAll("svg.history circle.invalid").length)`); n != "1" {
		t.Errorf("%s hollow points on the history chart, want 1 (run 3)", n)
	}
	if n := p.Eval(t, `String(document.querySelector("svg.history polyline").getAttribute("points").trim().split(/\s+/).length)`); n != "3" {
		t.Errorf("the history line has %s points, want the 3 valid runs", n)
	}
	if fill := p.Eval(t, `getComputedStyle(document.querySelector("svg.history circle.invalid")).fill`); fill != "rgb(255, 255, 255)" {
		t.Errorf("the invalid point is filled %s, want hollow (white)", fill)
	}
	p.Screenshot(t, filepath.Join(shots, "history-invalid.png"))
}
