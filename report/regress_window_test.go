package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// nightPoints is run's repeats of am64x cpu aes-128-cbc at 16 B and 16 KiB, each size at level × (1 + tiny
// per-repeat offsets).
func nightPoints(run int64, level float64, reps int) []store.Measurement {
	var ms []store.Measurement
	for _, size := range []int{16, 16384} {
		for r := range reps {
			v := level * float64(size/16+100) * (1 + 0.0001*float64((int(run)*37+r*11)%41-20))
			ms = append(ms, store.Measurement{RunID: run, Board: "am64x", Point: protocol.Point{Mode: "cpu",
				Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: size, Threads: 1, Repeat: r, Timing: "wall", BytesPerSec: v}})
		}
	}
	return ms
}

// TestRegressWindow: a two-repeat nightly is judged against its label's window of 10 runs, pooled: unchanged at
// the same level, regressed (2 + 20 samples reach α) and not unconfirmed after an 84 % drop. A one-repeat
// nightly against the same window, where no outcome of 1 + 20 reaches α = 0.05, is regressed by the range rule:
// it lies far below every sample of the window.
func TestRegressWindow(t *testing.T) {
	var base []store.Measurement
	var runs []int64
	for run := int64(1); run <= 10; run++ {
		base = append(base, nightPoints(run, 1, 2)...)
		runs = append(runs, run)
	}
	opts := RegressOptions{Baselines: map[string]BaselineWindow{"am64x": {Label: "nightly", Runs: runs}}}
	r := Regress(base, nightPoints(11, 1, 2), nil, nil, opts)
	for _, x := range r.Rows {
		if x.Verdict != VerdictUnchanged {
			t.Errorf("%s: %s against the window, want unchanged", x.Size(), x.Verdict)
		}
		if got, want := x.Baseline.String(), "nightly runs 1–10, 10 runs, 20 samples"; got != want {
			t.Errorf("baseline = %q, want %q", got, want)
		}
	}
	for _, x := range Regress(base, nightPoints(11, 0.16, 1), nil, nil, opts).Rows {
		if x.Verdict != VerdictRegressed || x.Delta != "−84.0%" {
			t.Errorf("%s: one repeat: %s (%s) after an 84%% drop, want %s (−84.0%%)", x.Size(), x.Verdict, x.Delta, VerdictRegressed)
		}
	}
	r = Regress(base, nightPoints(11, 0.16, 2), nil, nil, opts)
	for _, x := range r.Rows {
		if x.Verdict != VerdictRegressed {
			t.Errorf("%s: %s after an 84%% drop, want regressed (p %.3f, n=%d+%d)", x.Size(), x.Verdict, x.P, x.Base.N, x.Cur.N)
		}
	}
	var out bytes.Buffer
	if err := WriteRegression(&out, r, FormatText); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "baseline of am64x: nightly runs 1–10, 10 runs, 20 samples") {
		t.Errorf("text output does not say what the baseline was:\n%s", out.String())
	}
}

// TestRegressWindowCurrentSegment: a window that spans a step is cut to the runs since it, so a run at the new
// level is unchanged against it and the verdict says where the window was cut.
func TestRegressWindowCurrentSegment(t *testing.T) {
	var base []store.Measurement
	var runs []int64
	for run := int64(11); run <= 20; run++ {
		level := 1.0
		if run >= 16 {
			level = 0.5
		}
		base = append(base, nightPoints(run, level, 3)...)
		runs = append(runs, run)
	}
	opts := RegressOptions{Baselines: map[string]BaselineWindow{"am64x": {Label: "nightly", Runs: runs}}}
	r := Regress(base, nightPoints(21, 0.5, 3), nil, nil, opts)
	for _, x := range r.Rows {
		if x.Verdict != VerdictUnchanged {
			t.Errorf("%s: %s at the new level, want unchanged against the current segment", x.Size(), x.Verdict)
		}
		if got, want := x.Baseline.String(), "nightly runs 16–20, 5 runs, 15 samples (the window's 5 runs since the change at run 16, −50.0%)"; got != want {
			t.Errorf("baseline = %q, want %q", got, want)
		}
		if x.Baseline.Window != 10 || x.Baseline.Since != 16 {
			t.Errorf("baseline %+v, want a window of 10 cut at run 16", *x.Baseline)
		}
	}
	// --confirm re-judges against the same segment: a re-measure at the new level is transient
	r = Regress(base, nightPoints(21, 0.3, 3), nil, nil, opts)
	r.Confirm(base, nightPoints(22, 0.5, 3), nil, opts)
	for _, x := range r.Rows {
		if x.Verdict != VerdictTransient {
			t.Errorf("%s: %s after a re-measure at the current level, want transient", x.Size(), x.Verdict)
		}
	}
}

// TestRegressInvalidBaselineBoard: a board whose baseline runs were all invalid is a JUnit error and counts as
// not judged (exit 4), not as a skip.
func TestRegressInvalidBaselineBoard(t *testing.T) {
	r := Regress(nil, nightPoints(9, 1, 1), nil, nil, RegressOptions{
		NoBaseline:       map[string]string{"am64x": `no run labelled "nightly" with valid points of am64x before run 9`},
		SkippedBaselines: map[string][]string{"am64x": {"run 8: invalid (busy)"}}})
	if !r.HasInvalid() || r.HasRegression() {
		t.Errorf("HasInvalid %v HasRegression %v, want true and false", r.HasInvalid(), r.HasRegression())
	}
	var out bytes.Buffer
	if err := WriteJUnit(&out, r); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, `errors="1"`) || !strings.Contains(s, `type="invalid"`) || strings.Contains(s, "<skipped") {
		t.Errorf("JUnit for a board with only invalid baseline runs:\n%s", s)
	}
}

// TestFactsNameOpenSSLCapabilities: a mask in OPENSSL_ia32cap shows in OpenSSL's CPUINFO line, and both the
// regress notes and a change's facts name it.
func TestFactsNameOpenSSLCapabilities(t *testing.T) {
	on := &protocol.Facts{OpenSSLBuild: "OpenSSL 3.0.19 27 Jan 2026\nCPUINFO: OPENSSL_ia32cap=0xfed83203178bffff:0x18005f42f1bb03a9\n"}
	off := &protocol.Facts{OpenSSLBuild: "OpenSSL 3.0.19 27 Jan 2026\nCPUINFO: OPENSSL_ia32cap=0xfcd83203178bffff:0x0 env:~0x200000000000000\n"}
	r := Regress(nightPoints(1, 1, 5), nightPoints(2, 0.16, 5), map[string]*protocol.Facts{"am64x": on}, map[string]*protocol.Facts{"am64x": off}, RegressOptions{})
	if len(r.Environment) != 1 || !strings.Contains(strings.Join(r.Environment[0].Changes, "; "), "env:~0x200000000000000") {
		t.Errorf("environment changes %+v, want the CPUINFO line with the mask", r.Environment)
	}
	if got := openSSLCPUInfo(&protocol.Facts{OpenSSLBuild: "OpenSSL 1.1.1w"}); got != "" {
		t.Errorf("CPUINFO of a build text without it = %q", got)
	}
}
