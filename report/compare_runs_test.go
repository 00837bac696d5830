package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// runPoints are n repeats of one series of board in run id, started at day.
func runPoints(board string, id int64, label string, day time.Time, mode, alg string, bps float64) []store.Measurement {
	var ms []store.Measurement
	for r := range 3 {
		ms = append(ms, store.Measurement{RunID: id, RunLabel: label, RunStarted: day, Board: board, Point: protocol.Point{
			Mode: mode, Algorithm: alg, Op: "encrypt", BlockSize: 16384, Threads: 1, Repeat: r, BytesPerSec: bps, WallS: 1,
			UserS: 0.9, CPUPct: 90}})
	}
	return ms
}

// TestCompareNamesRunsAndAbsentBoards: each board's tables are headed with the run and date they come from,
// and a board whose newest run measured other algorithms than asked is named with its run and what it
// measured instead of vanishing. Before, neither was said.
func TestCompareNamesRunsAndAbsentBoards(t *testing.T) {
	d1 := time.Date(2026, 11, 2, 3, 0, 0, 0, time.UTC)
	var ms []store.Measurement
	ms = append(ms, runPoints("am64x", 10, "nightly", d1, "cpu", "aes-128-cbc", 700e6)...)
	ms = append(ms, runPoints("am64x", 10, "nightly", d1, "devcrypto", "aes-128-cbc", 300e6)...)
	ms = append(ms, runPoints("imx6q", 12, "", d1.AddDate(0, 0, 3), "cpu", "sha256", 90e6)...)

	c, err := Compare(ms, CompareOptions{Algorithms: []string{"aes-128-cbc"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Runs) != 1 || c.Runs[0] != (BoardRun{"am64x", 10, "nightly", d1}) {
		t.Errorf("runs = %+v, want am64x run 10 only", c.Runs)
	}
	if len(c.Absent) != 1 || c.Absent[0].Board != "imx6q" || c.Absent[0].Runs[0].Run != 12 ||
		strings.Join(c.Absent[0].Algorithms, ",") != "sha256" {
		t.Errorf("absent = %+v, want imx6q, run 12, sha256", c.Absent)
	}
	var b bytes.Buffer
	if err := WriteCompareLayout(&b, c, FormatText, Layout{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"am64x: run 10 (nightly), 2026-11-02 03:00 UTC\nam64x aes-128-cbc (",
		"imx6q: not shown: its run 12, 2026-11-05 03:00 UTC measured sha256 (modes cpu),\n  none of it in the algorithms aes-128-cbc asked for",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if n := len([]rune(line)); n > TextWidth {
			t.Errorf("line of %d columns: %q", n, line)
		}
	}
	b.Reset()
	if err := WriteCompareLayout(&b, c, FormatMarkdown, Layout{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "runs: am64x run 10 (nightly), 2026-11-02 03:00 UTC") {
		t.Errorf("markdown does not name the run:\n%s", b.String())
	}

	// Nothing left: the error says what each board's run did measure.
	_, err = Compare(ms, CompareOptions{Algorithms: []string{"chacha20-poly1305"}})
	if !errors.Is(err, ErrNoMeasurements) || !strings.Contains(err.Error(), "am64x: not shown: its run 10 (nightly)") ||
		!strings.Contains(err.Error(), "imx6q: not shown: its run 12") {
		t.Errorf("Compare(chacha20-poly1305) = %v, want both boards' runs named", err)
	}
	// A board named that the selection has no point of.
	c, err = Compare(ms, CompareOptions{Boards: []string{"am64x", "am335x"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Absent) != 1 || c.Absent[0].Board != "am335x" || !strings.Contains(c.Warnings[0], "am335x: not shown: the selection has no point of it") {
		t.Errorf("absent %+v, warnings %q; want am335x named", c.Absent, c.Warnings)
	}
}

// TestBoardsTableNamesDifferentRuns: boards set against each other from different runs say which, under the
// table; from one run, the boards' own headings say it and the table does not repeat it.
func TestBoardsTableNamesDifferentRuns(t *testing.T) {
	d := time.Date(2026, 11, 2, 3, 0, 0, 0, time.UTC)
	ms := append(runPoints("am64x", 10, "", d, "cpu", "aes-128-cbc", 700e6), runPoints("imx6q", 12, "", d, "cpu", "aes-128-cbc", 70e6)...)
	c, err := Compare(ms, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCompareLayout(&b, c, FormatText, Layout{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "runs: am64x run 10, 2026-11-02 03:00 UTC; imx6q run 12") {
		t.Errorf("board against board from runs 10 and 12 does not say so:\n%s", b.String())
	}
}
