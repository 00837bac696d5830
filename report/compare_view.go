package report

import (
	"errors"
	"fmt"
	"html/template"
	"io"
	"slices"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// CompareView is what every front end of a comparison (fleet compare, the dashboard's compare and run pages,
// /api/compare) shows for one selection: the sweep comparison of the points of the openssl modes, mode ssh's
// own table, or both. A nil part is not shown. Building it in one place is what keeps the CLI and the dashboard
// from drawing ssh points as an openssl table (a 67108864 B row of "aes128-ctr").
type CompareView struct {
	Sweep *Comparison
	SSH   *SSHComparison
}

// ErrOneTable: a machine format (csv, json) holds one table, and the selection has mode ssh points and others.
var ErrOneTable = errors.New("holds one table: the selection has mode ssh points and others; choose with --modes ssh or --modes without ssh")

// NewCompareView divides ms between the sweep comparison and mode ssh's table and builds both: by opts.Modes when
// given (ssh selects the SSH table, the other modes the sweep's), else by what there is. raw are the raw cipher
// points the SSH table sets its points against (store.DB.RawCipherPoints). format is the one the view will be
// written in ("" or html: any number of tables); csv and json with both kinds wrap ErrOneTable. With nothing
// to show, the error wraps ErrNoMeasurements.
func NewCompareView(ms, raw []store.Measurement, opts CompareOptions, format string) (*CompareView, error) {
	format, _ = ViewCompare.CheckFormat(format) // an unknown one is refused when written
	others, ssh := SplitSSH(ms)
	wantOthers, wantSSH := len(others) > 0, len(ssh) > 0
	if len(opts.Modes) > 0 {
		wantSSH = slices.Contains(opts.Modes, protocol.ModeSSH)
		wantOthers = slices.ContainsFunc(opts.Modes, func(m string) bool { return m != protocol.ModeSSH })
		opts.Modes = slices.DeleteFunc(slices.Clone(opts.Modes), func(m string) bool { return m == protocol.ModeSSH })
	}
	if wantSSH && wantOthers && len(ssh) > 0 && len(others) > 0 && (format == FormatCSV || format == FormatJSON) {
		return nil, fmt.Errorf("compare: --format %s %w", format, ErrOneTable)
	}
	showSSH := wantSSH && (len(ssh) > 0 || !wantOthers)
	showOthers := wantOthers && (len(others) > 0 || !showSSH)
	if !showSSH && !showOthers {
		showOthers = true // Compare says there is nothing
	}
	v := &CompareView{}
	var err error
	if showOthers {
		if v.Sweep, err = Compare(others, opts); err != nil {
			return nil, err
		}
	}
	if showSSH {
		if v.SSH, err = CompareSSH(ssh, raw, opts); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// WriteCompareView prints the view: the sweep comparison in layout, then, after a blank line, the SSH table.
func WriteCompareView(w io.Writer, v *CompareView, format string, layout Layout) error {
	if f, _ := ViewCompare.CheckFormat(format); f == FormatHTML {
		// One page: the sweep's charts and tables, then the SSH table, as fleet report draws them.
		if err := WriteHTML(w, HTMLReport{Title: "fleet compare", Comparison: v.Sweep, SSH: v.SSH, Size: layout.Size}); err != nil {
			return fmt.Errorf("write comparison: %w", err)
		}
		return nil
	}
	if v.Sweep != nil {
		if err := WriteCompareLayout(w, v.Sweep, format, layout); err != nil {
			return err
		}
		if v.SSH != nil {
			if _, err := fmt.Fprintln(w); err != nil {
				return fmt.Errorf("write comparison: %w", err)
			}
		}
	}
	if v.SSH != nil {
		return WriteSSH(w, v.SSH, format)
	}
	return nil
}

// writeSSHHTML draws mode ssh's table as every HTML page shows it: in full (the transfer size, controller CPU and
// negotiated cipher as columns), with its notes.
func writeSSHHTML(ew *errWriter, c *SSHComparison) {
	writeDocumentHTML(ew, c.document(true))
}

// CompareViewHTML is the view as the dashboard draws it: ComparisonHTML, then mode ssh's table in full (the
// transfer size, controller CPU and negotiated cipher as columns).
func CompareViewHTML(v *CompareView, l Links) template.HTML {
	var out template.HTML
	if v.Sweep != nil {
		out = ComparisonHTML(v.Sweep, l)
	}
	if v.SSH != nil {
		out += linkedFragment(l, func(ew *errWriter) {
			ew.printf("<h3>mode ssh</h3>\n")
			writeSSHHTML(ew, v.SSH)
		})
	}
	return out
}
