package report

import (
	"bytes"
	"encoding/xml"
	"reflect"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/internal/golden"
)

// row finds the verdict row of a series.
func row(t *testing.T, r *Regression, mode, alg string, size int) RegressRow {
	t.Helper()
	for _, x := range r.Rows {
		if x.Mode == mode && x.Algorithm == alg && x.BlockSize == size {
			return x
		}
	}
	t.Fatalf("no row for %s %s %d", mode, alg, size)
	return RegressRow{}
}

func TestRegressDrop(t *testing.T) {
	cur := current(5, map[string]float64{"cpu/aes-128-cbc/16384": 0.75}, nil)
	r := Regress(baseline(), cur, facts(am64xFacts("6.1.80-ti", "cbc-aes-sa2ul")), facts(am64xFacts("6.6.32-ti", "")), RegressOptions{})
	if !r.HasRegression() {
		t.Fatal("HasRegression() = false, want true for a 25% drop")
	}
	x := row(t, r, "cpu", "aes-128-cbc", 16384)
	if x.Verdict != VerdictRegressed || x.P >= 0.05 {
		t.Errorf("verdict = %q p = %v, want regressed with p < 0.05", x.Verdict, x.P)
	}
	if got, want := failureMsg(x), "aes-128-cbc 16384 B cpu: 120.5 MB/s → 90.56 MB/s (−24.9%), p=0.008 n=5+5"; got != want {
		t.Errorf("failure message = %q, want %q", got, want)
	}
	if got, want := r.Count(VerdictRegressed), 1; got != want {
		t.Errorf("regressed rows = %d, want %d", got, want)
	}
	if got, want := r.Count(VerdictUnchanged), len(r.Rows)-1; got != want {
		t.Errorf("unchanged rows = %d, want %d", got, want)
	}
	if len(r.Environment) != 1 {
		t.Fatalf("environment = %v, want one board", r.Environment)
	}
	env := strings.Join(r.Environment[0].Changes, "\n")
	for _, want := range []string{"kernel: 6.1.80-ti → 6.6.32-ti", "driver for aes-128-cbc (cbc(aes)): cbc-aes-sa2ul → cbc-aes-ce"} {
		if !strings.Contains(env, want) {
			t.Errorf("environment changes %q lack %q", env, want)
		}
	}
	var text bytes.Buffer
	if err := WriteRegression(&text, r, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "regressed") || !strings.Contains(text.String(), "−24.9%") {
		t.Errorf("text output does not name the regression:\n%s", text.String())
	}
	for _, format := range []string{"text", "markdown", "csv", "json", "junit"} {
		var b bytes.Buffer
		if err := WriteRegression(&b, r, format); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "regress_drop."+ext(format)+".golden", b.Bytes())
	}
	var suites junitSuites
	var b bytes.Buffer
	if err := WriteJUnit(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b.Bytes(), &suites); err != nil {
		t.Fatalf("JUnit output does not parse: %v", err)
	}
	if got, want := suites.Failures, 1; got != want {
		t.Errorf("JUnit failures = %d, want %d", got, want)
	}
	var failed []string
	for _, s := range suites.Suites {
		for _, c := range s.Cases {
			if c.Failure != nil {
				failed = append(failed, c.Name+": "+c.Failure.Message)
			}
		}
	}
	if len(failed) != 1 || !strings.HasPrefix(failed[0], "cpu/aes-128-cbc/16384: aes-128-cbc 16384 B cpu: 120.5 MB/s → 90.56 MB/s (−24.9%)") {
		t.Errorf("JUnit failures = %q", failed)
	}
}

func TestRegressUnchangedRerun(t *testing.T) {
	f := facts(am64xFacts("6.1.80-ti", "cbc-aes-sa2ul"))
	r := Regress(baseline(), current(5, nil, nil), f, f, RegressOptions{})
	if r.HasRegression() {
		t.Errorf("HasRegression() = true for an unchanged rerun:\n%v", r.summaryLine())
	}
	if got, want := r.Count(VerdictUnchanged), len(r.Rows); got != want {
		t.Errorf("unchanged = %d of %d", got, want)
	}
	if len(r.Environment) != 0 {
		t.Errorf("environment = %v, want none", r.Environment)
	}
	var b bytes.Buffer
	if err := WriteRegression(&b, r, "text"); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "regress_unchanged.txt.golden", b.Bytes())
	b.Reset()
	if err := WriteJUnit(&b, r); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "regress_unchanged.junit.golden", b.Bytes())
}

func TestRegressTooFewSamples(t *testing.T) {
	base := build(10, "nightly", baseStarted, am64xSeries(2, 0, nil, nil))
	cur := build(11, "nightly", curStarted, am64xSeries(2, 3, map[string]float64{"cpu/aes-128-cbc/16384": 0.75}, nil))
	r := Regress(base, cur, nil, nil, RegressOptions{})
	x := row(t, r, "cpu", "aes-128-cbc", 16384)
	if x.Verdict != VerdictUnconfirmed {
		t.Errorf("verdict = %q, want %q", x.Verdict, VerdictUnconfirmed)
	}
	if len(x.Notes) == 0 || x.Notes[0] != "need ≥ 4 samples per side to test significance" {
		t.Errorf("notes = %q, want the too-few-samples warning", x.Notes)
	}
	if !r.HasRegression() {
		t.Error("HasRegression() = false, want true: an unconfirmed regression counts")
	}
	if u := row(t, r, "cpu", "aes-128-cbc", 1024); u.Verdict != VerdictUnchanged {
		t.Errorf("unchanged series verdict = %q", u.Verdict)
	}
	for _, format := range []string{"text", "junit"} {
		var b bytes.Buffer
		if err := WriteRegression(&b, r, format); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "regress_unconfirmed."+ext(format)+".golden", b.Bytes())
	}
}

func TestRegressMissingAndNew(t *testing.T) {
	// devcrypto stopped loading: its points are gone. afalg appeared.
	cur := current(5, nil, map[string]bool{"devcrypto": true})
	extra := build(11, "nightly", curStarted, []series{{board: "am64x", mode: "afalg", alg: "aes-128-cbc", op: "encrypt",
		size: 16384, values: jitter(150e6, 5, 0), cpu: 40}})
	r := Regress(baseline(), append(cur, extra...), nil, nil, RegressOptions{Threshold: 0.10})
	if !r.HasRegression() {
		t.Fatal("HasRegression() = false with devcrypto missing")
	}
	if got, want := r.Count(VerdictMissing), 5; got != want {
		t.Errorf("missing = %d, want %d", got, want)
	}
	if got, want := r.Count(VerdictNew), 1; got != want {
		t.Errorf("new = %d, want %d", got, want)
	}
	for _, format := range []string{"text", "markdown", "csv", "json", "junit"} {
		var b bytes.Buffer
		if err := WriteRegression(&b, r, format); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "regress_missing."+ext(format)+".golden", b.Bytes())
	}
}

func TestRegressFailedPointsAreMissing(t *testing.T) {
	cur := current(5, nil, nil)
	for i := range cur {
		if cur[i].Mode == "devcrypto" && cur[i].Algorithm == "sha256" {
			cur[i].Failed, cur[i].Error = true, "engine devcrypto fell back to software"
		}
	}
	cur[0].Failed = true // one failed point among a series' good ones is excluded, not fatal
	r := Regress(baseline(), cur, nil, nil, RegressOptions{})
	x := row(t, r, "devcrypto", "sha256", 8192)
	if x.Verdict != VerdictMissing {
		t.Errorf("verdict = %q, want missing when every point failed", x.Verdict)
	}
	if got, want := failureMsg(x), "sha256 8192 B devcrypto: 141.9 MB/s → missing (all 5 points failed: engine devcrypto fell back to software)"; got != want {
		t.Errorf("failure message = %q, want %q", got, want)
	}
	first := row(t, r, cur[0].Mode, cur[0].Algorithm, cur[0].BlockSize)
	if first.Verdict != VerdictUnchanged || first.Cur.N != 4 || len(first.Notes) == 0 {
		t.Errorf("series with one failed point: verdict %q n=%d notes %q", first.Verdict, first.Cur.N, first.Notes)
	}
}

func TestRegressS00AgainstItself(t *testing.T) {
	cur := s00()
	for i := range cur {
		cur[i].RunID = 2
	}
	r := Regress(s00(), cur, nil, nil, RegressOptions{})
	if r.HasRegression() {
		t.Errorf("S00 against itself regressed: %s", r.summaryLine())
	}
	x := row(t, r, "devcrypto", "aes-256-cbc", 8192)
	if x.Verdict != VerdictUnchanged || len(x.Notes) != 2 {
		t.Errorf("verdict %q notes %q, want unchanged with the CPU-timed and too-few-samples notes", x.Verdict, x.Notes)
	}
}

// TestRegressNoBaseline: a board of the run without a baseline is not judged (its points are neither "new" nor
// anything else), and every format lists it as "no baseline" with the reason: a note in text and Markdown, a line
// in CSV, no_baseline in JSON, a skipped test case in JUnit. The exit code follows the judged boards only.
func TestRegressNoBaseline(t *testing.T) {
	other := build(12, "", curStarted, []series{{board: "am335x", mode: "cpu", alg: "aes-128-cbc", op: "encrypt",
		size: 16384, values: jitter(20e6, 5, 0), cpu: 99}})
	why := `no run labelled "nightly" with valid points of am335x before run 12`
	r := Regress(baseline(), append(current(5, nil, nil), other...), nil, nil,
		RegressOptions{NoBaseline: map[string]string{"am335x": why}})
	for _, row := range r.Rows {
		if row.Board == "am335x" {
			t.Errorf("am335x was judged: %+v", row)
		}
	}
	if want := []NoBaseline{{Board: "am335x", Reason: why}}; !reflect.DeepEqual(r.NoBaseline, want) {
		t.Errorf("NoBaseline = %+v, want %+v", r.NoBaseline, want)
	}
	if r.HasRegression() || r.Count(VerdictNew) != 0 {
		t.Errorf("HasRegression() = %v, %d new; want false, 0", r.HasRegression(), r.Count(VerdictNew))
	}
	for _, format := range []string{"text", "markdown", "csv", "json", "junit"} {
		var b bytes.Buffer
		if err := WriteRegression(&b, r, format); err != nil {
			t.Fatal(err)
		}
		if listed := strings.Contains(b.String(), "no baseline") || strings.Contains(b.String(), `"no_baseline"`); !listed ||
			!strings.Contains(b.String(), "am335x") {
			t.Errorf("%s does not list am335x as without baseline:\n%s", format, b.String())
		}
		golden.Check(t, "regress_no_baseline."+ext(format)+".golden", b.Bytes())
	}
	var suites junitSuites
	var b bytes.Buffer
	if err := WriteJUnit(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b.Bytes(), &suites); err != nil {
		t.Fatalf("JUnit output does not parse: %v", err)
	}
	last := suites.Suites[len(suites.Suites)-1]
	if last.Name != "am335x" || last.Skipped != 1 || len(last.Cases) != 1 || last.Cases[0].Skipped == nil ||
		last.Cases[0].Skipped.Message != why {
		t.Errorf("JUnit suite for am335x = %+v, want one skipped case saying why", last)
	}
}

// TestRegressRefusesImpossibleOptions: a threshold or alpha no check can have is said in the notes, never
// replaced by the default in silence; 0 means "not set".
func TestRegressRefusesImpossibleOptions(t *testing.T) {
	for _, o := range []RegressOptions{{Threshold: -0.1}, {Alpha: -1}, {Threshold: 1.5}, {Alpha: 0.9}} {
		r := Regress(nil, nil, nil, nil, o)
		if len(r.Notes) == 0 || !strings.Contains(strings.Join(r.Notes, "\n"), "the default") {
			t.Errorf("Regress(%+v): notes %q, want the refused value named", o, r.Notes)
		}
	}
	if r := Regress(nil, nil, nil, nil, RegressOptions{}); r.Threshold != DefaultThreshold || r.Alpha != DefaultAlpha || len(r.Notes) != 0 {
		t.Errorf("Regress with unset options: threshold %v alpha %v notes %q, want the defaults and no note", r.Threshold, r.Alpha, r.Notes)
	}
}

func failureMsg(x RegressRow) string {
	msg, _ := x.failureMessage("MB/s")
	return msg
}

// TestJUnitFailureSaysEachNoteOnce: a note the failure's message carries (a missing series' cause) is not
// repeated in its body.
func TestJUnitFailureSaysEachNoteOnce(t *testing.T) {
	cur := current(5, nil, nil)
	for i := range cur {
		if cur[i].Mode == "devcrypto" && cur[i].Algorithm == "sha256" {
			cur[i].Failed, cur[i].Error = true, "engine devcrypto fell back to software"
		}
	}
	r := Regress(baseline(), cur, nil, nil, RegressOptions{})
	var b bytes.Buffer
	if err := WriteJUnit(&b, r); err != nil {
		t.Fatal(err)
	}
	var suites junitSuites
	if err := xml.Unmarshal(b.Bytes(), &suites); err != nil {
		t.Fatalf("JUnit output does not parse: %v", err)
	}
	failures := 0
	for _, s := range suites.Suites {
		for _, c := range s.Cases {
			if c.Failure == nil {
				continue
			}
			failures++
			if n := strings.Count(c.Failure.Text, "engine devcrypto fell back to software"); n != 1 {
				t.Errorf("%s: failure body says its note %d times, want once:\n%s", c.Name, n, c.Failure.Text)
			}
		}
	}
	if failures == 0 {
		t.Fatalf("no failure in the JUnit output:\n%s", b.String())
	}
}
