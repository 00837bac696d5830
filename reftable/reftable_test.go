package reftable

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func parseFile(t *testing.T, name string, opts Options) Result {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	opts.File = name
	r, err := Parse(data, opts)
	if err != nil {
		t.Fatalf("Parse(%s) = %v", name, err)
	}
	return r
}

// find returns the entry of board, mode, algorithm and size (bits for asymmetric ones, with op).
func find(t *testing.T, r Result, board, mode, alg, op string, size, bits int) Entry {
	t.Helper()
	for _, e := range r.Entries {
		if e.Board == board && e.Mode == mode && e.Algorithm == alg && e.BlockSize == size && e.KeyBits == bits && (op == "" || e.Op == op) {
			return e
		}
	}
	t.Fatalf("no entry %s %s %s %s %d %d among %d", board, mode, alg, op, size, bits, len(r.Entries))
	return Entry{}
}

// TestTIAM64xSDKGuide reads TI's AM64x SDK 12.00 table as published: three modes by column, sizes written
// "16" and "16 bytes", sha2-256 as sha256, and the CPU % table spread over every size of its algorithm.
func TestTIAM64xSDKGuide(t *testing.T) {
	r := parseFile(t, "ti-am64x-sdk-12.00-crypto.txt", Options{Board: "am64x-evm"})
	if got, want := len(r.Entries), 7*6*3; got != want {
		t.Errorf("%d entries, want %d (7 algorithms × 6 sizes × 3 modes)", got, want)
	}
	if r.Tables != 2 || r.Threads != 1 || !strings.HasPrefix(r.Source, "TI Processor SDK Linux 12.00.00 Performance Guide") {
		t.Errorf("tables %d, threads %d, source %q", r.Tables, r.Threads, r.Source)
	}
	for _, c := range []struct {
		mode      string
		mbps, cpu float64
	}{{"accelerator", 134.93, 39}, {"cpu", 727.48, 99}, {"soft", 31.44, 99}} {
		e := find(t, r, "am64x-evm", c.mode, "aes-128-cbc", "encrypt", 16384, 0)
		if e.BytesPerSec != c.mbps*1e6 || e.CPUPct != c.cpu || e.Threads != 1 {
			t.Errorf("%s aes-128-cbc 16384 B = %g B/s, CPU %g %%, threads %d; want %g MB/s, %g %%", c.mode, e.BytesPerSec, e.CPUPct, e.Threads, c.mbps, c.cpu)
		}
	}
	e := find(t, r, "am64x-evm", "accelerator", "sha256", "digest", 16, 0)
	if e.BytesPerSec != 0.37e6 || e.CPUPct != 91 || e.Line != 34 {
		t.Errorf("accelerator sha256 16 B = %+v, want 0.37 MB/s, CPU 91 %%, line 34", e.Point)
	}
	if e := find(t, r, "am64x-evm", "soft", "aes-128-ecb", "", 16384, 0); e.BytesPerSec != 32.02e6 {
		t.Errorf("soft aes-128-ecb 16384 B = %v B/s, want exactly 32.02e6 (no binary noise)", e.BytesPerSec)
	}
}

// TestTISPRACV1B reads the application note's shape: sizes as columns in Mbit/s under a title, -multi 2 from
// the source line, and rsa/ecdsa sign/verify per second by key size and curve.
func TestTISPRACV1B(t *testing.T) {
	r := parseFile(t, "ti-am64x-spracv1b-crypto.txt", Options{Board: "am64x-evm", Mode: "cpu"})
	e := find(t, r, "am64x-evm", "cpu", "aes-128-gcm", "encrypt", 16384, 0)
	if e.BytesPerSec != 6637e6/8 || e.Threads != 2 {
		t.Errorf("aes-128-gcm 16384 B = %g B/s at %d threads, want 6637 Mbit/s at 2", e.BytesPerSec, e.Threads)
	}
	if got, want := len(r.Entries), 6*6+2*5+2*5; got != want {
		t.Errorf("%d entries, want %d", got, want)
	}
	if e := find(t, r, "am64x-evm", "cpu", "rsa", "verify", 0, 2048); e.OpsPerSec != 6777 || e.Threads != 2 {
		t.Errorf("rsa 2048 verify = %+v, want 6777/s at 2 threads", e.Point)
	}
	if e := find(t, r, "am64x-evm", "cpu", "ecdsa", "sign", 0, 233); e.Curve != "nistk233" || e.OpsPerSec != 241 {
		t.Errorf("first ecdsa 233 sign = %+v, want nistk233 241/s", e.Point)
	}
	if _, err := Parse(mustRead(t, "ti-am64x-spracv1b-crypto.txt"), Options{File: "x", Board: "b", Mode: "cpu", Threads: 1}); err == nil ||
		!strings.Contains(err.Error(), "-multi 2, --threads says 1") {
		t.Errorf("--threads 1 against the text's -multi 2: %v, want refused", err)
	}
	if _, err := Parse(mustRead(t, "ti-am64x-spracv1b-crypto.txt"), Options{File: "x", Board: "b"}); err == nil || !strings.Contains(err.Error(), "pass --mode") {
		t.Errorf("without a mode: %v, want refused asking for --mode", err)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCSVTable reads reStructuredText csv-tables: :header:, :header-rows:, "16 bytes" sizes and a CPU table.
func TestCSVTable(t *testing.T) {
	r := parseFile(t, "am62l-csv-table.rst", Options{Board: "am62l-evm", Columns: map[string]string{"Accelerator": "devcrypto"}})
	if len(r.Columns) != 1 || r.Columns[0] != "Accelerator" {
		t.Errorf("columns used %v, want [Accelerator]", r.Columns)
	}
	if r.Source != "" || r.Tables != 2 || len(r.Entries) != 12 {
		t.Errorf("source %q, %d tables, %d entries; want none, 2, 12", r.Source, r.Tables, len(r.Entries))
	}
	e := find(t, r, "am62l-evm", "devcrypto", "aes-128-cbc", "", 16384, 0)
	if e.BytesPerSec != 120.5e6 || e.CPUPct != 35 {
		t.Errorf("devcrypto (mapped from Accelerator) aes-128-cbc 16384 B = %+v", e.Point)
	}
	if e := find(t, r, "am62l-evm", "soft", "sha256", "", 16, 0); e.BytesPerSec != 6e6 || e.CPUPct != 99 {
		t.Errorf("soft sha256 16 B = %+v", e.Point)
	}
}

// TestOldGuideBoards reads the older guides' shape: a column per board in KBytes/Sec as mean (min, max), and a
// CPU-load table per board, the mode named by the options.
func TestOldGuideBoards(t *testing.T) {
	r := parseFile(t, "old-guide-boards.md", Options{Mode: "cpu"})
	e := find(t, r, "am335x-evm", "cpu", "aes-128-cbc", "", 16384, 0)
	if e.BytesPerSec != 23405.57e3 || e.PublishedMin != 23399e3 || e.PublishedMax != 23412e3 || e.CPUPct != 36 {
		t.Errorf("am335x aes-128-cbc 16384 B = %+v, want 23405.57 KB/s (min 23399, max 23412), CPU 36", e.Point)
	}
	if e := find(t, r, "am57xx-evm", "cpu", "aes-128-cbc", "", 16, 0); e.BytesPerSec != 5e6 || e.CPUPct != 40 || e.PublishedMax != 5.1e6 {
		t.Errorf("am57xx aes-128-cbc 16 B = %+v", e.Point)
	}
	if got := len(r.Entries); got != 5 {
		t.Errorf("%d entries, want 5 (the '-' cell is not published)", got)
	}
	if _, err := Parse(mustRead(t, "old-guide-boards.md"), Options{File: "old"}); err == nil || !strings.Contains(err.Error(), "names no mode") {
		t.Errorf("boards as columns without --mode: %v, want refused", err)
	}
}

// TestGridAndAligned reads a grid table with a two-line header (MiB/s) and a space-aligned table (KB/s).
func TestGridAndAligned(t *testing.T) {
	r := parseFile(t, "grid-and-aligned.txt", Options{Board: "evk"})
	if e := find(t, r, "evk", "accelerator", "aes-256-cbc", "", 16384, 0); e.BytesPerSec != 100.5*(1<<20) {
		t.Errorf("grid accelerator aes-256-cbc 16384 B = %g B/s, want 100.5 MiB/s", e.BytesPerSec)
	}
	if e := find(t, r, "evk", "soft", "aes-128-ctr", "", 16, 0); e.BytesPerSec != 12000.5e3 {
		t.Errorf("aligned soft aes-128-ctr 16 B = %g B/s, want 12000.5 KB/s", e.BytesPerSec)
	}
	if len(r.Entries) != 6 {
		t.Errorf("%d entries, want 6", len(r.Entries))
	}
}

// TestSimpleTable reads a reStructuredText simple table (===== borders, columns two spaces apart).
func TestSimpleTable(t *testing.T) {
	text := "# source: made up\n\n===========  ============  ==============\nAlgorithm    Size (bytes)  ARM CE (MB/s)\n" +
		"===========  ============  ==============\naes-128-cbc  16            69.43\naes-128-cbc  16384         727.48\n" +
		"===========  ============  ==============\n"
	r, err := Parse([]byte(text), Options{File: "simple.rst", Board: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Entries) != 2 || r.Entries[1].BytesPerSec != 727.48e6 || r.Entries[1].Line != 7 || r.Source != "made up" {
		t.Errorf("simple table = %+v", r)
	}
}

// TestRefused feeds tables that cannot be read unambiguously: each is an *Error at its line saying why.
func TestRefused(t *testing.T) {
	const head = "Algorithm\tSize (bytes)\tARM CE (MB/s)\n"
	for _, c := range []struct {
		name, text string
		opts       Options
		line       int
		want       string
	}{
		{"ragged row", head + "aes-128-cbc\t16\t1.0\n aes-128-cbc\t64\n", Options{Board: "b"}, 3, "ragged"},
		{"header without unit", "Algorithm\tSize (bytes)\tARM CE\naes-128-cbc\t16\t1.0\n", Options{Board: "b"}, 1, "has no unit"},
		{"duplicate row", head + "aes-128-cbc\t16\t1.0\naes-128-cbc\t16 bytes\t1.0\n", Options{Board: "b"}, 3, "duplicate figure"},
		{"huge number", head + "aes-128-cbc\t16\t1e9\n", Options{Board: "b"}, 2, "above any machine"},
		{"infinite", head + "aes-128-cbc\t16\t1e400\n", Options{Board: "b"}, 2, "not a finite number"},
		{"control character", head + "aes-128-cbc\x1b[2J\t16\t1.0\n", Options{Board: "b"}, 2, "control character"},
		{"nul", head + "aes\x00\t16\t1\n", Options{Board: "b"}, 2, "control character"},
		{"not UTF-8", head + "aes\xff\t16\t1\n", Options{Board: "b"}, 2, "not UTF-8"},
		{"bits or bytes", "Algorithm\tSize (bytes)\tARM CE (mb/s)\naes-128-cbc\t16\t1\n", Options{Board: "b"}, 1, "bits or bytes"},
		{"bits or bytes, mbps", "Algorithm\tSize (bytes)\tARM CE (mbps)\naes-128-cbc\t16\t1\n", Options{Board: "b"}, 1, "bits or bytes"},
		{"bits or bytes in the title", "Figures in mb/s\nSize (bytes) 16 64\naes-128-gcm 1 2\n", Options{Board: "b", Mode: "cpu"}, 2, "bits or bytes"},
		{"software", "Algorithm\tSize (bytes)\tSoftware (MB/s)\naes-128-cbc\t16\t1\n", Options{Board: "b"}, 1, "--column"},
		{"unknown column", "Algorithm\tSize (bytes)\tTurbo (MB/s)\naes-128-cbc\t16\t1\n", Options{Board: "b"}, 1, "--column"},
		{"no board", head + "aes-128-cbc\t16\t1.0\n", Options{}, 2, "pass --board"},
		{"decimal comma", head + "aes-128-cbc\t16\t1,5\n", Options{Board: "b"}, 2, "decimal comma"},
		{"zero", head + "aes-128-cbc\t16\t0\n", Options{Board: "b"}, 2, "figure of 0"},
		{"bad size", head + "aes-128-cbc\t16 KB\t1\n", Options{Board: "b"}, 2, "size"},
		{"bad algorithm", head + "aes 128 (SA2UL)\t16\t1\n", Options{Board: "b"}, 2, "not an algorithm name"},
		{"cpu alone", "Algorithm\tARM CE (%)\naes-128-cbc\t99%\n", Options{Board: "b"}, 2, "no throughput figure"},
		{"mean outside range", "Algorithm\tSize\tb1: throughput (KBytes/Sec)\naes-128-cbc\t16\t5 (min 6, max 7)\n", Options{Mode: "cpu"}, 2, "not within"},
		{"two units in title", "Figures in MB/s and Mbit/s\nSize (bytes) 16 64\naes-128-gcm 1 2\n", Options{Board: "b", Mode: "cpu"}, 2, "two units"},
		{"size row without unit", "Frame Size (bytes)\n16 64\naes-128-gcm 1 2\n", Options{Board: "b", Mode: "cpu"}, 2, "without a unit"},
		{"space ragged", "Table in Mbit/s\nFrame Size (bytes)\n16 64 256\naes-128-gcm 1 2\n", Options{Board: "b", Mode: "cpu"}, 4, "ragged"},
		{"two -multi", "# -multi 2\n# -multi 4\n" + head + "aes-128-cbc\t16\t1\n", Options{Board: "b"}, 2, "-multi 2 and -multi 4"},
		{"markdown without separator", "| Algorithm | Size | ARM (MB/s) |\n| aes-128-cbc | 16 | 1 |\n", Options{Board: "b"}, 2, "separator"},
		{"csv-table file", ".. csv-table:: x\n   :file: t.csv\n", Options{Board: "b"}, 2, ":file:"},
		{"csv-table no header", ".. csv-table:: x\n\n   aes-128-cbc,16,1\n", Options{Board: "b"}, 1, "header"},
		{"grid spanning", "+----+----+\n| a  | b  |\n+====+====+\n| a-b-cel |\n+----+----+\n", Options{Board: "b"}, 4, "spanning"},
		{"no table", "just prose\n", Options{}, 1, "no table"},
		{"asymmetric in a cipher column", head + "rsa2048\t16\t1\n", Options{Board: "b"}, 2, "asymmetric"},
		{"5000-byte algorithm", head + strings.Repeat("a", 5000) + "\t16\t1\n", Options{Board: "b"}, 2,
			`algorithm "` + strings.Repeat("a", 60) + `"… (5000 bytes): a name of 5000 bytes, longer than any algorithm's (64 at most)`},
		{"65-byte algorithm", head + strings.Repeat("a", 65) + "\t16\t1\n", Options{Board: "b"}, 2, "longer than any algorithm's"},
		{"long bad algorithm", head + strings.Repeat("é", 40) + "\t16\t1\n", Options{Board: "b"}, 2, "… (80 bytes)"},
		{"long unknown column", "Algorithm\tSize (bytes)\t" + strings.Repeat("x", 5000) + " (MB/s)\naes-128-cbc\t16\t1\n",
			Options{Board: "b"}, 1, "--column"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.opts.File = "t.txt"
			_, err := Parse([]byte(c.text), c.opts)
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Parse = %v, want an *Error", err)
			}
			if pe.Line != c.line || !strings.Contains(pe.Msg, c.want) || !strings.HasPrefix(err.Error(), "t.txt:") {
				t.Errorf("Parse = %v, want t.txt:%d: …%s…", err, c.line, c.want)
			}
			if len(pe.Msg) > 400 { // a cell is quoted cut to 60 bytes, however long the line
				t.Errorf("a message of %d bytes: %.200s…", len(pe.Msg), pe.Msg)
			}
		})
	}
}

// TestTooLarge refuses a file larger than any published table before reading its lines.
func TestTooLarge(t *testing.T) {
	_, err := Parse(make([]byte, MaxFileBytes+1), Options{File: "big"})
	if err == nil || !strings.Contains(err.Error(), "more than a published table") {
		t.Errorf("Parse(too large) = %v", err)
	}
}

// TestUnitsOneRule: the case of the symbol says bits or bytes, whatever follows it, so every spelling of one unit
// reads as the same figure: Mb/s, Mbps and Mbit/s are megabits (Mbps was bits and Mb/s refused), MB/s and MBps
// megabytes, kb/s, Kbps and kbit/s kilobits.
func TestUnitsOneRule(t *testing.T) {
	for _, c := range []struct {
		units []string
		want  float64 // bytes per second of a figure of 8
	}{
		{[]string{"Mb/s", "Mbps", "Mbit/s", "Mb/sec", "Mbits/s"}, 1e6},
		{[]string{"MB/s", "MBps", "MBytes/s", "MB/sec"}, 8e6},
		{[]string{"kb/s", "Kb/s", "kbps", "Kbps", "kbit/s"}, 1e3},
		{[]string{"KB/s", "kB/s", "KBps", "KBytes/Sec"}, 8e3},
		{[]string{"Gb/s", "Gbps", "Gbit/s"}, 1e9},
	} {
		for _, u := range c.units {
			for _, text := range []string{
				"Algorithm\tSize (bytes)\tARM CE (" + u + ")\naes-128-cbc\t16\t8\n", // in the header
				"Figures in " + u + "\nSize (bytes) 16 64\naes-128-cbc 8 8\n",       // in the title
			} {
				r, err := Parse([]byte(text), Options{File: "t.txt", Board: "b", Mode: "cpu"})
				if err != nil {
					t.Errorf("%s: %v", u, err)
					continue
				}
				if got := r.Entries[0].BytesPerSec; got != c.want {
					t.Errorf("8 %s = %g bytes/s, want %g", u, got, c.want)
				}
			}
		}
	}
}
