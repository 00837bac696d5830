package opensslspeed

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The captures of whole `openssl speed` runs below were taken on purpose for these tests (their first lines say
// how); the constructed ones derive from them (testdata/constructed/README.md).

// reportedRE reads the rate OpenSSL printed, kept in the flag of a CPU-timed point.
var reportedRE = regexp.MustCompile(`openssl reported ([0-9.e+]+) (?:ops|B)/s`)

// checkOneRun asserts what every capture of one command must give: one run, not failed, no measurement twice,
// every ECDSA/ECDH point with its curve, and each point's progress-line count consistent with the rate the table
// printed for it (a count matched to another curve's row is not).
func checkOneRun(t *testing.T, runs []Run) Run {
	t.Helper()
	if len(runs) != 1 {
		for _, r := range runs {
			t.Logf("run at line %d: %d points, failed %q", r.Line, len(r.Points), r.Failed)
		}
		t.Fatalf("%d runs, want 1 (one command is one run)", len(runs))
	}
	r := runs[0]
	if r.Failed != "" || len(r.Problems) > 0 {
		t.Fatalf("run failed %q, problems %v", r.Failed, r.Problems)
	}
	seen := map[string]int{}
	for _, p := range r.Points {
		key := fmt.Sprintf("%s/%s/%d/%d/%s", p.Algorithm, p.Op, p.BlockSize, p.KeyBits, p.Curve)
		if line, dup := seen[key]; dup {
			t.Errorf("%s twice: lines %d and %d", key, line, p.Line)
		}
		seen[key] = p.Line
		if (p.Algorithm == "ecdsa" || p.Algorithm == "ecdh") && p.Curve == "" {
			t.Errorf("%s at line %d has no curve", key, p.Line)
		}
		for _, f := range p.Flags {
			m := reportedRE.FindStringSubmatch(f)
			if m == nil || p.Count == 0 || p.Seconds == 0 {
				continue
			}
			printed, _ := strconv.ParseFloat(m[1], 64)
			unit := float64(max(p.BlockSize, 1))
			if got := p.Count * unit / p.Seconds; math.Abs(got-printed)/printed > 0.02 {
				t.Errorf("%s: count %v in %v s is %.1f/s, but openssl printed %v for it (line %d)", key, p.Count,
					p.Seconds, got, printed, p.Line)
			}
		}
	}
	return r
}

func countAlg(r Run, alg string) (points, withCount int) {
	for _, p := range r.Points {
		if p.Algorithm == alg {
			points++
			if p.Count > 0 {
				withCount++
			}
		}
	}
	return points, withCount
}

// TestParseWholeRunIsOneRun: a complete run (1.1.1 and 3.0), and ECDSA/ECDH over every curve in human and -mr
// form, is one run although curves share bit sizes; every ECDSA/ECDH point has the count of its own curve.
func TestParseWholeRunIsOneRun(t *testing.T) {
	for _, tt := range []struct {
		file             string
		ecdsa, ecdh      int // points: 2 per ECDSA curve, 1 per ECDH curve
		countsFromLines  bool
		wantCurvePoint   string // a curve sharing its size with another, and its ECDSA sign rate
		wantCurveOps     float64
		wantMinPoints    int
		wantRandGenerate bool
	}{
		{file: "L19", ecdsa: 44, ecdh: 24, countsFromLines: true, wantCurvePoint: "nistb163", wantCurveOps: 5777,
			wantMinPoints: 68},
		{file: "L20", ecdsa: 44, ecdh: 24, countsFromLines: true, wantCurvePoint: "brainpoolp512t1",
			wantMinPoints: 180, wantRandGenerate: true},
		{file: "L21", ecdsa: 44, ecdh: 24, countsFromLines: true, wantCurvePoint: "nistb163", wantMinPoints: 240},
		{file: "L22", ecdsa: 44, ecdh: 24, countsFromLines: true, wantCurvePoint: "nistb163", wantMinPoints: 68},
	} {
		t.Run(tt.file, func(t *testing.T) {
			runs, err := Parse(readSpeedFixture(t, tt.file), Hint{})
			if err != nil {
				t.Fatal(err)
			}
			r := checkOneRun(t, runs)
			if len(r.Points) < tt.wantMinPoints {
				t.Errorf("%d points, want at least %d", len(r.Points), tt.wantMinPoints)
			}
			for alg, want := range map[string]int{"ecdsa": tt.ecdsa, "ecdh": tt.ecdh} {
				n, counted := countAlg(r, alg)
				if n != want {
					t.Errorf("%s: %d points, want %d", alg, n, want)
				}
				if tt.countsFromLines && counted != n {
					t.Errorf("%s: %d of %d points have their progress line's count", alg, counted, n)
				}
			}
			found := false
			for _, p := range r.Points {
				if p.Algorithm == "ecdsa" && p.Op == "sign" && p.Curve == tt.wantCurvePoint {
					found = true
					if tt.wantCurveOps > 0 && p.OpsPerSec != tt.wantCurveOps {
						t.Errorf("%s sign: %v ops/s, want %v (its own progress line's count on 1 s)", p.Curve,
							p.OpsPerSec, tt.wantCurveOps)
					}
				}
				if p.Algorithm == "rand" && p.Op != "generate" {
					t.Errorf("rand at %d B: op %q, want generate", p.BlockSize, p.Op)
				}
			}
			if !found {
				t.Errorf("no ecdsa sign point of %s", tt.wantCurvePoint)
			}
			if tt.wantRandGenerate {
				if n, _ := countAlg(r, "rand"); n == 0 {
					t.Error("no rand points")
				}
			}
		})
	}
}

// TestParseCurvesAskedFor: a command naming one curve of a shared size (ecdsab163 alone) gives that curve to
// its progress line; two runs of ecdsap256 pasted without their command lines stay two runs.
func TestParseCurvesAskedFor(t *testing.T) {
	one := "$ openssl speed -seconds 1 ecdsab163\n" +
		"Doing 163 bits sign ecdsa's for 1s: 5777 163 bits ECDSA signs in 0.97s\n" +
		"Doing 163 bits verify ecdsa's for 1s: 3205 163 bits ECDSA verify in 0.99s\n" +
		"version: 3.0.19\n" +
		"                              sign    verify    sign/s verify/s\n" +
		" 163 bits ecdsa (nistb163)   0.0002s   0.0003s   5955.7   3237.4\n"
	r := checkOneRun(t, mustParse(t, one))
	if len(r.Points) != 2 || r.Points[0].Curve != "nistb163" || r.Points[0].Count != 5777 {
		t.Fatalf("points %+v, want nistb163 sign with count 5777 and verify", r.Points)
	}
	p256 := "Doing 256 bits sign ecdsa's for 1s: 48290 256 bits ECDSA signs in 0.99s\n" +
		"Doing 256 bits verify ecdsa's for 1s: 18267 256 bits ECDSA verify in 1.00s\n" +
		"                              sign    verify    sign/s verify/s\n" +
		" 256 bits ecdsa (nistp256)   0.0000s   0.0001s  48777.8  18267.0\n"
	cmd := "$ openssl speed -seconds 1 ecdsap256\n"
	if runs := mustParse(t, cmd+p256+cmd+p256); len(runs) != 2 {
		t.Errorf("two pasted ecdsap256 runs: %d runs, want 2", len(runs))
	}
}

func mustParse(t *testing.T, text string) []Run {
	t.Helper()
	runs, err := Parse(text, Hint{})
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// TestParseErrorInsideTable: an error about one algorithm between a table's rows (or between the commands of a
// loop) concerns that algorithm: the run is not failed, no row is dropped, and a warning names it.
func TestParseErrorInsideTable(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		points     int
		unknown    []string
	}{
		{"between table rows", readConstructed(t, "3.0-table-with-error-between-rows.txt"), 42, []string{"BLAKE2s256"}},
		{"a loop of commands cut by tail", readSpeedFixture(t, "L24"), 24, []string{"whirlpool", "md4"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := checkOneRun(t, mustParse(t, tt.text))
			if len(r.Points) != tt.points {
				t.Errorf("%d points, want %d", len(r.Points), tt.points)
			}
			warnings := strings.Join(r.Warnings, "\n")
			for _, alg := range tt.unknown {
				if !strings.Contains(warnings, strconv.Quote(alg)+" is an unknown cipher or digest") {
					t.Errorf("warnings do not name %s:\n%s", alg, warnings)
				}
			}
		})
	}
}

// TestParseHeaderlessRows: rows cut from their "type … bytes" header are read when the command line or
// Hint.Sizes says the columns, and otherwise refused naming the missing header.
func TestParseHeaderlessRows(t *testing.T) {
	text := readSpeedFixture(t, "L25")
	runs := mustParse(t, text)
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2 (two commands)", len(runs))
	}
	if got := runs[0].Points; len(got) != 6 || got[0].Algorithm != "aes-256-gcm" || got[5].BlockSize != 16384 ||
		got[5].BytesPerSec != 4096376.83e3 {
		t.Errorf("run 1: %+v, want 6 aes-256-gcm points ending 16384 B at 4096376.83k", got)
	}
	if got := runs[1].Points; len(got) != 1 || got[0].Algorithm != "aes-128-ctr" || got[0].BlockSize != 4096 {
		t.Errorf("run 2: %+v, want one aes-128-ctr point at -bytes 4096", got)
	}

	var bare []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "AES-256-GCM") {
			bare = append(bare, l)
		}
	}
	rows := strings.Join(bare, "\n") + "\n"
	runs = mustParse(t, rows)
	if len(runs) != 1 || !strings.Contains(runs[0].Failed, "line 1: a table row without the") ||
		!strings.Contains(runs[0].Failed, "--sizes") {
		t.Fatalf("bare rows: %+v, want a refusal naming line 1, the missing header and --sizes", runs)
	}
	runs, err := Parse(rows, Hint{Sizes: []int{16, 64, 256, 1024, 8192, 16384}})
	if err != nil || len(runs) != 1 || len(runs[0].Points) != 6 || runs[0].Failed != "" {
		t.Fatalf("bare rows with Hint.Sizes: %+v %v, want 6 points", runs, err)
	}
	runs, _ = Parse(rows, Hint{Sizes: []int{16, 64}})
	if len(runs) != 1 || len(runs[0].Problems) == 0 || !strings.Contains(runs[0].Problems[0].Text, "--sizes names 2") {
		t.Fatalf("bare rows with 2 sizes: %+v, want a problem about the count", runs)
	}
}

// TestParseMulti111Terminal: OpenSSL 1.1.1's -multi total as a terminal shows it: the real capture (CRLF,
// children interleaved, a header-less "evp" row) and the same as a publisher abridges it (no +H line left,
// engine lines between the children's, the compiler line wrapped at 80 columns), with the command in the text
// and, without it, with Hint.Algorithm.
func TestParseMulti111Terminal(t *testing.T) {
	want := []float64{475709.06e3, 1021058.69e3, 1264619.70e3, 1063052.78e3, 1124114.43e3, 1078951.94e3}
	real := readSpeedFixture(t, "L23")
	abridged := readConstructed(t, "1.1.1w-multi2-devcrypto-terminal-abridged-wrapped.txt")
	_, abridgedNoCmd, _ := strings.Cut(abridged, "\n")
	for _, tt := range []struct {
		name, text, alg, mode string
	}{
		{"real", real, "", "cpu"},
		{"abridged and wrapped", abridged, "", "devcrypto"},
		{"abridged, no command, --algorithm", abridgedNoCmd, "aes-128-cbc", "devcrypto"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runs, err := Parse(tt.text, Hint{Algorithm: tt.alg})
			if err != nil {
				t.Fatal(err)
			}
			r := checkOneRun(t, runs)
			if r.Mode != tt.mode || r.Threads != 2 || r.Version != "1.1.1w" {
				t.Errorf("mode %q threads %d version %q, want %s, 2, 1.1.1w", r.Mode, r.Threads, r.Version, tt.mode)
			}
			if len(r.Points) != len(want) {
				t.Fatalf("%d points, want %d: %+v", len(r.Points), len(want), r.Points)
			}
			for i, p := range r.Points {
				if p.Algorithm != "aes-128-cbc" || p.BlockSize != []int{16, 64, 256, 1024, 8192, 16384}[i] ||
					math.Abs(p.BytesPerSec-want[i]) > 1 || p.Timing != "wall" {
					t.Errorf("point %d: %+v, want aes-128-cbc at %v B/s on the wall clock", i, p, want[i])
				}
			}
		})
	}
}

// TestParseCPUTimeBasisFlag: a CPU-timed rate re-derived on the CPU seconds (longer than the nominal duration)
// says so, rather than calling them the nominal wall time.
func TestParseCPUTimeBasisFlag(t *testing.T) {
	r := checkOneRun(t, mustParse(t, readSpeedFixture(t, "L19")))
	for _, p := range r.Points {
		if p.Curve != "nistk409" || p.Op != "sign" {
			continue
		}
		flags := strings.Join(p.Flags, "; ")
		if !strings.Contains(flags, "1.01 s, the CPU time (longer than the nominal 1 s)") {
			t.Errorf("flags %q, want the CPU time named as the basis", flags)
		}
		return
	}
	t.Fatal("no nistk409 sign point")
}

// TestParseCryptodevEngineName: the cryptodev engine of OpenSSL 1.0.x is mode devcrypto and keeps its own name.
func TestParseCryptodevEngineName(t *testing.T) {
	runs := mustParse(t, readSpeedFixture(t, "S00"))
	r := runs[len(runs)-1]
	if r.Mode != "devcrypto" || r.Engine != "cryptodev" {
		t.Fatalf("mode %q engine %q, want devcrypto and cryptodev", r.Mode, r.Engine)
	}
	for _, p := range r.Points {
		if p.Engine != "cryptodev" {
			t.Errorf("point %d B: engine %q, want cryptodev", p.BlockSize, p.Engine)
		}
	}
}

// TestParseTableBreaks: a pasted table with a blank line or a comment between its rows keeps every row (with a
// warning naming the line); a ragged row, or a row whose name is not an algorithm's, is refused naming its line,
// and the rows after it are still read.
func TestParseTableBreaks(t *testing.T) {
	full := readSpeedFixture(t, "L20")
	lines := strings.Split(full, "\n")
	var head int
	for i, l := range lines {
		if strings.HasPrefix(l, "type ") {
			head = i
			break
		}
	}
	rows := lines[head+1 : head+7] // md5 … sha512, six algorithms of six sizes
	table := func(mid ...string) string {
		out := []string{"$ openssl speed -elapsed md5 sha1 rmd160 sha256 sha512 hmac",
			"The 'numbers' are in 1000s of bytes per second processed.", lines[head], rows[0], rows[1]}
		out = append(out, mid...)
		return strings.Join(append(out, rows[3:]...), "\n") + "\n"
	}
	fields := strings.Fields(rows[2])
	for _, tt := range []struct {
		name, text string
		points     int
		warn       string
		problem    string
	}{
		{"blank line", table("", rows[2]), 36, "line 7: a row after a break in the table", ""},
		{"comment", table("# on battery from here", rows[2]), 36, "line 7: a row after a break", ""},
		{"ragged row", table(strings.Join(fields[:len(fields)-1], "  ")), 30, "",
			"line 6: row \"rmd160\" has 5 values for the 6 block sizes of its table header: refused"},
		{"refused name", table("rmd\x01" + rows[2]), 30, "", "line 6: table row"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runs := mustParse(t, tt.text)
			if len(runs) != 1 {
				t.Fatalf("%d runs, want 1", len(runs))
			}
			r := runs[0]
			if len(r.Points) != tt.points {
				t.Errorf("%d points, want %d", len(r.Points), tt.points)
			}
			if tt.warn != "" && !strings.Contains(strings.Join(r.Warnings, "\n"), tt.warn) {
				t.Errorf("warnings %q, want %q", r.Warnings, tt.warn)
			}
			if tt.problem == "" && (r.Failed != "" || len(r.Problems) > 0) {
				t.Errorf("failed %q, problems %v", r.Failed, r.Problems)
			}
			if tt.problem != "" && (len(r.Problems) != 1 || !strings.Contains(r.Problems[0].String(), tt.problem)) {
				t.Errorf("problems %v, want one: %q", r.Problems, tt.problem)
			}
			last := false
			for _, p := range r.Points {
				last = last || p.Algorithm == "sha512"
			}
			if !last {
				t.Error("the rows after the break were dropped (no sha512)")
			}
		})
	}
}
