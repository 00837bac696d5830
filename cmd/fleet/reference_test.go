package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tables the repository ships (reference/README.md), read where a user reads them.
var (
	tiSDK      = filepath.Join("..", "..", "reference", "ti-am64x-sdk-12.00-crypto.txt")
	tiSPRACV1B = filepath.Join("..", "..", "reference", "ti-am64x-spracv1b-crypto.txt")
)

type resultRow struct {
	Board        string  `json:"board"`
	Mode         string  `json:"mode"`
	Algorithm    string  `json:"algorithm"`
	BlockSize    int     `json:"block_size"`
	Threads      int     `json:"threads"`
	BytesPerSec  float64 `json:"bytes_per_sec"`
	OpsPerSec    float64 `json:"ops_per_sec"`
	CPUPct       float64 `json:"cpu_pct"`
	PublishedMin float64 `json:"published_min"`
	PublishedMax float64 `json:"published_max"`
}

func resultRows(t *testing.T, args ...string) []resultRow {
	t.Helper()
	out, stderr, code := runFleet(t, append([]string{"results", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("fleet results %v: exit %d: %s", args, code, stderr)
	}
	var rows []resultRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("results json: %v\n%s", err, out)
	}
	return rows
}

func importReference(t *testing.T, db string, args ...string) string {
	t.Helper()
	stdout, stderr, code := runFleet(t, append([]string{"import", "--db", db}, args...)...)
	if code != 0 {
		t.Fatalf("fleet import %v: exit %d: %s", args, code, stderr)
	}
	if !strings.HasPrefix(stdout, "reference ") {
		t.Errorf("fleet import %v: stdout %q, want the result (reference LABEL: run N, ...)", args, stdout)
	}
	return stdout + stderr // the result on stdout, what each file held and the warnings on stderr
}

// TestImportReferenceTI imports the two TI tables with the README's commands and reads back the figures the
// guides publish, through fleet results like any run's.
func TestImportReferenceTI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	msg := importReference(t, db, "--reference", "ti-am64x-sdk-12.00", "--board", "am64x-evm", tiSDK)
	if !strings.Contains(msg, "126 figures of am64x-evm in modes accelerator, cpu, soft") {
		t.Errorf("import said %q", msg)
	}
	importReference(t, db, "--reference", "ti-am64x-spracv1b", "--board", "am64x-evm", "--mode", "cpu", tiSPRACV1B)

	want := map[string][2]float64{"accelerator": {134.93e6, 39}, "cpu": {727.48e6, 99}, "soft": {31.44e6, 99}}
	rows := resultRows(t, "--db", db, "--run", "ti-am64x-sdk-12.00", "--algorithm", "aes-128-cbc", "--size", "16384")
	if len(rows) != 3 {
		t.Fatalf("%d rows of aes-128-cbc 16384 B, want 3: %+v", len(rows), rows)
	}
	for _, r := range rows {
		if w := want[r.Mode]; r.Board != "am64x-evm" || r.BytesPerSec != w[0] || r.CPUPct != w[1] || r.Threads != 1 {
			t.Errorf("%s: %+v, want %g B/s, CPU %g %%", r.Mode, r, w[0], w[1])
		}
	}
	rows = resultRows(t, "--db", db, "--run", "ti-am64x-spracv1b", "--algorithm", "aes-128-gcm", "--size", "16384")
	if len(rows) != 1 || rows[0].BytesPerSec != 6637e6/8 || rows[0].Threads != 2 || rows[0].Mode != "cpu" {
		t.Errorf("SPRACV1B aes-128-gcm 16384 B = %+v, want 6637 Mbit/s at 2 threads, mode cpu", rows)
	}

	// Boards as columns with "mean (min, max)" in KBytes/Sec: the published range is kept.
	importReference(t, db, "--reference", "old-guide", "--mode", "cpu", filepath.Join("..", "..", "reftable", "testdata", "old-guide-boards.md"))
	rows = resultRows(t, "--db", db, "--run", "old-guide", "--board", "am335x-evm", "--size", "16384", "--algorithm", "aes-128-cbc")
	if len(rows) != 1 || rows[0].BytesPerSec != 23405.57e3 || rows[0].PublishedMin != 23399e3 || rows[0].PublishedMax != 23412e3 || rows[0].CPUPct != 36 {
		t.Errorf("old guide am335x-evm aes-128-cbc 16384 B = %+v, want 23405.57 KB/s (min 23399, max 23412), CPU 36", rows)
	}

	out, _, _ := runFleet(t, "runs", "--db", db)
	if strings.Count(out, "reference") != 3 {
		t.Errorf("fleet runs does not mark the three references:\n%s", out)
	}
	out, _, _ = runFleet(t, "show", "--db", db, "ti-am64x-spracv1b")
	if !strings.Contains(out, ": reference") || !strings.Contains(strings.Join(strings.Fields(out), " "), "source: TI application note SPRACV1B") {
		t.Errorf("fleet show does not give the status and provenance:\n%s", out)
	}
	// A reference is no measurement: no latest run, no baseline.
	if rows := resultRows(t, "--db", db); len(rows) != 0 {
		t.Errorf("fleet results (latest) lists %d reference rows, want none", len(rows))
	}
	if _, stderr, code := runFleet(t, "regress", "--db", db, "--baseline", "ti-am64x-sdk-12.00", "--run", "ti-am64x-spracv1b"); code != 2 ||
		!strings.Contains(stderr, "never a measurement to judge") {
		t.Errorf("regress of a reference: exit %d (%s), want 2, refused", code, stderr)
	}
}

// TestImportReferenceRefused: no provenance, an ambiguous table and a measured label store nothing (exit 2,
// FILE:LINE named).
func TestImportReferenceRefused(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "fleet.db")
	noSource := writeCapture(t, dir, "nosource.txt", "Algorithm\tSize (bytes)\tARM CE (MB/s)\naes-128-cbc\t16\t1.5\n")
	noUnit := writeCapture(t, dir, "nounit.txt", "# source: test\nAlgorithm\tSize (bytes)\tARM CE\naes-128-cbc\t16\t1.5\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--reference", "r", "--board", "b", noSource}, "nosource.txt:1: no \"# source:\" line"},
		{[]string{"--reference", "r", "--board", "b", noUnit}, "nounit.txt:2: column \"ARM CE\" has no unit"},
		{[]string{"--reference", "r", "--board", "b", "--column", "Accelerator", tiSDK}, "want HEADER=MODE"},
		{[]string{"--reference", "r", "--board", "b", "--mode", "turbo", tiSDK}, "--mode"},
		{[]string{"--reference", "r", "--board", "b", "--threads", "0", tiSDK}, "--threads 0"},
		{[]string{"--reference", "r", "--board", "b", tiSDK, tiSDK}, "also at"},
		{[]string{"--board", "b", "--threads", "2", tiSDK}, "add --reference"},
		{[]string{"--reference", "r", tiSDK}, "pass --board"},
		{[]string{"--reference", "r", "--board", "b", "--column", "Acclerator=afalg", tiSDK}, "--column \"Acclerator\" names no column"},
	} {
		_, stderr, code := runFleet(t, append([]string{"import", "--db", db}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("import %v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(db); err == nil {
		if out, _, _ := runFleet(t, "runs", "--db", db); strings.Contains(out, "reference") {
			t.Errorf("a refused import stored a run:\n%s", out)
		}
	}
	// With --source, a file without a source line is accepted; a label of measured runs is refused.
	importReference(t, db, "--reference", "r", "--board", "b", "--source", "typed by hand", noSource)
	if out, _, _ := runFleet(t, "show", "--db", db, "r"); !strings.Contains(out, "typed by hand") {
		t.Errorf("--source not kept:\n%s", out)
	}
}

// TestCompareReferenceLocalEndToEnd measures the local board and puts it beside TI's AM64x table: text and
// JSON, matched by mode, algorithm and size, the published CPU % beside the measured one.
func TestCompareReferenceLocalEndToEnd(t *testing.T) {
	needOpenSSL(t)
	if testing.Short() {
		t.Skip("builds the agent and runs openssl for a few seconds")
	}
	db := filepath.Join(t.TempDir(), "fleet.db")
	if stdout, stderr, code := runFleet(t, "run", "--boards", "local", "--db", db, "--modes", "soft,cpu",
		"--algorithms", "aes-128-cbc,sha256,chacha20-poly1305", "--sizes", "1024,16384", "--seconds", "1", "--repeat", "2"); code != 0 {
		t.Fatalf("fleet run exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	importReference(t, db, "--reference", "ti-am64x-sdk-12.00", "--board", "am64x-evm", tiSDK)

	// local is no AM64x: compared only when asked.
	if _, stderr, code := runFleet(t, "compare", "--db", db, "--reference", "ti-am64x-sdk-12.00"); code != 2 ||
		!strings.Contains(stderr, "not compared: local") || !strings.Contains(stderr, "--reference-board am64x-evm") {
		t.Errorf("compare --reference of local alone: exit %d, %q; want 2, local not compared", code, stderr)
	}
	out, stderr, code := runFleet(t, "compare", "--db", db, "--reference", "ti-am64x-sdk-12.00", "--reference-board", "am64x-evm")
	if code != 0 {
		t.Fatalf("compare --reference: exit %d: %s", code, stderr)
	}
	out = strings.ReplaceAll(strings.ReplaceAll(out, "\n    ", " "), "\n  ", " ") // lines fold at 100 columns
	for _, want := range []string{
		"Beside reference ti-am64x-sdk-12.00 (run 2): TI Processor SDK Linux 12.00.00",
		"% of ti-am64x-sdk-12.00 (727.48), CPU ", "(published 99 %)", "local soft sha256 16384 B: ",
		"% of ti-am64x-sdk-12.00 (63.41)", "local cpu aes-128-cbc 1024 B: ",
		"measured series without a figure in ti-am64x-sdk-12.00: local cpu chacha20-poly1305 1024 B",
		"MB/s is 1000000 bytes per second on both sides",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("compare --reference lacks %q:\n%s", want, out)
		}
	}

	out, stderr, code = runFleet(t, "compare", "--db", db, "--reference", "ti-am64x-sdk-12.00", "--reference-board", "am64x-evm", "--format", "json", "--modes", "cpu")
	if code != 0 {
		t.Fatalf("compare --reference --format json: exit %d: %s", code, stderr)
	}
	var cmp struct {
		Reference string `json:"reference"`
		Source    string `json:"source"`
		Rows      []struct {
			Board, Mode, Algorithm string
			BlockSize              int     `json:"block_size"`
			Median                 float64 `json:"median"`
			CPUPct                 float64 `json:"cpu_pct"`
			ReferenceBoard         string  `json:"reference_board"`
			ReferenceMode          string  `json:"reference_mode"`
			Reference              float64 `json:"reference"`
			ReferenceCPUPct        float64 `json:"reference_cpu_pct"`
			Percent                float64 `json:"percent"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if cmp.Reference != "ti-am64x-sdk-12.00" || !strings.HasPrefix(cmp.Source, "TI Processor SDK") || len(cmp.Rows) != 4 {
		t.Fatalf("json = %+v, want the reference, its source and 4 cpu rows (2 algorithms × 2 sizes)", cmp)
	}
	for _, r := range cmp.Rows {
		if r.Board != "local" || r.Mode != "cpu" || r.ReferenceMode != "cpu" || r.ReferenceBoard != "am64x-evm" || r.Median <= 0 || r.CPUPct <= 0 {
			t.Errorf("row %+v: want local cpu beside am64x-evm cpu, a median and a CPU %%", r)
		}
		if r.Algorithm == "aes-128-cbc" && r.BlockSize == 16384 && (r.Reference != 727.48e6 || r.ReferenceCPUPct != 99) {
			t.Errorf("aes-128-cbc 16384 B beside %g B/s, CPU %g; want 727.48 MB/s, 99 %%", r.Reference, r.ReferenceCPUPct)
		}
		if got := r.Median / r.Reference * 100; got != r.Percent {
			t.Errorf("%s %d: percent %g, want median/reference = %g", r.Algorithm, r.BlockSize, r.Percent, got)
		}
	}
	if _, stderr, code := runFleet(t, "compare", "--db", db, "--reference", "nope"); code != 2 || !strings.Contains(stderr, "references here: ti-am64x-sdk-12.00") {
		t.Errorf("compare --reference nope: exit %d, %q", code, stderr)
	}
	if _, stderr, code := runFleet(t, "compare", "--db", db, "--reference", "ti-am64x-sdk-12.00", "--reference-board", "am62x"); code != 2 || !strings.Contains(stderr, "has no board \"am62x\"") {
		t.Errorf("compare --reference-board am62x: exit %d, %q", code, stderr)
	}
	if _, stderr, code := runFleet(t, "regress", "--db", db, "--baseline", "ti-am64x-sdk-12.00"); code != 2 || !strings.Contains(stderr, "is a reference, imported with fleet import --reference") {
		t.Errorf("regress --baseline of a reference label: exit %d, %q; want 2, it is a reference", code, stderr)
	}
	// Plain compare of the latest runs never shows the reference's board.
	if out, _, _ := runFleet(t, "compare", "--db", db); strings.Contains(out, "am64x-evm") {
		t.Errorf("compare (latest) shows the reference:\n%s", out)
	}
}

// TestImportReferenceInOtherEncodings: a published table saved as UTF-16 (byte order mark, CRLF: Notepad,
// PowerShell) or with lone CR line ends is read as the UTF-8 original, the same figures; a UTF-32 one is refused
// naming the encoding, exit 2. Before, both were refused as "line 1: bytes that are not UTF-8" / one long line.
func TestImportReferenceInOtherEncodings(t *testing.T) {
	text, err := os.ReadFile(tiSDK)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	utf16 := []byte{0xff, 0xfe}
	for _, r := range strings.ReplaceAll(string(text), "\n", "\r\n") {
		if r > 0xffff {
			t.Fatalf("the table has a character outside the BMP: %q", r)
		}
		utf16 = append(utf16, byte(r), byte(r>>8))
	}
	utf32 := []byte{0xff, 0xfe, 0, 0}
	for _, r := range string(text) {
		utf32 = append(utf32, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	files := map[string][]byte{"utf16.txt": utf16, "cr.txt": []byte(strings.ReplaceAll(string(text), "\n", "\r")), "utf32.txt": utf32}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := resultRows(t, "--db", func() string {
		db := filepath.Join(dir, "utf8.db")
		importReference(t, db, "--reference", "ti", "--board", "am64x-evm", tiSDK)
		return db
	}(), "--run", "ti")
	for _, name := range []string{"utf16.txt", "cr.txt"} {
		db := filepath.Join(dir, name+".db")
		msg := importReference(t, db, "--reference", "ti", "--board", "am64x-evm", filepath.Join(dir, name))
		if !strings.Contains(msg, "126 figures of am64x-evm") {
			t.Errorf("%s: import said %q", name, msg)
		}
		got := resultRows(t, "--db", db, "--run", "ti")
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, want the UTF-8 table's %d", name, len(got), len(want))
		}
		for i := range got {
			if got[i].Mode != want[i].Mode || got[i].Algorithm != want[i].Algorithm || got[i].BytesPerSec != want[i].BytesPerSec || got[i].CPUPct != want[i].CPUPct {
				t.Errorf("%s: row %d %+v, want %+v", name, i, got[i], want[i])
			}
		}
	}
	_, stderr, code := runFleet(t, "import", "--db", filepath.Join(dir, "utf32.db"), "--reference", "ti", "--board", "am64x-evm", filepath.Join(dir, "utf32.txt"))
	if code != 2 || !strings.Contains(stderr, "UTF-32LE") {
		t.Errorf("UTF-32 table: exit %d, %q: want 2 naming UTF-32LE", code, stderr)
	}
}

// TestImportReferenceWarnsUnknownAlgorithm: a table with an algorithm name fleet does not know is stored, and
// import says which at FILE:LINE with the known name nearest to it; TI's shipped table gives no warning.
func TestImportReferenceWarnsUnknownAlgorithm(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "fleet.db")
	typo := writeCapture(t, dir, "typo.txt", "# source: test\nAlgorithm\tSize (bytes)\tARM CE (Mb/s)\n"+
		"aes-128-cbc\t16\t8\naes-128-cbcc\t64\t8\n")
	_, stderr, code := runFleet(t, "import", "--db", db, "--reference", "r", "--board", "b", typo)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, stderr)
	}
	if want := "warning: " + typo + `:4: algorithm "aes-128-cbcc" is not one fleet knows; did you mean aes-128-cbc?`; !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr)
	}
	if strings.Count(stderr, "warning:") != 1 {
		t.Errorf("want one warning:\n%s", stderr)
	}
	out, _, _ := runFleet(t, "results", "--db", db, "--run", "r", "--format", "json")
	if !strings.Contains(out, `"aes-128-cbcc"`) || !strings.Contains(out, `"bytes_per_sec": 1000000`) {
		t.Errorf("the figures are not stored as written, 8 Mb/s as 10^6 bytes/s:\n%s", out)
	}
	_, stderr, code = runFleet(t, "import", "--db", db, "--reference", "ti", "--board", "am64x", tiSDK)
	if code != 0 || strings.Contains(stderr, "warning:") {
		t.Errorf("TI's table: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestImportReferenceSkipsUnreadableTable: TI's table pasted without the rows of its last (CPU usage) table is
// stored, its 126 throughput figures, and import names the empty table at FILE:LINE; a CPU-load column of
// "mean (min m, max M)" cells is stored with its mean and its range. Before, both files were refused, exit 2.
func TestImportReferenceSkipsUnreadableTable(t *testing.T) {
	text, err := os.ReadFile(tiSDK)
	if err != nil {
		t.Fatal(err)
	}
	head := "Algorithm\tAccelerator (%)\tARM CE (%)\tARM (%)\n"
	i := strings.Index(string(text), head)
	if i < 0 {
		t.Fatal("the TI table has no CPU usage header")
	}
	line := strings.Count(string(text[:i]), "\n") + 1
	dir := t.TempDir()
	db := filepath.Join(dir, "fleet.db")
	cut := writeCapture(t, dir, "ti-pasted.txt", string(text[:i+len(head)]))
	msg := importReference(t, db, "--reference", "ti", "--board", "am64x-evm", cut)
	for _, want := range []string{"1 tables (1 skipped, see below), 126 figures",
		fmt.Sprintf("warning: %s:%d: tab-separated table skipped, the rest of the file is read: tab-separated table with a header and no rows", cut, line),
		"reference ti: run 1, 126 figures of am64x-evm"} {
		if !strings.Contains(msg, want) {
			t.Errorf("import said %q, want %q", msg, want)
		}
	}
	if rows := resultRows(t, "--db", db, "--run", "ti"); len(rows) != 126 {
		t.Errorf("%d rows stored, want 126", len(rows))
	}

	ranged := filepath.Join("..", "..", "reftable", "testdata", "cpu-range-and-skipped.md")
	msg = importReference(t, db, "--reference", "old", "--mode", "cpu", ranged)
	if strings.Count(msg, "table skipped") != 2 {
		t.Errorf("import of %s said %q, want two tables named", ranged, msg)
	}
	rows := resultRows(t, "--db", db, "--run", "old", "--size", "16")
	if len(rows) != 1 || rows[0].CPUPct != 98.8 || rows[0].BytesPerSec != 1234.56e3 {
		t.Errorf("old aes-128-cbc 16 B = %+v, want 1234.56 KB/s at CPU 98.8 %%", rows)
	}
}

// TestCompareReferenceBoardChoice runs compare --reference on goldenDB's boards (am64x and imx6q) beside TI's
// AM64x EVM table: am64x is compared (same SoC), imx6q named as not compared; --reference-board am64x-evm
// --boards imx6q compares imx6q on purpose, and boards.toml's soc matches a board of any name.
func TestCompareReferenceBoardChoice(t *testing.T) {
	db := goldenDB(t)
	importReference(t, db, "--reference", "ti", "--board", "am64x-evm", tiSDK)
	out, stderr, code := runFleet(t, "compare", "--db", db, "--reference", "ti")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "am64x cpu aes-128-cbc 16384 B: 900.0 MB/s, 124 % of ti (727.48)") || strings.Contains(out, "\nimx6q ") ||
		!strings.Contains(out, "note: not compared: imx6q (SoC imx6q); ti is of am64x-evm (SoC am64x)") {
		t.Errorf("compare --reference ti:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if len([]rune(l)) > 100 {
			t.Errorf("line of %d columns: %q", len([]rune(l)), l)
		}
	}
	out, stderr, code = runFleet(t, "compare", "--db", db, "--reference", "ti", "--reference-board", "am64x-evm", "--boards", "imx6q")
	if code != 0 || !strings.Contains(out, "imx6q cpu aes-128-cbc 16384 B: 70.00 MB/s, 10 % of ti (727.48)") || strings.Contains(out, "am64x cpu") {
		t.Errorf("--reference-board am64x-evm --boards imx6q: exit %d (%s)\n%s", code, stderr, out)
	}
	inv := writeCapture(t, t.TempDir(), "boards.toml", "[boards.imx6q]\nhost = \"192.0.2.6\"\nsoc = \"AM64x\"\n")
	out, stderr, code = runFleet(t, "compare", "--db", db, "--inventory", inv, "--reference", "ti", "--boards", "imx6q")
	if code != 0 || !strings.Contains(out, "imx6q cpu aes-128-cbc 16384 B:") {
		t.Errorf("imx6q with soc AM64x in boards.toml: exit %d (%s)\n%s", code, stderr, out)
	}
}
