package serve

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/browsertest"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// triagePoint is one point of board am64x's 12 series (cpu and devcrypto, aes-128-cbc and sha256, 16, 1024 and
// 16384 B) at level × its usual throughput.
func triagePoint(mode, alg string, size, repeat int, level float64) protocol.Point {
	bps := float64(size) * 1e5 * level * (1 + 0.002*float64(repeat))
	return protocol.Point{Mode: mode, Algorithm: alg, Op: "encrypt", BlockSize: size, Threads: 1, Repeat: repeat,
		Count: bps / float64(size), Seconds: 1, Timing: "wall", BytesPerSec: bps, WallS: 1, UserS: 0.9, CPUPct: 90}
}

// writeTriageRun stores one finished run of am64x with the series keep selects, at level(series).
func writeTriageRun(t *testing.T, db *store.DB, label string, n int, keep func(mode, alg string, size int) bool,
	level func(mode, alg string) float64, validity func(p *protocol.Point)) {
	t.Helper()
	ctx := context.Background()
	w, err := db.BeginRun(ctx, store.RunInfo{Label: label, Started: time.Date(2026, 3, 1+n, 2, 0, 0, 0, time.UTC)})
	must(t, err)
	for _, mode := range []string{"cpu", "devcrypto"} {
		for _, alg := range []string{"aes-128-cbc", "sha256"} {
			for _, size := range []int{16, 1024, 16384} {
				if !keep(mode, alg, size) {
					continue
				}
				for r := range 4 {
					p := triagePoint(mode, alg, size, r, level(mode, alg))
					if validity != nil {
						validity(&p)
					}
					must(t, w.Point(ctx, "am64x", p))
				}
			}
		}
	}
	must(t, w.BoardFinished(ctx, "am64x", protocol.StatusOK, ""))
	must(t, w.Finish(ctx, protocol.StatusOK))
}

func all(string, string, int) bool { return true }
func flat(string, string) float64  { return 1 }
func getPage(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// writeTriageFixture: three nightly runs, a fourth where devcrypto aes-128-cbc fell 85 %, an ad-hoc run that
// measured 2 of the 12 series, and a vendor's table imported as a reference.
func writeTriageFixture(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fleet.db")
	db, err := store.Open(ctx, path)
	must(t, err)
	defer db.Close()
	for n := range 3 {
		writeTriageRun(t, db, "nightly", n, all, flat, nil)
	}
	writeTriageRun(t, db, "nightly", 3, all, func(mode, alg string) float64 {
		if mode == "devcrypto" && alg == "aes-128-cbc" {
			return 0.15
		}
		return 1
	}, nil)
	writeTriageRun(t, db, "", 4, func(mode, alg string, size int) bool {
		return mode == "cpu" && alg == "aes-128-cbc" && size != 16384
	}, flat, nil)
	_, err = db.ImportReference(ctx, store.RunInfo{Label: "vendor-ti", Source: "TI SDK performance guide",
		Started: time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)},
		[]store.BoardPoint{{Board: "am64x", Point: triagePoint("devcrypto", "aes-128-cbc", 16384, 0, 2)}})
	must(t, err)
	return path
}

// TestChangesPageTriage: with a vendor table imported the page answers 200 (it was a 500: "judge run 6: a
// reference is a vendor's published table") and names the reference as not judged; the ad-hoc run's 10
// missing series are one line ("run 5 measured 2 of 12 series") after the real −85 % regressions, which come
// first, largest first.
func TestChangesPageTriage(t *testing.T) {
	srv := startServer(t, writeTriageFixture(t))
	code, page := getPage(t, srv.URL+"/changes")
	if code != 200 {
		t.Fatalf("/changes: status %d:\n%s", code, page)
	}
	if !strings.Contains(page, "regressions: run 6 not judged: a vendor&#39;s published table (reference)") {
		t.Errorf("the reference run is not said to be left unjudged:\n%s", page)
	}
	rows := strings.Split(page, "<tr class=")[1:]
	if len(rows) < 4 {
		t.Fatalf("%d rows, want the 3 regressions and the folded missing line:\n%s", len(rows), page)
	}
	for i, r := range rows[:3] {
		if !strings.HasPrefix(r, `"regression drop"`) || !strings.Contains(r, "am64x devcrypto aes-128-cbc") ||
			!strings.Contains(r, "−85.0%") || !strings.Contains(r, `<a href="/runs/4">4</a>`) {
			t.Errorf("row %d is not a −85 %% regression of run 4: %s", i+1, r)
		}
	}
	if n := strings.Count(page, `<tr class="missing">`); n != 1 {
		t.Errorf("%d missing lines, want one for the narrower run", n)
	}
	if strings.Count(page, "<small>missing</small>") > 0 {
		t.Errorf("missing series listed one by one:\n%s", page)
	}
	if !strings.HasPrefix(rows[3], `"missing"`) || !strings.Contains(rows[3], "run 5 measured 2 of 12 series") ||
		!strings.Contains(rows[3], "10 missing") || !strings.Contains(rows[3], "and 7 more") {
		t.Errorf("fourth row is not the folded missing line of run 5: %s", rows[3])
	}
	for _, r := range rows {
		if strings.Contains(r, `<a href="/runs/6">6</a>`) {
			t.Errorf("the reference run 6 is judged: %s", r)
		}
	}
}

// TestSortAlertsTriage: regressions and drops first, the largest first, whatever their date; then rises, then
// the missing lines, then the steps not judged.
func TestSortAlertsTriage(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC) }
	as := []alert{
		{Kind: kindNotJudged, Size: 0.9, When: day(9), Series: "not judged"},
		{Kind: kindMissing, Size: 10, When: day(8), Series: "missing"},
		{Kind: kindChange, Size: 0.3, When: day(7), Series: "rise"},
		{Kind: kindRegression, Size: 0.1, When: day(6), Drop: true, Series: "small regression"},
		{Kind: kindChange, Size: 0.5, When: day(1), Drop: true, Series: "old big drop"},
		{Kind: kindRegression, Size: 0.85, When: day(2), Drop: true, Series: "big regression"},
	}
	sortAlerts(as)
	var got []string
	for _, a := range as {
		got = append(got, a.Series)
	}
	want := "big regression, old big drop, small regression, rise, missing, not judged"
	if g := strings.Join(got, ", "); g != want {
		t.Errorf("order %s, want %s", g, want)
	}
}

// TestChangesPageAllInvalid: six runs whose every point is invalid (background CPU 60–90 %) with a −86 % step.
// The page said "Nothing changed or regressed … 0 run(s) judged"; now it says why each run and series was not
// judged, and shows the step as "not judged".
func TestChangesPageAllInvalid(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fleet.db")
	db, err := store.Open(ctx, path)
	must(t, err)
	for n := range 6 {
		level := 1.0
		if n >= 3 {
			level = 0.14
		}
		writeTriageRun(t, db, "nightly", n, all, func(string, string) float64 { return level }, func(p *protocol.Point) {
			p.Validity = protocol.ValidityInvalid
			p.ValidityReasons = []string{fmt.Sprintf("background CPU %d %% (limit 8 %%)", 60+6*((n+p.Repeat)%6))}
		})
	}
	db.Close()
	srv := startServer(t, path)
	code, page := getPage(t, srv.URL+"/changes")
	if code != 200 {
		t.Fatalf("/changes: status %d:\n%s", code, page)
	}
	for _, want := range []string{
		"changes: am64x: 12 series not searched: all 6 runs invalid: background CPU 60–90 %",
		"fleet run --quiet-wait 60s",
		"regressions: run 1 not judged: no baseline",
		"regressions: runs 2, 3, 4, 5 and 6 not judged: every baseline run was invalid",
		"0 of 6 run(s) judged",
		`<tr class="notjudged">`, "invalid: background CPU 60–90 %", "−86.0%",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("/changes lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, `class="change`) || strings.Contains(page, `class="regression`) {
		t.Errorf("a step among invalid points is listed as a verdict:\n%s", page)
	}
}

// oneLineQuery counts the cells of a selector whose text takes more than one line, and the cells.
const oneLineQuery = `(() => { const cells = [...document.querySelectorAll(SEL)]; let wrapped = 0;
	for (const c of cells) { const r = document.createRange(); r.selectNodeContents(c);
		const tops = new Set([...r.getClientRects()].map(x => Math.round(x.top))); if (tops.size > 1) wrapped++; }
	return wrapped + "/" + cells.length; })()`

// TestChangesPageLayoutInChromium: in the browser tests' 1280 px window (narrower than the 1300 px the page is
// meant to fit), /changes with regressions, a missing line and long baselines has no horizontal scroll bar and
// no started date, series name or number cell wraps.
func TestChangesPageLayoutInChromium(t *testing.T) {
	b := browsertest.New(t)
	srv := startServer(t, writeTriageFixture(t))
	p := b.Load(t, srv.URL+"/changes")
	if len(p.ConsoleErrors)+len(p.FailedRequests) > 0 {
		t.Errorf("console errors %q, failed requests %q", p.ConsoleErrors, p.FailedRequests)
	}
	if w := p.Eval(t, `String(window.innerWidth)`); w != "1280" {
		t.Logf("window %s px wide", w)
	}
	if got := p.Eval(t, `String(document.documentElement.scrollWidth <= window.innerWidth)`); got != "true" {
		t.Errorf("/changes scrolls sideways: %s px in a %s px window", p.Eval(t, `String(document.documentElement.scrollWidth)`),
			p.Eval(t, `String(window.innerWidth)`))
	}
	for _, sel := range []string{"table.alerts td.when", "table.alerts td.series", "table.alerts td.num"} {
		got := p.Eval(t, strings.Replace(oneLineQuery, "SEL", "'"+sel+"'", 1))
		if !strings.HasPrefix(got, "0/") || got == "0/0" {
			t.Errorf("%s: %s cells wrapped (wrapped/cells), want none of several", sel, got)
		}
	}
	if shots := os.Getenv("FLEET_SCREENSHOTS"); shots != "" {
		p.Screenshot(t, filepath.Join(shots, "changes-triage.png"))
	}
}
