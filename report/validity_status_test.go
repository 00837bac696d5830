package report

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

func TestStatusHeadline(t *testing.T) {
	for _, tc := range []struct {
		name   string
		points int
		j      store.Judged
		want   string
		cell   string
	}{
		{"all invalid", 24, store.Judged{Invalid: 24, InvalidCauses: []string{"background CPU"}},
			"invalid — 24 of 24 points invalid: background CPU", "24/24 invalid: background CPU"},
		{"both", 24, store.Judged{OK: 19, Invalid: 3, Suspect: 2, InvalidCauses: []string{"background CPU", "throttled"}, SuspectCauses: []string{"temperature"}},
			"invalid — 3 of 24 points invalid: background CPU, throttled; 2 suspect: temperature",
			"3/24 invalid: background CPU, throttled; 2/24 suspect: temperature"},
		{"suspect only", 10, store.Judged{OK: 9, Suspect: 1}, "suspect — 1 of 10 points suspect", "1/10 suspect"},
		{"all ok", 10, store.Judged{OK: 10}, "ok", "ok"},
		{"not judged", 10, store.Judged{}, "ok", "-"},
	} {
		if got := StatusHeadline("partial", tc.points, tc.j); tc.want != "ok" && !strings.HasPrefix(got, "partial — ") {
			t.Errorf("%s: a partial run's headline %q does not start with its status", tc.name, got)
		}
		if got := StatusHeadline("ok", tc.points, tc.j); got != tc.want {
			t.Errorf("%s: StatusHeadline = %q, want %q", tc.name, got, tc.want)
		}
		if got := validityCell(tc.points, tc.j); got != tc.cell {
			t.Errorf("%s: validityCell = %q, want %q", tc.name, got, tc.cell)
		}
	}
}

// TestRunSummaryHeadline: fleet show's first line and each board's status say invalid, and how many points were, as the run summary does.
func TestRunSummaryHeadline(t *testing.T) {
	j := store.Judged{Invalid: 24, InvalidCauses: []string{"background CPU"}}
	run := store.Run{ID: 1, Status: protocol.StatusOK, Points: 24, Boards: []string{"local"}, Judged: j,
		Started: time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)}
	var b bytes.Buffer
	if err := WriteRunSummary(&b, run, []store.BoardRun{{RunID: 1, Board: "local", Status: protocol.StatusOK, Points: 24, Judged: j}}, nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if first, _, _ := strings.Cut(out, "\n"); first != "run 1: invalid — 24 of 24 points invalid: background CPU" {
		t.Errorf("first line %q", first)
	}
	if !strings.Contains(out, "status:  invalid — 24 of 24 points invalid: background CPU") {
		t.Errorf("board status without validity:\n%s", out)
	}
}

// TestChartInvalidPointsHollow: a point whose measurements were all invalid is a hollow circle outside the line.
func TestChartInvalidPointsHollow(t *testing.T) {
	c := lineChart{Class: "history", Title: "t", XLabels: map[float64]string{}, Lines: []chartLine{{Name: "local cpu",
		Points: []chartPoint{{X: 1, Y: 100, Lo: 100, Hi: 100}, {X: 2, Y: 40, Lo: 40, Hi: 40, Invalid: true}, {X: 3, Y: 100, Lo: 100, Hi: 100}}}}}
	svg := c.svg()
	poly := regexp.MustCompile(`<polyline points="([^"]*)"`).FindStringSubmatch(svg)
	if poly == nil || len(strings.Fields(poly[1])) != 2 {
		t.Fatalf("polyline %q: want the two valid points only\n%s", poly, svg)
	}
	hollow := regexp.MustCompile(`<circle class="invalid" [^>]*fill="#fff" stroke="#0072B2"`).FindAllString(svg, -1)
	if len(hollow) != 1 {
		t.Errorf("%d hollow circles, want 1:\n%s", len(hollow), svg)
	}
	if !strings.Contains(svg, "invalid (not in line)") {
		t.Errorf("no legend for hollow points:\n%s", svg)
	}
	c.Lines[0].Points[1].Invalid = false
	if svg := c.svg(); strings.Contains(svg, `class="invalid"`) || strings.Contains(svg, "not in line") {
		t.Errorf("a chart without invalid points draws them:\n%s", svg)
	}
}

// TestHistoryChartInvalidRun: a history run whose points were all invalid is drawn hollow; one with some valid
// points is not.
func TestHistoryChartInvalidRun(t *testing.T) {
	var ms []store.Measurement
	for run := int64(1); run <= 3; run++ {
		for rep := 0; rep < 2; rep++ {
			p := protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16384, Threads: 1,
				Repeat: rep, BytesPerSec: 1e9, Timing: "wall", Validity: protocol.ValidityOK}
			if run == 2 || run == 3 && rep == 0 {
				p.Validity, p.ValidityReasons = protocol.ValidityInvalid, []string{"background CPU 50 % (limit 10 %)"}
			}
			ms = append(ms, store.Measurement{ID: int64(len(ms) + 1), RunID: run, RunStarted: t0.Add(time.Duration(run) * time.Hour), Board: "local", Point: p})
		}
	}
	chart, ok := historyChart("h", historyPoints(ms), DefaultUnit, nil)
	if !ok || len(chart.Lines) != 1 {
		t.Fatalf("chart %+v", chart)
	}
	var got []bool
	for _, p := range chart.Lines[0].Points {
		got = append(got, p.Invalid)
	}
	if want := []bool{false, true, false}; !slices.Equal(got, want) {
		t.Errorf("invalid points %v, want %v", got, want)
	}
}

func TestEnvironmentDiff(t *testing.T) {
	base := func() *protocol.Facts {
		return &protocol.Facts{OpenSSLEnv: map[string]string{}, KernelCmdline: "console=ttyS0 quiet",
			Modules: []string{"aesni_intel", "cryptd", "usb_f_ncm"}, OpenSSLSHA256: strings.Repeat("a", 64),
			OpenSSLConf: "/usr/lib/ssl/openssl.cnf", OpenSSLConfDigest: "none"}
	}
	a, b := base(), base()
	if got := environmentDiff(a, b); len(got) != 0 {
		t.Errorf("same facts: %q", got)
	}
	b.OpenSSLEnv = map[string]string{"OPENSSL_ia32cap": "~0x200000000000000"}
	b.KernelCmdline = "console=ttyS0 mitigations=off"
	b.Modules = []string{"cryptd"}
	b.OpenSSLSHA256 = strings.Repeat("b", 64)
	b.OpenSSLConfDigest = "0123456789abcdef"
	want := []string{
		"OPENSSL_ia32cap: unset → ~0x200000000000000",
		"engine/provider sections of /usr/lib/ssl/openssl.cnf: none → 0123456789abcdef",
		"openssl binary sha256: aaaaaaaaaaaa → bbbbbbbbbbbb",
		"kernel command line: mitigations=off added, quiet removed",
		"crypto modules: aesni_intel not loaded",
	}
	if got := environmentDiff(a, b); !slices.Equal(got, want) {
		t.Errorf("diff\n got %q\nwant %q", got, want)
	}
	// facts an older agent did not record are no change
	old := &protocol.Facts{Kernel: "6.1"}
	if got := environmentDiff(old, b); len(got) != 0 {
		t.Errorf("old facts against new: %q, want nothing", got)
	}
}

// TestHistoryNamesEnvironmentChange: fleet history's environment column names the variable that changed.
func TestHistoryNamesEnvironmentChange(t *testing.T) {
	var ms []store.Measurement
	var boards []store.BoardRun
	for run := int64(1); run <= 2; run++ {
		p := protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16384, Threads: 1, BytesPerSec: 1e9, Timing: "wall"}
		ms = append(ms, store.Measurement{ID: run, RunID: run, RunStarted: t0.Add(time.Duration(run) * time.Hour), Board: "local", Point: p})
		env := map[string]string{}
		if run == 2 {
			env["OPENSSL_ia32cap"] = "~0x200000000000000"
		}
		boards = append(boards, store.BoardRun{RunID: run, Board: "local", Facts: &protocol.Facts{Kernel: "6.1", OpenSSLEnv: env}})
	}
	h := History(ms, nil, boards)
	if len(h) != 1 || len(h[0].Entries) != 2 || !slices.Contains(h[0].Entries[1].Changed, "OPENSSL_ia32cap: unset → ~0x200000000000000") {
		t.Errorf("history %+v", h)
	}
}

// TestHistoryMarksInvalidRun: the history table marks a run whose points were all invalid and says why.
func TestHistoryMarksInvalidRun(t *testing.T) {
	var ms []store.Measurement
	for run := int64(1); run <= 2; run++ {
		p := protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16384, Threads: 1, BytesPerSec: 1e9,
			Timing: "wall", Validity: protocol.ValidityOK}
		if run == 2 {
			p.Validity = protocol.ValidityInvalid
		}
		ms = append(ms, store.Measurement{ID: run, RunID: run, RunStarted: t0.Add(time.Duration(run) * time.Hour), Board: "local", Point: p})
	}
	var b bytes.Buffer
	if err := WriteHistory(&b, ms, nil, nil, "text"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if strings.Contains(lines[2], markValidity) || !strings.Contains(lines[3], "1000 (1) MB/s"+markValidity) ||
		!strings.Contains(b.String(), "every point of the run was judged invalid") {
		t.Errorf("history:\n%s", b.String())
	}
}
