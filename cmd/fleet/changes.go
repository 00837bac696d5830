package main

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// defaultMaxRuns bounds the runs per board a change search reads: more than two years of nightly runs.
const defaultMaxRuns = 1000

func changesCommand() *cli.Command {
	return &cli.Command{
		Name:  "changes",
		Usage: "change points over each series' history: when it stepped, by how much, and what changed on the board",
		Description: `For every stored series (board, mode, algorithm, op, key bits, block size, threads) each run is one sample
(the median of its repeats); Student's t-test splits of the runs' logarithms, and arcs (the runs of a pulse
against those around it, both edges cut at once), find the runs where the level changed: steps, pulses (down and
back, from 3 runs), several in one series (α 0.01, corrected for the splits and arcs tried; computed, not sampled:
the same history always gives the same bytes).
Steps smaller than --min-change are merged away. A history of fewer than 16 runs keeps a split that steps by at
least --min-change up to 10 × α, so three runs on each side of a clear step are enough.
Each change names the first run after it, the medians before and after, the step (the median ratio of a run
after to a run before, which --min-change is held to), its p-value, and
the board facts that differ between the runs on either side (kernel, OpenSSL, governor, the driver serving
the algorithm). A change needs 3 runs on each side: one odd night is never a change.

   fleet changes                                         every series, every change of 5% or more
   fleet changes --boards am64x --modes afalg --format json
   fleet changes --label nightly --since 7d --fail-on-drop 5%      exit 1 on a drop that started this week

--since DATE|RUN keeps the changes that start at or after it (2026-01-31, 2026-01-31T02:00, 7d, 36h, or a run
id); the search still reads the history before it. Exit 1 with --fail-on-drop when such a drop is found.

Invalid points (a busy, throttled board: fleet show) are never judged. What was left out is said under the
changes, per board: series with too few runs, series whose runs were all invalid or failed (with the causes,
e.g. "background CPU 60–90 %", and what to do), runs and points left out of the series searched. A step that
shows only with the invalid points counted is listed as "not judged", never as a change, and --fail-on-drop
ignores it. --format json is an object: {"changes", "not_judged", "series", "searched", "left_out", "notes"}.`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "boards", Aliases: []string{"b"}, Usage: "only these `BOARDS`"},
			&cli.StringSliceFlag{Name: "tag", Aliases: []string{"t"}, Usage: "only the inventory's boards carrying `TAG`"},
			&cli.StringSliceFlag{Name: "modes", Aliases: []string{"m"}, Usage: "only these `MODES`"},
			&cli.StringSliceFlag{Name: "algorithms", Aliases: []string{"a"}, Usage: "only these `ALGS`"},
			&cli.StringSliceFlag{Name: "sizes", Usage: "only these block `SIZES` in bytes (0: asymmetric)"},
			&cli.StringFlag{Name: "label", Aliases: []string{"l"}, Usage: "only runs labelled `L`"},
			&cli.StringFlag{Name: "since", Usage: "only changes starting at or after `DATE|RUN` (2026-01-31, 7d, 36h, a run id)"},
			&cli.StringFlag{Name: "min-change", Value: "5%", Usage: "smallest step reported, `PCT`"},
			&cli.StringFlag{Name: "fail-on-drop", Usage: "exit 1 when a drop of at least `PCT` starts in the window"},
			&cli.IntFlag{Name: "max-runs", Value: defaultMaxRuns, Usage: "read at most the newest `N` runs of each board"},
			formatFlag(report.ViewChanges),
			metricFlag(),
		},
		Action: changesAction,
	}
}

// changesFlags are the validated flags of fleet changes.
type changesFlags struct {
	filter     store.HistoryFilter
	opts       report.ChangeOptions
	since      string
	failOnDrop float64 // 0: off
	format     string
}

func changesAction(c *cli.Context) error {
	f, err := parseChangesFlags(c)
	if err != nil {
		return err
	}
	db, err := openExistingDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	if f.opts.Since, err = resolveSince(c, db, f.since, time.Now()); err != nil {
		return err
	}
	h, err := db.SeriesHistories(c.Context, f.filter)
	if err != nil {
		return err
	}
	if len(h.Series) == 0 {
		return usageErr("changes: no stored points match the selection in %s (fleet runs lists what is stored)", dbShown(c))
	}
	r := report.Changes(h, f.opts)
	if err := report.WriteChanges(c.App.Writer, r, f.format); err != nil {
		return err
	}
	if f.failOnDrop > 0 {
		if drops := r.Drops(f.failOnDrop); len(drops) > 0 {
			fmt.Fprintf(c.App.ErrWriter, "fleet changes: %d %s of at least %s\n", len(drops), worseningWord(f.opts.Metric),
				formatPercent(f.failOnDrop))
			return errRegression
		}
	}
	return nil
}

func parseChangesFlags(c *cli.Context) (changesFlags, error) {
	f := changesFlags{since: c.String("since")}
	var err error
	if f.format, err = report.ViewChanges.CheckFormat(c.String("format")); err != nil {
		return f, usageErr("--format: %w", err)
	}
	boards := splitList(c.StringSlice("boards"))
	for _, b := range boards {
		if err := inventory.CheckBoardName(b); err != nil {
			return f, usageErr("--boards: %w", err)
		}
	}
	if tags := splitList(c.StringSlice("tag")); len(tags) > 0 {
		inv, err := inventory.LoadOrDefault(globalString(c, "inventory"), inventoryExplicit(c))
		if err != nil {
			return f, usageErr("--tag: %w", err)
		}
		sel, err := inv.Select(nil, tags, false)
		if err != nil {
			return f, usageErr("--tag: %w", err)
		}
		for _, b := range sel {
			boards = append(boards, b.Name)
		}
	}
	f.filter.Boards = boards
	for _, m := range splitList(c.StringSlice("modes")) {
		if err := inventory.CheckMode(m); err != nil {
			return f, usageErr("--modes: %w", err)
		}
		f.filter.Modes = append(f.filter.Modes, m)
	}
	f.filter.Algorithms = splitList(c.StringSlice("algorithms"))
	for _, s := range splitList(c.StringSlice("sizes")) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 1<<30 {
			return f, usageErr("--sizes: %q is not a block size in bytes (0 to %d; 0 selects asymmetric operations)", s, 1<<30)
		}
		f.filter.Sizes = append(f.filter.Sizes, n)
	}
	f.filter.Label = c.String("label")
	if f.opts.Metric, err = parseMetric(c); err != nil {
		return f, err
	}
	f.filter.Energy = f.opts.Metric == report.MetricEnergy
	if n := c.Int("max-runs"); n < 2*report.DefaultMinSegment || n > 100000 {
		return f, usageErr("--max-runs %d: want %d to 100000", n, 2*report.DefaultMinSegment)
	}
	f.filter.MaxRuns = c.Int("max-runs")
	f.opts.MaxRuns = f.filter.MaxRuns
	minChange, err := parsePercent(c.String("min-change"))
	if err != nil {
		return f, usageErr("--min-change: %w", err)
	}
	f.opts.MinChange = minChange
	if minChange == 0 {
		f.opts.MinChange = -1 // 0% asks for every significant change, not for the default
	}
	if s := c.String("fail-on-drop"); s != "" {
		if f.failOnDrop, err = parsePercent(s); err != nil || f.failOnDrop == 0 {
			return f, usageErr("--fail-on-drop: %q is not a percentage above 0 and below 100, such as 5%%", s)
		}
		if f.failOnDrop < minChange {
			return f, usageErr("--fail-on-drop %s is below --min-change %s: steps that small are merged away, never reported; lower --min-change",
				formatPercent(f.failOnDrop), formatPercent(minChange))
		}
	}
	return f, nil
}

// resolveSince turns --since into the start of the window: a run id (that run's start), a date or time (UTC), or a
// duration back from now (7d, 36h, 2w). Empty: no window.
func resolveSince(c *cli.Context, db *store.DB, s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if id, err := strconv.ParseInt(s, 10, 64); err == nil {
		if id <= 0 {
			return time.Time{}, usageErr("--since %s: a run id is a positive number", s)
		}
		r, err := db.Run(c.Context, id)
		if err != nil {
			return time.Time{}, usageErr("--since: %w", err)
		}
		return r.Started, nil
	}
	t, err := parseWhen(s, now)
	if err != nil {
		return time.Time{}, usageErr("--since: %w", err)
	}
	return t, nil
}

// parseWhen reads a date (2026-01-31), a date and time (2026-01-31T02:00, RFC 3339), all UTC unless an offset is
// given, or an age back from now: N followed by m, h, d or w (7d).
func parseWhen(s string, now time.Time) (time.Time, error) {
	for _, layout := range []string{"2006-01-02", "2006-01-02T15:04", "2006-01-02 15:04", time.RFC3339} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t, nil
		}
	}
	units := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	if len(s) >= 2 {
		if unit, ok := units[s[len(s)-1]]; ok {
			n, err := strconv.ParseFloat(s[:len(s)-1], 64)
			if err == nil && n > 0 && n <= 100*365 { // NaN fails both
				return now.Add(-time.Duration(n * float64(unit))), nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("%q is neither a run id, a date (2026-01-31, 2026-01-31T02:00) nor an age (7d, 36h, 2w, 90m; up to 100 years)", s)
}

func formatPercent(f float64) string { return strconv.FormatFloat(100*f, 'f', -1, 64) + "%" }

// reportChanges finds the change points of the boards fleet report shows, to mark them on its history charts.
func reportChanges(c *cli.Context, db *store.DB, ms []store.Measurement) ([]report.Change, error) {
	var boards []string
	for _, m := range ms {
		if !slices.Contains(boards, m.Board) {
			boards = append(boards, m.Board)
		}
	}
	h, err := db.SeriesHistories(c.Context, store.HistoryFilter{Boards: boards, MaxRuns: defaultMaxRuns})
	if err != nil {
		return nil, err
	}
	return report.Changes(h, report.ChangeOptions{MaxRuns: defaultMaxRuns}).Marks(), nil
}
