package report

import (
	"fmt"
	"html"
	"slices"

	"github.com/fleetlab/fleet/store"
)

// A board's facts run to forty lines and more (one per /proc/crypto driver, one per probe error): shown whole,
// they bury the four a reader compares across runs. The dashboard shows those four with the status, and folds
// the rest into <details> (no script: the page's policy forbids it), the long lists in folds of their own.

// writeBoardFoldedHTML draws a board run as writeBoardHTML does, its facts folded: the headline facts and the
// kernel-log notes visible, the other facts in one fold, the kernel's driver choices and the probe's errors in
// folds inside it, and the skips in a fold of their own.
func writeBoardFoldedHTML(ew *errWriter, br store.BoardRun) {
	// the facts shown unfolded, and those boardFacts joins into one line that get a fold of their own
	headline := []string{"status", "error", "points", "kernel", "OpenSSL", "CPU", "governor"}
	lists := []string{"drivers", "probe errors"}
	ew.printf("<section class=\"board\">\n<h3>%s (run %d)</h3>\n<dl class=\"facts\">\n", html.EscapeString(br.Board), br.RunID)
	var rest []fact
	for _, f := range boardFacts(br) {
		switch {
		case slices.Contains(headline, f.Name):
			ew.printf("<dt>%s</dt><dd>%s</dd>\n", html.EscapeString(f.Name), html.EscapeString(f.Value))
		case !slices.Contains(lists, f.Name):
			rest = append(rest, f)
		}
	}
	ew.printf("</dl>\n")
	writeKernelHTML(ew, br)
	var drivers, errs []string
	if br.Facts != nil {
		drivers, errs = topDrivers(br.Facts), br.Facts.Errors
	}
	if len(rest)+len(drivers)+len(errs) > 0 {
		summary := fmt.Sprintf("%d more facts", len(rest))
		if len(errs) > 0 {
			summary += fmt.Sprintf(", %s", plural(len(errs), "probe error"))
		}
		ew.printf("<details class=\"facts\"><summary>%s</summary>\n", html.EscapeString(summary))
		if len(rest) > 0 {
			ew.printf("<dl class=\"facts\">\n")
			for _, f := range rest {
				ew.printf("<dt>%s</dt><dd>%s</dd>\n", html.EscapeString(f.Name), html.EscapeString(f.Value))
			}
			ew.printf("</dl>\n")
		}
		writeFoldedList(ew, "drivers", plural(len(drivers), "kernel driver choice")+" (/proc/crypto: algorithm → driver (priority))", drivers)
		writeFoldedList(ew, "errors", plural(len(errs), "probe error"), errs)
		ew.printf("</details>\n")
	}
	if len(br.Skips) > 0 {
		ew.printf("<details class=\"skips\"><summary>%s</summary>\n", html.EscapeString(plural(len(br.Skips), "mode or algorithm")+" not measured"))
		writeTableHTML(ew, skipsTable(br.Skips))
		ew.printf("</details>\n")
	}
	ew.printf("</section>\n")
}

// writeFoldedList draws a list in a fold of its own; nothing when it is empty.
func writeFoldedList(ew *errWriter, class, summary string, items []string) {
	if len(items) == 0 {
		return
	}
	ew.printf("<details class=\"%s\"><summary>%s</summary>\n<ul class=\"facts\">\n", class, html.EscapeString(summary))
	for _, it := range items {
		ew.printf("<li>%s</li>\n", html.EscapeString(it))
	}
	ew.printf("</ul></details>\n")
}
