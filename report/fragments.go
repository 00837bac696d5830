package report

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/fleetlab/fleet/store"
)

// The functions of this file give a server that lays out its own pages (fleet serve) the same tables and
// charts as WriteHTML, as fragments. Every stored string in them is escaped here, which is what makes the
// conversion to template.HTML safe: nothing stored reaches the page as markup.

// StyleSheet is the CSS the fragments are drawn with (the tables' and charts' classes), without a <style> tag.
func StyleSheet() string { return pageCSS }

// Links says where a fragment's tables link: SeriesHref, when set, is the page of a series' history, linked
// from each compare and regress row (nil: no links, as in the self-contained report).
type Links struct {
	SeriesHref func(SampleKey) string
}

// fragment runs a writer into a string and marks it as HTML.
func fragment(write func(ew *errWriter)) template.HTML { return linkedFragment(Links{}, write) }

func linkedFragment(l Links, write func(ew *errWriter)) template.HTML {
	var b strings.Builder
	ew := &errWriter{w: &b, seriesHref: l.SeriesHref}
	write(ew)
	return template.HTML(b.String()) // escaped by the writers; a strings.Builder never fails
}

// ComparisonHTML is the comparison as WriteHTML draws it: per algorithm its throughput-versus-block-size chart
// (crossovers marked), then the per-board tables, the board-against-board table at the largest size and the
// CPU % bars.
func ComparisonHTML(c *Comparison, l Links) template.HTML {
	return linkedFragment(l, func(ew *errWriter) {
		_ = writeComparisonHTML(ew, c, 0) // size 0 (the largest per algorithm) cannot be missing
	})
}

// RegressionHTML is the verdict table of a regression with its environment changes and notes.
func RegressionHTML(r *Regression, l Links) template.HTML {
	return linkedFragment(l, func(ew *errWriter) { writeDocumentHTML(ew, r.document()) })
}

// BoardHTML is one board's part of a run: its facts (kernel, OpenSSL, CPU, drivers…) and its skips with reasons,
// folded (writeBoardFoldedHTML): the headline facts visible, the rest in <details>.
func BoardHTML(br store.BoardRun) template.HTML {
	return fragment(func(ew *errWriter) {
		for _, n := range emulationNotes([]store.BoardRun{br}) {
			ew.printf("<p class=\"warning\">%s</p>\n", template.HTMLEscapeString(n))
		}
		writeBoardFoldedHTML(ew, br)
	})
}

// HistoryHTMLOptions says how HistoryHTML draws: the throughput unit (DefaultUnit when empty), where a point
// links (nil: nowhere), the change points to mark (SeriesChanges of Changes, oldest first), whether x is the
// runs' start time (else the runs in order) and the baseline bands to draw (HistoryBand).
type HistoryHTMLOptions struct {
	Unit    string
	RunHref func(run int64) string
	Changes []Change
	Time    bool
	Bands   []HistoryBand
}

// HistoryHTML is the chart of a series over runs (median and min-max of each run, points linking to their runs,
// change points as numbered dashed lines between the runs on either side), the list of the changes (the runs,
// the level before and after, what changed on the board) and the history table of WriteHistory. Empty when
// there are no points.
func HistoryHTML(title string, ms []store.Measurement, runs []store.Run, boards []store.BoardRun, opts HistoryHTMLOptions) (template.HTML, error) {
	unit := DefaultUnit
	if opts.Unit != "" {
		var err error
		if unit, err = canonicalUnit(opts.Unit); err != nil {
			return "", fmt.Errorf("history: %w", err)
		}
	}
	points := historyPoints(ms)
	runX := historyX(points, opts.Time)
	chart, ok := historyChartOn(title, points, unit, opts.RunHref, runX)
	if !ok {
		return "", nil
	}
	markChanges(&chart, runX, opts.Changes)
	chart.Bands = historyBands(points, unit, runX, opts.Bands)
	return fragment(func(ew *errWriter) {
		ew.printf("%s", chart.svg())
		writeHistoryChanges(ew, opts.Changes, unit, opts.RunHref, false)
		writeDocumentHTML(ew, historyDocument(History(ms, runs, boards)))
	}), nil
}

// RunStatus is a run's status as the listings show it: a run still marked running is "incomplete" (going on
// in another process, or its controller died).
func RunStatus(r store.Run) string { return runStatus(r) }

// writeDocumentHTML draws a document's tables and notes.
func writeDocumentHTML(ew *errWriter, d document) {
	for _, t := range d.Tables {
		writeTableHTML(ew, t)
	}
	if len(d.Notes) > 0 {
		ew.printf("<ul class=\"notes\">\n")
		for _, n := range d.Notes {
			ew.printf("<li>%s</li>\n", template.HTMLEscapeString(n))
		}
		ew.printf("</ul>\n")
	}
}
