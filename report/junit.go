package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// The JUnit XML is written with encoding/xml from these types rather than a library: no well-kept Go
// package writes JUnit for a program's own verdicts (go-junit-report converts `go test` output and keeps its
// types internal), and the format CI servers read is these few elements and attributes, which the goldens
// (testdata/*.junit.golden) pin.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr,omitempty"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr,omitempty"`
	Skipped    int             `xml:"skipped,attr"`
	Properties *junitProps     `xml:"properties,omitempty"`
	Cases      []junitTestCase `xml:"testcase"`
}

type junitProps struct {
	Props []junitProp `xml:"property"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"` // not judged: the run's points were invalid
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit renders a regression as JUnit XML for CI: one testsuite per board, one testcase per series named
// "mode/algorithm/size" (for example "cpu/aes-128-cbc/16384"), and a failure carrying both numbers and the
// change for every regression, unconfirmed regression and missing series. A board without a baseline is a
// suite with one skipped test case "baseline" giving the reason, or an error when every run its baseline matched
// was invalid. A series whose points were all judged invalid
// is an error (the check could not run), not a failure. Environment changes become suite properties; what each
// series was judged against is in its system-out ("baseline: nightly runs 12–21, 10 runs, 30 samples").
func WriteJUnit(w io.Writer, r *Regression) error {
	all := junitSuites{Name: "fleet regress"}
	index := map[string]int{}
	suite := func(board string) *junitSuite { // the board's suite, made on first use
		i, ok := index[board]
		if !ok {
			i = len(all.Suites)
			index[board] = i
			all.Suites = append(all.Suites, junitSuite{Name: board})
		}
		return &all.Suites[i]
	}
	for _, row := range r.Rows {
		s := suite(row.Board)
		tc := junitTestCase{Name: row.caseName(), ClassName: "fleet.regress." + row.Board}
		tc.SystemOut = row.Verdict
		if row.Baseline != nil {
			tc.SystemOut += "\nbaseline: " + row.Baseline.String()
		}
		if row.Regressed() {
			msg, rest := row.failureMessage(r.Unit)
			tc.Failure = &junitFailure{Message: msg, Type: row.Verdict, Text: msg}
			if len(rest) > 0 {
				tc.Failure.Text += "\n" + strings.Join(rest, "\n")
			}
			s.Failures++
			all.Failures++
		}
		if row.Verdict == VerdictInvalid {
			msg := fmt.Sprintf("%s %s %s: not judged, points invalid", algoLabel(row.Algorithm, row.Op, row.Threads),
				row.Size(), row.Mode)
			tc.Error = &junitFailure{Message: msg, Type: "invalid", Text: msg + "\n" + strings.Join(row.Notes, "\n")}
			s.Errors++
			all.Errors++
		}
		s.Cases = append(s.Cases, tc)
		s.Tests++
		all.Tests++
	}
	// A series every baseline point of which was invalid is not judged: an error of type invalid of its own
	// test case, beside the board's judged series (it used to be left out of the JUnit file when another series of
	// the board was judged, so a CI job saw only "unchanged").
	for _, k := range r.BaselineInvalidSeries {
		s := suite(k.Board)
		row := RegressRow{SampleKey: k}
		msg := fmt.Sprintf("%s %s %s: not judged, every baseline point invalid", algoLabel(k.Algorithm, k.Op, k.Threads),
			row.Size(), k.Mode)
		s.Cases = append(s.Cases, junitTestCase{Name: row.caseName(), ClassName: "fleet.regress." + k.Board,
			SystemOut: VerdictInvalid, Error: &junitFailure{Message: msg, Type: "invalid", Text: msg}})
		s.Tests++
		s.Errors++
		all.Tests++
		all.Errors++
	}
	for _, nb := range r.NoBaseline {
		if nb.Invalid { // not judged for the board's state: an error, as an invalid series is, and exit 4
			msg := "not judged, baseline runs invalid: " + nb.Reason
			all.Suites = append(all.Suites, junitSuite{Name: nb.Board, Tests: 1, Errors: 1, Cases: []junitTestCase{{
				Name: "baseline", ClassName: "fleet.regress." + nb.Board, Error: &junitFailure{Message: msg, Type: "invalid", Text: msg},
				SystemOut: VerdictNoBaseline}}})
			all.Tests++
			all.Errors++
			continue
		}
		all.Suites = append(all.Suites, junitSuite{Name: nb.Board, Tests: 1, Skipped: 1, Cases: []junitTestCase{{
			Name: "baseline", ClassName: "fleet.regress." + nb.Board, Skipped: &junitSkipped{Message: nb.Reason},
			SystemOut: VerdictNoBaseline}}})
		all.Tests++
	}
	for _, e := range r.Environment {
		i, ok := index[e.Board]
		if !ok {
			continue
		}
		props := &junitProps{}
		for n, c := range e.Changes {
			props.Props = append(props.Props, junitProp{Name: fmt.Sprintf("environment.changed.%d", n+1), Value: c})
		}
		all.Suites[i].Properties = props
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	return nil
}

// caseName is "cpu/aes-128-cbc/16384", with the operation and threads appended where they are not the defaults,
// and the key size or curve in place of the block size for asymmetric series.
func (r RegressRow) caseName() string {
	size := fmt.Sprint(r.BlockSize)
	if r.Asym() {
		size = strings.ReplaceAll(strings.TrimSuffix(asymSize(r.KeyBits, r.Curve), " bits"), " ", "-")
	}
	parts := []string{r.Mode, r.Algorithm, size}
	switch r.Op {
	case "", "encrypt", "digest":
	default:
		parts = append(parts, r.Op)
	}
	if r.Threads > 1 {
		parts = append(parts, fmt.Sprintf("threads-%d", r.Threads))
	}
	return strings.Join(parts, "/")
}

// failureMessage is "aes-128-cbc 16384 B cpu: 120.5 MB/s → 90.4 MB/s (−25.0%), p=0.008 n=5+5". rest is the
// row's notes the message does not carry, for the failure's body: a note is said once.
func (r RegressRow) failureMessage(unit string) (string, []string) {
	head := fmt.Sprintf("%s %s %s", algoLabel(r.Algorithm, r.Op, r.Threads), r.Size(), r.Mode)
	if r.Verdict == VerdictWrongOutput {
		return head + ": " + r.Notes[0], r.Notes[1:]
	}
	if r.Base == nil {
		return head + ": no baseline", r.Notes
	}
	from := formatThroughput(r.Base.Median, unit, r.Asym())
	if r.Cur == nil {
		msg := fmt.Sprintf("%s: %s → missing", head, from)
		if n := len(r.Notes); n > 0 {
			return msg + " (" + r.Notes[n-1] + ")", r.Notes[:n-1]
		}
		return msg, nil
	}
	msg := fmt.Sprintf("%s: %s → %s (%s), %s", head, from, formatThroughput(r.Cur.Median, unit, r.Asym()),
		formatChange(r.Change), r.comparisonString())
	if r.Verdict == VerdictUnconfirmed {
		msg += ", unconfirmed: " + warnTooFew
	}
	return msg, r.Notes
}
