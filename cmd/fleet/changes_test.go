package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// speedCapture is the text of `openssl speed -elapsed -evp aes-128-cbc` (OpenSSL 3.0) with the given kB/s per
// block size (16 B … 16 KiB).
func speedCapture(kbps [6]float64) string {
	sizes := []int{16, 64, 256, 1024, 8192, 16384}
	var b strings.Builder
	b.WriteString("You have chosen to measure elapsed time instead of user CPU time.\n")
	for i, s := range sizes {
		fmt.Fprintf(&b, "Doing AES-128-CBC for 1s on %d size blocks: %d AES-128-CBC's in 1.00s\n", s, int(kbps[i]*1000/float64(s)))
	}
	b.WriteString("version: 3.0.13\nThe 'numbers' are in 1000s of bytes per second processed.\n")
	b.WriteString("type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes\nAES-128-CBC ")
	for _, v := range kbps {
		fmt.Fprintf(&b, " %.2fk", v)
	}
	b.WriteString("\n")
	return b.String()
}

// importNights imports 30 nightly captures of board am64x, one a day from 2026-01-01: 2 % noise, and from night
// 18 (run 18) the sizes from 1024 B up 12 % slower.
func importNights(t *testing.T, db string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	base := [6]float64{529375, 919004, 1006899, 1081608, 1257054, 1043563}
	dir := t.TempDir()
	for n := range 30 {
		var kbps [6]float64
		for i, v := range base {
			if n >= 17 && i >= 3 {
				v *= 0.88
			}
			kbps[i] = v * (1 + 0.02*rng.NormFloat64())
		}
		path := filepath.Join(dir, fmt.Sprintf("night%02d.txt", n+1))
		if err := os.WriteFile(path, []byte(speedCapture(kbps)), 0o644); err != nil {
			t.Fatal(err)
		}
		date := time.Date(2026, 1, 1+n, 2, 0, 0, 0, time.UTC).Format("2006-01-02T15:04")
		if _, stderr, code := runFleet(t, "import", "--db", db, "--board", "am64x", "--label", "nightly", "--date", date, path); code != 0 {
			t.Fatalf("import night %d: exit %d: %s", n+1, code, stderr)
		}
	}
}

// TestChangesImportedHistory: 30 imported nights with one −12 % step in three sizes: one group at run 18 in the
// text, three objects with the documented fields in the JSON.
func TestChangesImportedHistory(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	importNights(t, db)
	stdout, stderr, code := runFleet(t, "changes", "--db", db)
	if code != 0 {
		t.Fatalf("changes: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"am64x cpu aes-128-cbc: changed at run 18 (2026-01-18 02:00), after run 17 (2026-01-17)",
		"1024 B", "8192 B", "16384 B", "3 change(s) in 6 series"} {
		if !strings.Contains(unfold(stdout), want) {
			t.Errorf("text lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Count(stdout, "changed at run") != 1 {
		t.Errorf("the three sizes are not grouped into one table:\n%s", stdout)
	}

	stdout, stderr, code = runFleet(t, "changes", "--db", db, "--format", "json")
	if code != 0 {
		t.Fatalf("changes --format json: exit %d: %s", code, stderr)
	}
	var out struct {
		Changes []map[string]any `json:"changes"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("JSON: %v\n%s", err, stdout)
	}
	changes := out.Changes
	if len(changes) != 3 {
		t.Fatalf("%d changes, want 3:\n%s", len(changes), stdout)
	}
	for _, c := range changes {
		for _, field := range []string{"board", "mode", "algorithm", "op", "key_bits", "block_size", "threads", "run",
			"date", "before", "after", "delta", "p", "facts_changed"} {
			if _, ok := c[field]; !ok {
				t.Errorf("change lacks %q: %v", field, c)
			}
		}
		if c["run"] != 18.0 || c["date"] != "2026-01-18T02:00:00Z" {
			t.Errorf("change at run %v (%v), want 18 (2026-01-18T02:00:00Z)", c["run"], c["date"])
		}
		if d := c["delta"].(float64); math.Abs(d+0.12) > 0.03 {
			t.Errorf("delta %v, want −0.12 ±0.03", d)
		}
	}
}

// storeNights stores one run per night of board am64x, afalg aes-128-cbc at 16384 B, three repeats, with the
// facts and point driver of each night.
func storeNights(t *testing.T, path string, bps []float64, kernel, driver func(night int) string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for n, v := range bps {
		w, err := db.BeginRun(ctx, store.RunInfo{Label: "nightly", Started: time.Date(2026, 2, 1+n, 3, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		facts := protocol.Facts{Kernel: kernel(n), OpenSSLVersion: "3.0.13", CPU: protocol.CPUFacts{Governor: "performance"},
			ProcCrypto: []protocol.CryptoAlg{{Name: "cbc(aes)", Driver: driver(n), Priority: 400, Type: "skcipher"}}}
		if err := w.BoardFacts(ctx, "am64x", facts); err != nil {
			t.Fatal(err)
		}
		for r := range 3 {
			x := v * (1 + 0.003*float64(r-1))
			p := protocol.Point{Mode: protocol.ModeAFALG, Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16384, Threads: 1,
				Repeat: r, Count: x / 16384, Seconds: 1, Timing: "wall", BytesPerSec: x, WallS: 1, Driver: driver(n)}
			if err := w.Point(ctx, "am64x", p); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.BoardFinished(ctx, "am64x", protocol.StatusOK, ""); err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatal(err)
		}
	}
}

// TestChangesFactsAndFailOnDrop: a drop at the night the kernel and the afalg driver changed names both; with
// --fail-on-drop it exits 1 while the drop is inside --since, 0 once the window starts after it.
func TestChangesFactsAndFailOnDrop(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	rng := rand.New(rand.NewPCG(3, 3))
	var bps []float64
	for n := range 24 {
		v := 200e6
		if n >= 14 {
			v = 150e6
		}
		bps = append(bps, v*(1+0.01*rng.NormFloat64()))
	}
	kernel := func(n int) string { return map[bool]string{true: "6.1.46", false: "6.6.32"}[n < 14] }
	driver := func(n int) string { return map[bool]string{true: "cbc-aes-omap", false: "cbc-aes-ce"}[n < 14] }
	storeNights(t, db, bps, kernel, driver)

	stdout, stderr, code := runFleet(t, "changes", "--db", db, "--modes", "afalg", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out struct {
		Changes []struct {
			Run   int64    `json:"run"`
			Facts []string `json:"facts_changed"`
		} `json:"changes"`
	}
	err := json.Unmarshal([]byte(stdout), &out)
	changes := out.Changes
	if err != nil || len(changes) != 1 {
		t.Fatalf("want one change: %v\n%s", err, stdout)
	}
	want := []string{"kernel 6.1.46 → 6.6.32", "kernel driver for cbc(aes) cbc-aes-omap → cbc-aes-ce", "afalg driver cbc-aes-omap → cbc-aes-ce"}
	if got := strings.Join(changes[0].Facts, "; "); got != strings.Join(want, "; ") {
		t.Errorf("facts_changed = %q, want %q", got, want)
	}
	first := changes[0].Run

	for _, tc := range []struct {
		since string
		code  int
	}{
		{"2026-02-10", exitRegression},      // the drop (2026-02-15) is inside
		{fmt.Sprint(first), exitRegression}, // from the first run after it
		{fmt.Sprint(first + 1), exitOK},     // from the run after that
		{"2026-02-20", exitOK},              // after it
		{"", exitRegression},                // no window: the whole history
	} {
		args := []string{"changes", "--db", db, "--fail-on-drop", "20%"}
		if tc.since != "" {
			args = append(args, "--since", tc.since)
		}
		_, stderr, code := runFleet(t, args...)
		if code != tc.code {
			t.Errorf("--since %q: exit %d, want %d: %s", tc.since, code, tc.code, stderr)
		}
	}
	if _, _, code := runFleet(t, "changes", "--db", db, "--fail-on-drop", "30%", "--min-change", "5%"); code != exitOK {
		t.Errorf("a 25%% drop failed --fail-on-drop 30%%: exit %d", code)
	}
}

// TestChangesRefusesBadFlags: every bad value exits 2 naming the flag.
func TestChangesRefusesBadFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	importNights(t, db)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--min-change", "150%"}, "--min-change"},
		{[]string{"--min-change", "-5%"}, "--min-change"},
		{[]string{"--fail-on-drop", "0%"}, "--fail-on-drop"},
		{[]string{"--fail-on-drop", "2%"}, "below --min-change 5%"},
		{[]string{"--since", "yesterday"}, "--since"},
		{[]string{"--since", "-3d"}, "--since"},
		{[]string{"--since", "100000w"}, "up to 100 years"},
		{[]string{"--since", "0"}, "--since"},
		{[]string{"--since", "999"}, "no run 999"},
		{[]string{"--modes", "turbo"}, "--modes"},
		{[]string{"--sizes", "-16"}, "--sizes"},
		{[]string{"--sizes", "big"}, "--sizes"},
		{[]string{"--boards", "a b"}, "--boards"},
		{[]string{"--max-runs", "2"}, "--max-runs"},
		{[]string{"--format", "csv"}, "--format"},
		{[]string{"--boards", "nosuchboard"}, "no stored points match"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := runFleet(t, append([]string{"changes", "--db", db}, tc.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d naming %q", code, stderr, exitUsage, tc.want)
			}
		})
	}
}

// TestChangesEmptyAndShortHistories: an empty database is a usage error with a hint; one run is searched and
// said to be too short.
func TestChangesEmptyAndShortHistories(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	db, err := store.Open(context.Background(), empty)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, stderr, code := runFleet(t, "changes", "--db", empty); code != exitUsage || !strings.Contains(stderr, "fleet runs") {
		t.Errorf("empty database: exit %d, stderr %q", code, stderr)
	}
	one := filepath.Join(dir, "one.db")
	storeSweep(t, one, "nightly", map[string]float64{"cpu/16": 300e6, "cpu/16384": 900e6})
	stdout, stderr, code := runFleet(t, "changes", "--db", one)
	if code != 0 || !strings.Contains(stdout, "with fewer than 6 runs not searched") {
		t.Errorf("one run: exit %d, stdout:\n%s\nstderr: %s", code, stdout, stderr)
	}
}

// TestReportMarksChanges: fleet report draws the change on the history chart and names what changed under it.
func TestReportMarksChanges(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "fleet.db")
	var bps []float64
	for n := range 16 {
		bps = append(bps, map[bool]float64{true: 200e6, false: 150e6}[n < 8]*(1+0.002*float64(n%3)))
	}
	storeNights(t, db, bps, func(n int) string { return map[bool]string{true: "6.1.46", false: "6.6.32"}[n < 8] },
		func(int) string { return "cbc-aes-ce" })
	out := filepath.Join(dir, "report.html")
	if _, stderr, code := runFleet(t, "report", "--db", db, "-o", out); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	html, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`class="change"`, "−25.0%", "kernel 6.1.46 → 6.6.32"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestServeHistoryMarksChanges: fleet serve's history pages mark the change points of fleet changes for the
// series they show (the run where the step starts, with its size), and none for a series without a step.
func TestServeHistoryMarksChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fleet.db")
	importNights(t, path)
	h := dashboard(t, path)
	get := func(size int) string {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", fmt.Sprintf("/history?board=am64x&mode=cpu&algorithm=aes-128-cbc&size=%d", size), nil))
		if rec.Code != 200 {
			t.Fatalf("history at %d B: status %d: %s", size, rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	page := get(16384)
	if got := strings.Count(page, `class="change" stroke`); got != 1 {
		t.Errorf("change marks at 16384 B: %d, want 1", got)
	}
	if !strings.Contains(page, `to <a href="/runs/18">run 18</a>`) || !strings.Contains(page, "#1 −1") {
		t.Errorf("the change at 16384 B is not listed as starting at run 18 with a drop of about 12%%:\n%s", page)
	}
	if got := strings.Count(get(16), `class="change" stroke`); got != 0 {
		t.Errorf("change marks at 16 B (no step there): %d, want none", got)
	}
}
