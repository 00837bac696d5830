package report

import (
	"fmt"
	"strings"
)

// View is one rendering the package offers, named after the command that prints it. Each view lists its
// output formats in one place, Formats: its Write function refuses any other, and the command line builds its
// --format flags (usage and validation) from the same list, so the two cannot drift apart.
type View string

// The views, one per command that prints.
const (
	ViewCompare View = "compare" // WriteCompare
	ViewRegress View = "regress" // WriteRegression
	ViewRuns    View = "runs"    // WriteRuns
	ViewResults View = "results" // WriteResults
	ViewHistory View = "history" // WriteHistory
	ViewShow    View = "show"    // WriteRunDetail: one run, its boards, skips and raw output
	ViewRun     View = "run"     // WriteSweep: what fleet run prints at the end
	ViewImport  View = "import"  // WriteImport: the points of fleet import --dry-run
	ViewChanges View = "changes" // WriteChanges: change points over history
	ViewBoards  View = "boards"  // WriteBoards: the inventory's boards and who holds their leases
	// ViewCompareReference is WriteReference: fleet compare --reference, measured boards beside a vendor's table.
	ViewCompareReference View = "compare --reference"
)

// Formats lists the output formats the view offers, its default first. A few aliases are accepted as well
// but not listed: table and txt for text, md for markdown, and xml for regress's junit.
func (v View) Formats() []string {
	switch v {
	case ViewCompare:
		return []string{FormatText, FormatMarkdown, FormatCSV, FormatJSON, FormatHTML}
	case ViewRegress:
		return []string{FormatText, FormatMarkdown, FormatCSV, FormatJSON, FormatJUnit}
	case ViewRuns, ViewResults, ViewHistory, ViewCompareReference:
		return []string{FormatText, FormatMarkdown, FormatCSV, FormatJSON}
	case ViewRun:
		return []string{FormatText, FormatCSV, FormatJSON}
	case ViewChanges:
		return []string{FormatText, FormatMarkdown, FormatJSON}
	case ViewShow, ViewImport, ViewBoards:
		return []string{FormatText, FormatJSON}
	}
	return nil
}

// CheckFormat returns the name of format among the view's Formats (resolving aliases), or an error that lists
// what the view offers.
func (v View) CheckFormat(format string) (string, error) {
	f := normalizeFormat(format)
	if v == ViewRegress && f == "xml" {
		f = FormatJUnit
	}
	for _, offered := range v.Formats() {
		if f == offered {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q for %s (want %s)", format, v, orList(v.Formats()))
}

// orList renders names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Output formats.
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatCSV      = "csv"
	FormatJSON     = "json"
	FormatHTML     = "html"
)

// normalizeFormat maps aliases to the format names; "" is text.
func normalizeFormat(format string) string {
	switch f := strings.ToLower(format); f {
	case "", "table", "txt":
		return FormatText
	case "md":
		return FormatMarkdown
	default:
		return f
	}
}

// FormatJUnit is the JUnit XML form of a regression.
const FormatJUnit = "junit"
