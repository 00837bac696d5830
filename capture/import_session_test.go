package capture

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeCapture writes a capture under a temporary directory: the body of capture prefix, after head.
func writeCapture(t *testing.T, name, head, prefix string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(head+readCapture(t, prefix)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestImportSessionIsOneRun: files given together are one run, numbered as one: raw outputs 1 and 2, the second
// file's points naming the second, a series in both files repeats 0 and 1; --run-per-file keeps them apart.
func TestImportSessionIsOneRun(t *testing.T) {
	cpu := writeCapture(t, "cpu.txt", "$ openssl speed -elapsed -seconds 1 -evp aes-128-cbc\n", "L01")
	soft := writeCapture(t, "soft.txt", "", "Q02") // soft from its CPUINFO line alone: OPENSSL_armcap=0x0 env:0
	again := writeCapture(t, "again.txt", "$ openssl speed -elapsed -seconds 1 -evp aes-128-cbc\n", "L01")
	sink := &recordSink{}
	runs, err := Import(context.Background(), ImportOptions{Board: "b", Files: []string{cpu, soft, again}}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || len(sink.runs) != 1 || runs[0].Points != 18 || runs[0].Commands != 3 {
		t.Fatalf("runs %+v, %d stored: want one run of 18 points from 3 commands", runs, len(sink.runs))
	}
	if got := sink.sources[0]; !strings.Contains(got, "cpu.txt, ") || !strings.Contains(got, "soft.txt, ") || !strings.HasSuffix(got, "again.txt") {
		t.Errorf("source %q does not name the three files", got)
	}
	if raws := sink.raws[0]; len(raws) != 3 || raws[0].ID != 1 || raws[1].ID != 2 || raws[2].ID != 3 {
		t.Errorf("raw outputs %+v, want ids 1, 2, 3", raws)
	}
	modes, repeats := map[string]int{}, map[int]int{}
	for _, p := range sink.runs[0] {
		modes[p.Mode]++
		if p.Mode == "cpu" && p.BlockSize == 16 {
			repeats[p.Repeat] = p.RawID
		}
		if p.Mode == "soft" && p.RawID != 2 {
			t.Errorf("a point of the second file names raw output %d, want 2", p.RawID)
		}
	}
	if modes["cpu"] != 12 || modes["soft"] != 6 {
		t.Errorf("modes %v, want 12 cpu and 6 soft", modes)
	}
	if repeats[0] != 1 || repeats[1] != 3 {
		t.Errorf("cpu 16 B repeats → raw output %v, want repeat 0 in raw 1 and repeat 1 in raw 3", repeats)
	}
	// both commands show their environment (a command line, a CPUINFO line); soft's mask is its mode
	if f := sink.facts[0]; f == nil || f.OpenSSLEnv == nil || len(f.OpenSSLEnv) != 0 {
		t.Errorf("facts %+v, want an empty OpenSSL environment recorded", f)
	}

	sink = &recordSink{}
	runs, err = Import(context.Background(), ImportOptions{Board: "b", Files: []string{cpu, soft}, PerFile: true}, sink)
	if err != nil || len(runs) != 2 || runs[0].File != cpu || runs[1].File != soft || sink.raws[1][0].ID != 1 {
		t.Errorf("per file: runs %+v, %v", runs, err)
	}
}

// TestImportMode: --mode names the mode of commands the capture does not decide, and refuses one it does.
func TestImportMode(t *testing.T) {
	bare := writeCapture(t, "bare.txt", "", "L01")
	sink := &recordSink{}
	if _, err := Import(context.Background(), ImportOptions{Board: "b", Files: []string{bare}, Mode: "soft"}, sink); err != nil {
		t.Fatal(err)
	}
	for _, p := range sink.runs[0] {
		if p.Mode != "soft" {
			t.Fatalf("point %+v: mode %q, want soft from --mode", p, p.Mode)
		}
	}
	// L01's CPUINFO line has no env: OPENSSL_ia32cap was unset
	if f := sink.facts[0]; f == nil || f.OpenSSLEnv == nil || len(f.OpenSSLEnv) != 0 {
		t.Errorf("facts %+v, want an empty OpenSSL environment from the CPUINFO line", f)
	}
	soft := writeCapture(t, "soft.txt", "", "Q02")
	sink = &recordSink{}
	_, err := Import(context.Background(), ImportOptions{Board: "b", Files: []string{soft}, Mode: "devcrypto"}, sink)
	if err == nil || !strings.Contains(err.Error(), "the capture says mode soft (from its environment), --mode says devcrypto") || !sink.rolled {
		t.Errorf("error %v (rolled back %v), want the capture's mode against --mode", err, sink.rolled)
	}
}

// TestImportEnvironment: a partial mask on the pasted command line is the run's environment, not its mode; two
// environments in one run are refused.
func TestImportEnvironment(t *testing.T) {
	masked := writeCapture(t, "masked.txt", "root@board:~# OPENSSL_armcap=0x3d openssl speed -elapsed -seconds 1 -evp aes-128-cbc\n", "L01")
	sink := &recordSink{}
	if _, err := Import(context.Background(), ImportOptions{Board: "b", Files: []string{masked}}, sink); err != nil {
		t.Fatal(err)
	}
	if f := sink.facts[0]; f == nil || !maps.Equal(f.OpenSSLEnv, map[string]string{"OPENSSL_armcap": "0x3d"}) {
		t.Errorf("facts %+v, want OPENSSL_armcap=0x3d", f)
	}
	if p := sink.runs[0][0]; p.Mode != "cpu" {
		t.Errorf("mode %q, want cpu: a partial mask is not soft", p.Mode)
	}
	plain := writeCapture(t, "plain.txt", "$ openssl speed -elapsed -seconds 1 -evp aes-128-cbc\n", "L01")
	sink = &recordSink{}
	_, err := Import(context.Background(), ImportOptions{Board: "b", Files: []string{masked, plain}}, sink)
	if !errors.Is(err, ErrMixedEnvironment) || !strings.Contains(err.Error(), "plain.txt:1: openssl ran with no OPENSSL_* variable, but at ") ||
		!strings.Contains(err.Error(), "masked.txt:1 with OPENSSL_armcap=0x3d") || !sink.rolled {
		t.Errorf("error %v (rolled back %v), want ErrMixedEnvironment naming both files", err, sink.rolled)
	}
	sink = &recordSink{}
	if runs, err := Import(context.Background(), ImportOptions{Board: "b", Files: []string{masked, plain}, PerFile: true}, sink); err != nil || len(runs) != 2 {
		t.Errorf("per file: %v, %+v", err, runs)
	}
}
