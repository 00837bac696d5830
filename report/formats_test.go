package report

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// writers renders each view in a given format, over the package's fixtures.
func writers(t *testing.T) map[View]func(w io.Writer, format string) error {
	t.Helper()
	cmp, err := Compare(s00(), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reg := Regress(baseline(), current(5, nil, nil), nil, nil, RegressOptions{})
	fx := htmlFixture()
	ms := s00()
	var pts []ImportedPoint
	for _, m := range ms {
		pts = append(pts, ImportedPoint{File: "s00.txt", Point: m.Point})
	}
	return map[View]func(io.Writer, string) error{
		ViewCompare: func(w io.Writer, f string) error { return WriteCompare(w, cmp, f) },
		ViewRegress: func(w io.Writer, f string) error { return WriteRegression(w, reg, f) },
		ViewRuns:    func(w io.Writer, f string) error { return WriteRuns(w, fx.Runs, f) },
		ViewResults: func(w io.Writer, f string) error { return WriteResults(w, ms, f) },
		ViewHistory: func(w io.Writer, f string) error { return WriteHistory(w, ms, fx.Runs, fx.BoardRuns, f) },
		ViewShow:    func(w io.Writer, f string) error { return WriteRunDetail(w, fx.Runs[2], fx.BoardRuns[2:], nil, f) },
		ViewRun:     func(w io.Writer, f string) error { return WriteSweep(w, ms, DefaultUnit, f, Layout{}) },
		ViewImport:  func(w io.Writer, f string) error { return WriteImport(w, "am335x", pts, f) },
		ViewChanges: func(w io.Writer, f string) error { return WriteChanges(w, &ChangeReport{}, f) },
		ViewBoards:  func(w io.Writer, f string) error { return WriteBoards(w, nil, nil, f) },
	}
}

// TestEveryViewRendersExactlyItsFormats: what a view lists (and so what the command line offers) renders, and
// anything else is refused with the list, before a byte is written.
func TestEveryViewRendersExactlyItsFormats(t *testing.T) {
	all := []string{FormatText, FormatMarkdown, FormatCSV, FormatJSON, FormatHTML, FormatJUnit, "xml", "yaml", ""}
	for view, write := range writers(t) {
		offered := view.Formats()
		if len(offered) == 0 {
			t.Errorf("%s offers no format", view)
		}
		for _, f := range all {
			canon, cerr := view.CheckFormat(f)
			var b bytes.Buffer
			err := write(&b, f)
			switch {
			case cerr == nil && err != nil:
				t.Errorf("%s offers %q (as %q) but rendering it failed: %v", view, f, canon, err)
			case cerr == nil && b.Len() == 0:
				t.Errorf("%s in %q wrote nothing", view, f)
			case cerr != nil && err == nil:
				t.Errorf("%s does not offer %q but rendered it", view, f)
			case cerr != nil && b.Len() > 0:
				t.Errorf("%s wrote %d bytes in the refused format %q", view, b.Len(), f)
			case cerr != nil && !strings.Contains(err.Error(), strings.Join(offered[:len(offered)-1], ", ")):
				t.Errorf("%s refusing %q does not list its formats: %v", view, f, err)
			}
		}
	}
}

func TestCheckFormatAliases(t *testing.T) {
	for _, tc := range []struct {
		view      View
		in, canon string
	}{
		{ViewRuns, "table", FormatText},
		{ViewResults, "TXT", FormatText},
		{ViewCompare, "md", FormatMarkdown},
		{ViewRegress, "xml", FormatJUnit},
		{ViewShow, "", FormatText},
	} {
		if got, err := tc.view.CheckFormat(tc.in); err != nil || got != tc.canon {
			t.Errorf("%s.CheckFormat(%q) = %q, %v; want %q", tc.view, tc.in, got, err, tc.canon)
		}
	}
	if _, err := ViewCompare.CheckFormat("xml"); err == nil {
		t.Error("compare accepted xml, which only regress offers (as junit)")
	}
}

// TestWriteRunDetailJSON: fleet show --format json has the run's fields, each board's part and the raw output.
func TestWriteRunDetailJSON(t *testing.T) {
	fx := htmlFixture()
	raws := []store.RawOutput{{RunID: fx.Runs[2].ID, Board: fx.BoardRuns[2].Board, Raw: protocol.Raw{ID: 1,
		Command: []string{"openssl", "speed", "-elapsed", "-evp", "aes-128-cbc"}, Stdout: "+DT:aes-128-cbc:3:16\n"}}}
	var b bytes.Buffer
	if err := WriteRunDetail(&b, fx.Runs[2], fx.BoardRuns[2:], raws, FormatJSON); err != nil {
		t.Fatal(err)
	}
	var got struct {
		ID        int64 `json:"id"`
		Status    string
		BoardRuns []struct {
			Board string
			Facts map[string]any
			Skips []protocol.Skip
		} `json:"board_runs"`
		Raw []struct {
			Board   string
			Command []string
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	if got.ID != fx.Runs[2].ID || len(got.BoardRuns) != len(fx.BoardRuns[2:]) || len(got.Raw) != 1 {
		t.Errorf("run %d with %d boards and %d raws, want run %d, %d boards, 1 raw:\n%s", got.ID, len(got.BoardRuns),
			len(got.Raw), fx.Runs[2].ID, len(fx.BoardRuns[2:]), b.String())
	}
	if len(got.BoardRuns) > 0 && got.BoardRuns[0].Facts == nil {
		t.Errorf("board %s has no facts:\n%s", got.BoardRuns[0].Board, b.String())
	}
}
