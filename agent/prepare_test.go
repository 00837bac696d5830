package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// policyTree writes one cpufreq policy with governor gov and the governors available.
func policyTree(t *testing.T, gov, available string) (root, file string) {
	t.Helper()
	root = t.TempDir()
	dir := filepath.Join(root, "sys/devices/system/cpu/cpufreq/policy0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{"scaling_governor": gov + "\n", "scaling_available_governors": available + "\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, filepath.Join(dir, "scaling_governor")
}

func TestSetGovernorRestores(t *testing.T) {
	root, file := policyTree(t, "schedutil", "ondemand userspace powersave performance schedutil")
	changes, notes := setGovernor(root, "performance")
	if b, _ := os.ReadFile(file); strings.TrimSpace(string(b)) != "performance" {
		t.Fatalf("governor during the sweep = %q, want performance", b)
	}
	if len(notes) != 1 || notes[0] != "governor performance on policy0 for the sweep (was schedutil)" {
		t.Errorf("notes = %q", notes)
	}
	if err := restoreGovernors(changes); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); strings.TrimSpace(string(b)) != "schedutil" {
		t.Errorf("governor after the sweep = %q, want schedutil restored", b)
	}
}

func TestSetGovernorNotOffered(t *testing.T) {
	root, file := policyTree(t, "schedutil", "schedutil powersave")
	changes, notes := setGovernor(root, "performance")
	if len(changes) != 0 {
		t.Errorf("changed %v, want nothing", changes)
	}
	if b, _ := os.ReadFile(file); strings.TrimSpace(string(b)) != "schedutil" {
		t.Errorf("governor = %q, want schedutil untouched", b)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "not offered on policy0") {
		t.Errorf("notes = %q", notes)
	}
	// a board without cpufreq: unknown, nothing to restore
	changes, notes = setGovernor(t.TempDir(), "performance")
	if len(changes) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "no cpufreq policies (unknown)") {
		t.Errorf("no cpufreq: %v %q", changes, notes)
	}
}

func TestWaitQuietEnds(t *testing.T) {
	ctx := context.Background()
	start := time.Now()
	// every machine is quiet enough for a 100 % limit: the first interval ends the wait
	if got := waitQuiet(ctx, "", 10*time.Second, 100); !strings.HasPrefix(got, "quiet after") {
		t.Errorf("waitQuiet(limit 100 %%) = %q, want quiet", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("waitQuiet took %v with a 100 %% limit", d)
	}
	// a fixture tree never advances: the wait says background is unknown instead of spinning
	if got := waitQuiet(ctx, "testdata/evidence/bare", 10*time.Second, 0); !strings.Contains(got, "unknown") {
		t.Errorf("waitQuiet on a frozen tree = %q, want unknown", got)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if got := waitQuiet(cctx, "", time.Minute, 0); got != "quiet wait interrupted" {
		t.Errorf("waitQuiet after cancel = %q", got)
	}
}
