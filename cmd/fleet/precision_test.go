package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/precision"
	"github.com/fleetlab/fleet/store"
)

// TestRunRefusesBadPrecisionFlags: each bad value of run's precision and duration flags is a usage error naming
// the flag, the value and what is accepted.
func TestRunRefusesBadPrecisionFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"zero", []string{"--precision", "0"}, "--precision: precision 0 % is out of range (expected a percentage above 0 and below 100"},
		{"negative", []string{"--precision", "-1%"}, "--precision: precision -1 % is out of range"},
		{"hundred", []string{"--precision", "100%"}, "--precision: precision 100 % is out of range"},
		{"NaN", []string{"--precision", "NaN"}, "--precision: precision NaN % is out of range"},
		{"not a number", []string{"--precision", "tight"}, `--precision: precision "tight" is not a percentage`},
		{"with --repeat", []string{"--precision", "2", "--repeat", "5"}, "--precision and --repeat exclude each other"},
		{"max-repeat below 6", []string{"--precision", "2", "--max-repeat", "5"}, "--max-repeat: max repeat 5 is out of range (expected 6 to 1000"},
		{"max-repeat without precision", []string{"--max-repeat", "10"}, "--max-repeat 10 needs --precision"},
		{"budget", []string{"--precision", "2", "--budget", "0s"}, "--budget: budget 0s is out of range (expected 1s to 24h0m0s"},
		{"budget in years", []string{"--precision", "2", "--budget", "10y"}, `--budget "10y": not a duration: want a number and a unit of ns, us, ms, s, m or h, such as 90s, 10m or 1h30m, from 1s to 24h0m0s`},
		{"quiet-wait not a duration", []string{"--quiet-wait", "abc"}, `--quiet-wait "abc": not a duration: want a number and a unit of ns, us, ms, s, m or h, such as 90s, 10m or 1h30m, from 0s to 1h0m0s`},
		{"reconnect-wait in days", []string{"--reconnect-wait", "2d"}, `--reconnect-wait "2d": not a duration`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "fleet.db")
			wantUsage(t, append([]string{"run", "--boards", "local", "--db", db}, tc.args...), tc.want)
			if _, err := os.Stat(db); err == nil {
				t.Errorf("%s was created: the run started before its flags were checked", db)
			}
		})
	}
}

// TestRunLocalPrecisionEndToEnd runs the real local agent and openssl with a precision target: every point has
// at least six counted repeats (or stopped at the cap, marked §), every repeat is stored with the target in its
// flags, and the tables print "±x.x % (n=N)".
func TestRunLocalPrecisionEndToEnd(t *testing.T) {
	needOpenSSL(t)
	if testing.Short() {
		t.Skip("builds the agent and runs openssl for several seconds")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "fleet.db")
	// This machine is shared (other tests, other jobs): judged by the default limits most repeats would be
	// invalid and none would count. The test is about the repeat loop, so the local board's limits are lifted.
	inv := filepath.Join(dir, "boards.toml")
	if err := os.WriteFile(inv, []byte("[boards.local.validity]\nbackground_peak_pct = 100\nbackground_avg_pct = 100\nthrottle_pct = 100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runFleet(t, "--inventory", inv, "run", "--boards", "local", "--db", db, "--modes", "cpu",
		"--precision", "5", "--max-repeat", "8", "--algorithms", "sha256", "--sizes", "1024,16384", "--seconds", "1")
	if code != 0 {
		t.Fatalf("fleet run exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	cell := regexp.MustCompile(`\d ±\d+\.\d+ % \(n=(\d+)\)(§?)`)
	cells := cell.FindAllStringSubmatch(stdout, -1)
	if len(cells) != 2 {
		t.Fatalf("want 2 cells like \"1256 ±0.8 %% (n=7)\", got %q in:\n%s", cells, stdout)
	}
	if !strings.Contains(stdout, "precision target ±5 % within 8 repeats") {
		t.Errorf("no precision note in:\n%s", stdout)
	}
	s, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ms, err := s.Measurements(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	repeats := map[int]int{}
	counted := map[int][]float64{}
	for _, m := range ms {
		if _, ok := precision.ParseFlags(m.Flags); !ok {
			t.Errorf("point %s %d repeat %d: flags %q lack the target", m.Mode, m.BlockSize, m.Repeat, m.Flags)
		}
		repeats[m.BlockSize]++
		if !m.Failed && m.Validity != "invalid" {
			counted[m.BlockSize] = append(counted[m.BlockSize], m.BytesPerSec)
		}
	}
	var want, got []string
	for _, size := range []int{1024, 16384} {
		vs := counted[size]
		sort.Float64s(vs)
		iv := precision.MedianCI(vs)
		if all := repeats[size]; all > 8 || all < precision.MinN || !iv.Reached(5) && all != 8 {
			t.Errorf("%d B: %d repeats stored, %d counted, ±%.2f %%: want 6 to 8, and 8 unless ±5 %% was reached", size, all, len(vs), iv.HalfPct())
		}
		mark := ""
		if !iv.Reached(5) {
			mark = "§"
		}
		want = append(want, strconv.Itoa(len(vs))+mark)
		t.Logf("%d B: %d repeats, %d counted, ±%.2f %%", size, repeats[size], len(vs), iv.HalfPct())
	}
	for _, c := range cells {
		got = append(got, c[1]+c[2])
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("cells show n%s, want %s (from the stored repeats):\n%s", got, want, stdout)
	}
}
