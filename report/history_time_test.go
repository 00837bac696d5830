package report

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// nights are runs 1–4 of one series, started on days 0, 1, 2 and 12 (a gap of ten days before the last).
func nights(t *testing.T) []store.Measurement {
	t.Helper()
	start := time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)
	var ms []store.Measurement
	for run, day := range []int{0, 1, 2, 12} {
		for rep := range 3 {
			p := protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16384, Threads: 1,
				Repeat: rep, BytesPerSec: 1e9 * (1 + 0.01*float64(rep)), Timing: "wall"}
			ms = append(ms, store.Measurement{ID: int64(len(ms) + 1), RunID: int64(run + 1), RunLabel: "nightly",
				RunStarted: start.AddDate(0, 0, day), Board: "local", Point: p})
		}
	}
	return ms
}

var circleX = regexp.MustCompile(`<circle cx="([0-9.]+)" cy="[0-9.]+" r="4" fill="#0072B2"><title>run`)

// pointXs are the x of the history chart's points, in the order drawn (oldest first).
func pointXs(t *testing.T, page string) []float64 {
	t.Helper()
	var xs []float64
	for _, m := range circleX.FindAllStringSubmatch(page, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		xs = append(xs, x)
	}
	if len(xs) != 4 {
		t.Fatalf("%d points drawn, want 4:\n%s", len(xs), page)
	}
	return xs
}

// TestHistoryTimeAxis: on a time axis the ten days before run 4 are ten times the gap between nights, ticks
// are calendar dates; on the runs axis the runs are evenly spaced and named.
func TestHistoryTimeAxis(t *testing.T) {
	ms := nights(t)
	onTime, err := HistoryHTML("h", ms, nil, nil, HistoryHTMLOptions{Time: true})
	if err != nil {
		t.Fatal(err)
	}
	xs := pointXs(t, string(onTime))
	if got := (xs[3] - xs[2]) / (xs[1] - xs[0]); math.Abs(got-10) > 0.05 {
		t.Errorf("on a time axis the 10-day gap is %.2f times a 1-day one, want 10 (x = %v)", got, xs)
	}
	if !strings.Contains(string(onTime), `class="xtick">2026-03-0`) || !strings.Contains(string(onTime), "run start (UTC)") {
		t.Errorf("the time axis has no calendar ticks or title:\n%s", onTime)
	}
	byRun, err := HistoryHTML("h", ms, nil, nil, HistoryHTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	xs = pointXs(t, string(byRun))
	if got := (xs[3] - xs[2]) / (xs[1] - xs[0]); math.Abs(got-1) > 0.01 {
		t.Errorf("on the runs axis the last gap is %.2f times the first, want 1 (x = %v)", got, xs)
	}
	if !strings.Contains(string(byRun), `class="xtick">#4 nightly<`) {
		t.Errorf("the runs axis does not name the runs:\n%s", byRun)
	}
}

// TestHistoryBand: the baseline band spans its runs 1–3 in x, median ±threshold in y, and its median is carried
// to the judged run 4; a band whose runs are not drawn is left out.
func TestHistoryBand(t *testing.T) {
	ms := nights(t)
	key := historyPoints(ms)[0].Key
	band := HistoryBand{Key: key, Runs: []int64{1, 2, 3}, Median: 1e9, Threshold: 0.1, Judged: 4, Label: "baseline: nightly runs 1–3"}
	page, err := HistoryHTML("h", ms, nil, nil, HistoryHTMLOptions{Time: true, Bands: []HistoryBand{band}})
	if err != nil {
		t.Fatal(err)
	}
	xs := pointXs(t, string(page))
	m := regexp.MustCompile(`<g class="band"><rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)"[^>]*><title>baseline: nightly runs 1–3, ±10%</title></rect><line x1="[0-9.]+" y1="([0-9.]+)" x2="([0-9.]+)"`).FindStringSubmatch(string(page))
	if m == nil {
		t.Fatalf("no band drawn:\n%s", page)
	}
	f := func(i int) float64 { v, _ := strconv.ParseFloat(m[i], 64); return v }
	if x0, x1 := f(1), f(1)+f(3); math.Abs(x0-xs[0]) > 0.1 || math.Abs(x1-xs[2]) > 0.2 {
		t.Errorf("band from x %.1f to %.1f, want runs 1–3 at %.1f–%.1f", x0, x1, xs[0], xs[2])
	}
	if top, h, mid := f(2), f(4), f(5); math.Abs(top+h/2-mid) > 0.2 || h < 5 {
		t.Errorf("band from y %.1f, %.1f high, median at %.1f: want the median in the middle of ±10%%", top, h, mid)
	}
	if to := f(6); math.Abs(to-xs[3]) > 0.1 {
		t.Errorf("the baseline median runs to x %.1f, want the judged run's %.1f", to, xs[3])
	}
	band.Runs = []int64{98, 99}
	page, _ = HistoryHTML("h", ms, nil, nil, HistoryHTMLOptions{Time: true, Bands: []HistoryBand{band}})
	if strings.Contains(string(page), `class="band"`) {
		t.Error("a band of runs not drawn is drawn")
	}
}
