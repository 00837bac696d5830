package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/store"
)

// prepareFlags are run's flags that prepare each board before its sweep, for valid points.
func prepareFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "quiet-wait", Usage: "before each board's sweep, wait up to `DURATION` for its background CPU to fall below " +
			"the validity limit (0s: do not wait; default: the board's or profile's validity.quiet_wait, else no wait)"},
		&cli.StringFlag{Name: "governor", Usage: "set cpufreq `GOVERNOR` (e.g. performance) for each board's sweep where the agent may, " +
			"and restore the previous one afterwards, also on Ctrl-C or a lost link"},
	}
}

// prepareFromFlags returns the command line's quiet wait (nil: not given) and governor ("": not given).
func prepareFromFlags(c *cli.Context) (*time.Duration, string, error) {
	var wait *time.Duration
	if c.IsSet("quiet-wait") {
		d, err := durationFlag(c, "quiet-wait", 0, inventory.MaxQuietWait, inventory.CheckQuietWait)
		if err != nil {
			return nil, "", err
		}
		wait = &d
	}
	gov := c.String("governor")
	if c.IsSet("governor") {
		if err := inventory.CheckGovernor(gov); err != nil {
			return nil, "", usageErr("--governor: %w", err)
		}
	}
	return wait, gov, nil
}

// printValidity prints each board run's validity verdict under the run's outcomes, when it is not ok: what a
// nightly's reader must see before trusting its numbers.
func printValidity(ctx context.Context, w io.Writer, db *store.DB, runID int64) {
	brs, err := db.BoardRuns(ctx, runID)
	if err != nil {
		return // the outcomes above already said what went wrong
	}
	for _, br := range brs {
		if br.Validity == "" || br.Validity == "ok" {
			continue
		}
		for _, l := range validityLines(br.Board, br.Validity, br.ValidityReasons) {
			fmt.Fprintln(w, l)
		}
	}
}

// validityLines is a board run's verdict for the end of fleet run: on one line when it fits summaryWidth
// columns, else the verdict, then one reason a line under it.
func validityLines(board, verdict string, reasons []string) []string {
	line := fmt.Sprintf("  %-14s %s: %s", board, verdict, strings.Join(reasons, "; "))
	if utf8.RuneCountInString(line) <= summaryWidth || len(reasons) == 0 {
		return []string{line}
	}
	lines := []string{fmt.Sprintf("  %-14s %s:", board, verdict)}
	for _, r := range reasons {
		lines = append(lines, "      "+r)
	}
	return lines
}
