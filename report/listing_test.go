package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/golden"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

func TestWriteRuns(t *testing.T) {
	runs := htmlFixture().Runs
	for _, format := range []string{"text", "markdown", "csv", "json"} {
		var b bytes.Buffer
		if err := WriteRuns(&b, runs, format); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "runs."+ext(format)+".golden", b.Bytes())
		if format == "text" && !strings.Contains(b.String(), "incomplete") {
			t.Errorf("a running run is not shown as incomplete:\n%s", b.String())
		}
	}
	var own bytes.Buffer
	if err := WriteRuns(&own, runs, "text", 12); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(own.String(), "incomplete") {
		t.Errorf("the current process's own run is shown as incomplete:\n%s", own.String())
	}
	if err := WriteRuns(&bytes.Buffer{}, runs, "html"); err == nil {
		t.Error("WriteRuns(html) succeeded, want an error")
	}
}

func TestWriteResults(t *testing.T) {
	ms := s00()
	ms = append(ms, build(11, "nightly", curStarted, []series{
		{board: "am64x", mode: "cpu", alg: "rsa", op: "sign", bits: 2048, values: []float64{421.3}, cpu: 100},
	})...)
	ms[len(ms)-1].Driver = ""
	failed := ms[0]
	failed.Mode, failed.Failed, failed.Error = "afalg", true, "engine afalg fell back to software"
	ms = append(ms, failed)
	for _, format := range []string{"text", "markdown", "csv", "json"} {
		var b bytes.Buffer
		if err := WriteResults(&b, ms, format); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "results."+ext(format)+".golden", b.Bytes())
		if format == "json" {
			var rows []map[string]any
			if err := json.Unmarshal(b.Bytes(), &rows); err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{"run", "board", "mode", "algorithm", "block_size", "threads", "bytes_per_sec",
				"ops_per_sec", "wall_s", "user_s", "sys_s", "cpu_pct", "timing", "repeat", "failed"} {
				if _, ok := rows[0][key]; !ok {
					t.Errorf("JSON result lacks %q", key)
				}
			}
		}
	}
}

func TestWriteHistory(t *testing.T) {
	ms := append(baseline(), current(5, map[string]float64{"cpu/aes-128-cbc/16384": 0.75}, nil)...)
	third := build(12, "nightly", curStarted.Add(24*time.Hour), am64xSeries(5, 1, nil, nil))
	ms = append(ms, third...)
	var series []store.Measurement
	for _, m := range ms {
		if m.BlockSize == 16384 && m.Mode == "cpu" {
			series = append(series, m)
		}
	}
	runs := []store.Run{{ID: 10, ToolVersion: "v0.1.0"}, {ID: 11, ToolVersion: "v0.1.0"}, {ID: 12, ToolVersion: "v0.2.0"}}
	boards := []store.BoardRun{{RunID: 10, Board: "am64x", Facts: am64xFacts("6.1.80-ti", "")},
		{RunID: 11, Board: "am64x", Facts: am64xFacts("6.6.32-ti", "")}, {RunID: 12, Board: "am64x", Facts: am64xFacts("6.6.32-ti", "")}}
	for _, format := range []string{"text", "markdown", "csv", "json"} {
		var b bytes.Buffer
		if err := WriteHistory(&b, series, runs, boards, format); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "history."+ext(format)+".golden", b.Bytes())
	}
	h := History(series, runs, boards)
	if len(h) != 1 || len(h[0].Entries) != 3 {
		t.Fatalf("history = %+v, want one series over three runs", h)
	}
	if got, want := strings.Join(h[0].Entries[1].Changed, "; "), "kernel 6.1.80-ti → 6.6.32-ti"; got != want {
		t.Errorf("changes at run 11 = %q, want %q", got, want)
	}
	if got, want := strings.Join(h[0].Entries[2].Changed, "; "), "fleet v0.1.0 → v0.2.0"; got != want {
		t.Errorf("changes at run 12 = %q, want %q", got, want)
	}
}

func TestWriteRunSummary(t *testing.T) {
	fx := htmlFixture()
	raws := []store.RawOutput{{RunID: 12, Board: "qemu-arm64", Raw: protocol.Raw{ID: 1,
		Command: []string{"openssl", "speed", "-elapsed", "-evp", "aes-128-cbc"}, Env: []string{"OPENSSL_armcap=0"},
		Stdout: "Doing AES-128-CBC ops for 3s on 16 size blocks: 3937500 AES-128-CBC ops in 3.00s", Stderr: ""}}}
	var b bytes.Buffer
	if err := WriteRunSummary(&b, fx.Runs[2], fx.BoardRuns[2:], raws); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "run_summary.txt.golden", b.Bytes())
	for _, want := range []string{"incomplete", "emulated (QEMU)", "devcrypto (all): no /dev/crypto", "OPENSSL_armcap=0"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("run summary lacks %q", want)
		}
	}
}

func TestWriteSweepTables(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSweepTables(&b, append(baseline(), s00()...), "", Layout{}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "sweep.txt.golden", b.Bytes())
	for i, line := range strings.Split(b.String(), "\n") {
		if n := len([]rune(line)); n > 120 {
			t.Errorf("line %d is %d columns wide, want ≤ 120: %q", i+1, n, line)
		}
	}
}

func TestWriteSweepTablesEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSweepTables(&b, nil, "MB/s", Layout{}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "no measurements\n"; got != want {
		t.Errorf("WriteSweepTables(nil) = %q, want %q", got, want)
	}
	if err := WriteSweepTables(&b, s00(), "GB/s", Layout{}); err == nil {
		t.Error("WriteSweepTables(unit GB/s) succeeded, want an error")
	}
}

// TestWriteResultsFitsTextWidth: the results of two boards, one with a long name, a long note and a point of
// several threads fit TextWidth columns (they were 149 wide); an import that stores nothing has no run column.
func TestWriteResultsFitsTextWidth(t *testing.T) {
	ms := s00()
	for i := range ms {
		ms[i].Board = "am335x-beaglebone-black-industrial-rev-c"
	}
	ms = append(ms, build(11, "nightly", curStarted, []series{
		{board: "am64x", mode: "cpu", alg: "aes-128-cbc", op: "encrypt", size: 16384, values: []float64{421.3e6}, cpu: 400},
	})...)
	ms[len(ms)-1].Threads = 4
	ms[0].Validity, ms[0].ValidityReasons = protocol.ValiditySuspect, []string{"background load 35 % of a core during the point", "CPU clock 600 MHz, below its maximum 1000 MHz"}
	var b bytes.Buffer
	if err := WriteResults(&b, ms, "text"); err != nil {
		t.Fatal(err)
	}
	if w, line := widest(b.String()); w > TextWidth {
		t.Errorf("a line of the results is %d columns wide, want ≤ %d:\n%s\n\n%s", w, TextWidth, line, b.String())
	}
	for i := range ms {
		ms[i].RunID = 0
	}
	var dry bytes.Buffer
	if err := WriteImport(&dry, "am335x", []ImportedPoint{{Point: ms[1].Point}}, "text"); err != nil {
		t.Fatal(err)
	}
	if header := strings.Split(dry.String(), "\n")[1]; strings.HasPrefix(header, "run") || strings.Contains(dry.String(), "run 0") {
		t.Errorf("the points of an import that stores nothing name a run:\n%s", dry.String())
	}
}

// TestWriteRunSummaryLongFacts: the facts a board can make as long as it likes (an engine's DSO error, every
// CPU feature, a kernel command line) fold under their value's column at TextWidth, every word kept.
func TestWriteRunSummaryLongFacts(t *testing.T) {
	dso := "not available: 40C7E0B6FFFF0000:error:12800067:DSO support routines:dlfcn_load:could not load the shared " +
		"library:../crypto/dso/dso_dlfcn.c:118:filename(/usr/lib/aarch64-linux-gnu/engines-3/afalg.so): " +
		strings.Repeat("/usr/lib/aarch64-linux-gnu/engines-3/afalg.so: cannot open shared object file: No such file ", 4)
	features := strings.Repeat("fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid ", 10)
	br := store.BoardRun{Board: "am64x", Status: protocol.StatusOK, Points: 1, Facts: &protocol.Facts{
		Hostname: "am64xx-evm", Kernel: "6.1.80-ti", Machine: "aarch64", KernelCmdline: strings.Repeat("console=ttyS2,115200n8 ", 12),
		CPU: protocol.CPUFacts{Model: "Cortex-A53", Features: strings.Fields(features)}, Engines: map[string]string{"afalg": dso}}}
	var b bytes.Buffer
	if err := WriteRunSummary(&b, store.Run{ID: 1}, []store.BoardRun{br}, nil); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if w := len([]rune(l)); w > TextWidth {
			t.Errorf("line of %d columns, over %d: %q", w, TextWidth, l)
		}
	}
	// a word cut after punctuation goes on: compare without the spaces
	squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
	for _, want := range []string{PlainReason(dso), features} { // engine errors in words (show --raw has them as stored)
		if !strings.Contains(squash(b.String()), squash(want)) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}
