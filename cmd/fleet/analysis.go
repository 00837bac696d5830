package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/internal/atomicfile"
	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:  "compare",
		Usage: "boards and modes side by side: throughput, CPU %, speedups and the crossover block size",
		Description: `Rows are algorithm × block size, columns (board, mode). Each cell is the median ± spread over repeats
with n. Speedups of each accelerated mode over cpu and soft, and the block size from which the accelerator
beats the CPU path ("never" when it does not). Defaults to the latest run of each board.

Mode ssh's points (fleet run --modes ssh) get a table of their own after the others, or alone with --modes ssh:
per board and SSH cipher, upload and download MB/s with the whole board's CPU %, and the share of the raw cipher's
speed SSH reaches (the board's newest cpu point of the matching openssl algorithm, devcrypto without one:
aes128-ctr ↔ aes-128-ctr, aes128-gcm@openssh.com ↔ aes-128-gcm, chacha20-poly1305@openssh.com ↔ chacha20-poly1305).

The text fits a terminal (100 columns): per board, a table per algorithm with a row per block size and, per
mode, MB/s and CPU % side by side; then, for several boards, the boards against each other per algorithm at
one block size (--at-size, default the largest that two boards measured). --wide prints the full tables; markdown and csv are always full.

   fleet compare --boards am64x,am335x --algorithms aes-128-cbc --unit MB/s
   fleet compare --at-size 1024                    boards against each other at 1024 B
   fleet compare --run 12 --format markdown > wiki.md` + compareReferenceUsage,
		// A single-valued flag given twice is refused (onceFlags): --run 3 --run 6 must not mean 6.
		Flags: onceFlags(append([]cli.Flag{
			&cli.StringFlag{Name: "run", Aliases: []string{"r"}, Value: "latest", Usage: "run `ID`, label, or latest (per board)"},
			&cli.StringSliceFlag{Name: "boards", Aliases: []string{"b"}, Usage: "only these `BOARDS`"},
			modesFlag("only these `MODES`"),
			algorithmsFlag("algorithms", []string{"a"}, "only these `ALGS`"),
			unitFlag(),
			formatFlag(report.ViewCompare),
		}, append(append(layoutFlags(atSize), oldCompareSize()), compareReferenceFlags()...)...)),
		Action: withDB(func(c *cli.Context, db *store.DB) error {
			if c.IsSet("reference") {
				return compareReference(c, db)
			} else if c.IsSet("reference-board") {
				return usageErr("--reference-board goes with --reference LABEL")
			}
			layout, err := layoutFromFlags(c, atSize)
			if err != nil {
				return err
			}
			ms, err := selectRun(c, db, c.String("run"))
			if err != nil {
				return err
			}
			opts := report.CompareOptions{Boards: splitList(c.StringSlice("boards")),
				Modes: splitList(c.StringSlice("modes")), Algorithms: splitList(c.StringSlice("algorithms")), Unit: c.String("unit")}
			raw, err := db.RawCipherPoints(c.Context, ms)
			if err != nil {
				return err
			}
			v, err := report.NewCompareView(ms, raw, opts, c.String("format"))
			if err != nil {
				return usageErr("%w", err)
			}
			return layoutErr(report.WriteCompareView(c.App.Writer, v, c.String("format"), layout), atSize)
		}),
	}
}

// selectRun loads a run's points: "latest" is the latest run of each board.
func selectRun(c *cli.Context, db *store.DB, ref string) ([]store.Measurement, error) {
	ms, err := db.SelectRun(c.Context, ref)
	if errors.Is(err, store.ErrNotFound) {
		return nil, usageErr("%w", err)
	} else if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, usageErr("no points for run %s in %s (fleet runs lists them)", ref, dbShown(c))
	}
	return ms, nil
}

func regressCommand() *cli.Command {
	return &cli.Command{
		Name:  "regress",
		Usage: "judge a run against a baseline: improved, unchanged, regressed, missing (exit 1 on regression)",
		Description: `For each (board, mode, algorithm, size) in the baseline: regressed when worse than --threshold AND
significant (Mann-Whitney U, α 0.05); with fewer than 4 repeats per side significance cannot be tested and
a drop beyond the threshold is "regressed (unconfirmed)" — it still fails the check. A series the baseline
had and the run lacks (say, an accelerator that stopped loading) is "missing" and fails too. Notes name
what changed between the runs' boards: kernel, OpenSSL, governor, the driver serving an algorithm.
Each board is judged against its own baseline (runs with at least one valid point); a board without one is
listed as "no baseline" and not judged, and only when no board has one is it an error. A label's baseline
pools the repeats of its last --baseline-runs valid runs (default 10) before the judged run, one level of
them: the change search of fleet changes runs on them and the judged run together; the runs since its newest
change point are the baseline once 3 of them stand after it ("unchanged against the new level since run 8
(−85.0%: see fleet changes)"), and the 1–2 runs of a step too new for that are left out, so the first three
nights after a step are judged against the level before it. A one-repeat nightly is tested against the
window, not against one night; where the U test cannot reach α with so few samples, a run outside the
baseline's range, beyond the threshold, with Student's prediction test below α is regressed (or improved).
The verdict says what the baseline was ("baseline of am64x: nightly runs 12–21, 10 runs, 30 samples").

   fleet regress --baseline nightly                  latest run vs the last 10 runs labelled nightly, per board
   fleet regress --baseline previous --junit regress.xml
   fleet regress --baseline 41 --run 42 --threshold 10%
   fleet regress --baseline nightly --confirm        measure what regressed again: transient or confirmed

Points judged invalid (a busy, throttled or hot board: see fleet results --format json) are never judged,
either side; a labelled baseline passes over runs without a valid point.

Exit 0 no regression, 1 regression, 3 the run had failed boards, 4 no regression but series not judged because
the run's or the baseline's points were invalid (including: every run the baseline matched was invalid); it says
how many points of which runs, the causes and what to do (fleet run --quiet-wait, [boards.NAME.validity]).
Exit 2 only for a usage error: a bad flag, or a baseline that names nothing stored.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "baseline", Required: true, Usage: "run `ID`, a label (its last --baseline-runs valid runs per board before the judged one), previous, or latest (each board's newest other run)"},
			&cli.IntFlag{Name: "baseline-runs", Value: store.DefaultBaselineRuns, Usage: "a labelled baseline pools the label's last `K` valid runs per board (since the newest change point among them)",
				Action: func(c *cli.Context, k int) error {
					if k < 1 || k > 1000 {
						return usageErr("--baseline-runs %d: want 1 to 1000 runs", k)
					}
					return nil
				}},
			&cli.StringFlag{Name: "run", Aliases: []string{"r"}, Value: "latest", Usage: "run `ID`, label, or latest (per board)"},
			thresholdFlag(),
			alphaFlag(),
			&cli.StringFlag{Name: "junit", Usage: "also write JUnit XML to `FILE`", Action: func(c *cli.Context, path string) error {
				// Known before the database is read, not after the verdicts are printed.
				if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
					return usageErr("--junit %q: its directory does not exist: %v", path, statErr(fi, err))
				}
				return nil
			}},
			formatFlag(report.ViewRegress),
			metricFlag(),
		}, confirmFlags()...),
		Action: regressAction,
	}
}

func regressAction(c *cli.Context) error {
	th, err := parseThreshold(c.String("threshold"))
	if err != nil {
		return err
	}
	if err := checkBaselineRuns(c); err != nil {
		return err
	}
	metric, err := parseMetric(c)
	if err != nil {
		return err
	}
	db, err := openExistingDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	cur, err := selectRun(c, db, c.String("run"))
	if err != nil {
		return err
	}
	in, err := db.ReadRegressionWindow(c.Context, c.String("baseline"), c.Int("baseline-runs"), cur)
	switch {
	case errors.Is(err, store.ErrBaselineInvalid):
		// The baseline exists but the boards' state made every run of it unjudgeable: the verdicts say so
		// (no baseline, invalid) and the exit is 4, not a usage error.
	case errors.Is(err, store.ErrNotFound):
		return usageErr("--baseline: %w", err)
	case err != nil:
		return err
	}
	r, ropts := report.RegressInput(in, cur, report.RegressOptions{Threshold: th, Alpha: c.Float64("alpha"), Metric: metric})
	if c.Bool("confirm") {
		if err := confirmRegressions(c, db, r, in.Base, cur, ropts); err != nil {
			return err
		}
	}
	if err := report.WriteRegression(c.App.Writer, r, c.String("format")); err != nil {
		return usageErr("%w", err)
	}
	if path := c.String("junit"); path != "" {
		if err := atomicfile.Write(path, func(w io.Writer) error { return report.WriteJUnit(w, r) }); err != nil {
			return usageErr("--junit: %w", err)
		}
	}
	if in.FailedBoards > 0 {
		return &exitError{code: exitBoardFailed, err: fmt.Errorf("%d board(s) of the run failed", in.FailedBoards)}
	}
	if r.HasRegression() {
		return errRegression
	}
	if why := r.InvalidReasons(); len(why) > 0 {
		return &exitError{code: exitInvalid, err: errors.New(strings.Join(why, "\n"))}
	}
	return nil
}

// parsePercent reads a percentage ("5%" or "5") as a fraction (0.05): at least 0 and below 100, never NaN.
func parsePercent(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || math.IsNaN(v) || v < 0 || v >= 100 {
		return 0, fmt.Errorf("%q is not a percentage from 0%% to below 100%%, such as 5%%", s)
	}
	return v / 100, nil
}

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "one self-contained HTML file: tables, throughput-vs-block-size charts, CPU %, history, board facts",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "run", Aliases: []string{"r"}, Value: "latest", Usage: "run `ID`, label, or latest (per board)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "report.html", Usage: "write to `FILE` (- for stdout)"},
			algorithmsFlag("history", nil, "history charts for these `ALGS` (default: every algorithm at its largest block size, per board and mode)"),
		},
		Action: withDB(func(c *cli.Context, db *store.DB) error {
			ms, err := selectRun(c, db, c.String("run"))
			if err != nil {
				return err
			}
			data := report.HTMLReport{Title: "fleet report", Measurements: ms, History: map[string][]store.Measurement{}}
			if data.Raw, err = db.RawCipherPoints(c.Context, ms); err != nil { // mode ssh's table sets its points against them
				return err
			}
			byBoard := store.RunsByBoard(ms)
			for _, board := range slices.Sorted(maps.Keys(byBoard)) { // by name: a map's order would change per run
				id := byBoard[board]
				run, err := db.Run(c.Context, id)
				if err != nil {
					return err
				}
				data.Runs = append(data.Runs, run)
				brs, err := db.BoardRuns(c.Context, id)
				if err != nil {
					return err
				}
				for _, br := range brs {
					if br.Board == board {
						data.BoardRuns = append(data.BoardRuns, br)
					}
				}
			}
			if err := checkMeasured(ms, "history", splitList(c.StringSlice("history")), c.String("run")); err != nil {
				return err
			}
			if err := addHistories(c, db, ms, &data, c.StringSlice("history")); err != nil {
				return err
			}
			if data.Changes, err = reportChanges(c, db, ms); err != nil {
				return err
			}
			path := c.String("output")
			if path == "-" {
				return report.WriteHTML(c.App.Writer, data)
			}
			if err := atomicfile.Write(path, func(w io.Writer) error { return report.WriteHTML(w, data) }); err != nil {
				return usageErr("report: %w", err)
			}
			fmt.Fprintf(c.App.ErrWriter, "wrote %s\n", path)
			return nil
		}),
	}
}

// checkMeasured refuses algorithms (of the flag named flag) that the run did not measure: they would draw nothing.
func checkMeasured(ms []store.Measurement, flag string, algs []string, run string) error {
	var measured []string
	for _, m := range ms {
		if !slices.Contains(measured, m.Algorithm) {
			measured = append(measured, m.Algorithm)
		}
	}
	for _, a := range algs {
		if !slices.Contains(measured, a) {
			slices.Sort(measured)
			return usageErr("--%s: run %s has no algorithm %q%s (it has %s)", flag, run, a,
				inventory.DidYouMean(a, measured), strings.Join(measured, ", "))
		}
	}
	return nil
}

// addHistories adds the report's history charts (report.HistoryChartSeries), read in one store call.
func addHistories(c *cli.Context, db *store.DB, ms []store.Measurement, data *report.HTMLReport, algs []string) error {
	hist, err := db.HistoryOfEach(c.Context, report.HistoryChartSeries(ms, splitList(algs)))
	if err != nil {
		return err
	}
	data.AddHistories(hist)
	return nil
}

// checkBaselineRuns refuses --baseline-runs with a baseline that is not a label: one run (an id, a UUID,
// previous) or each board's newest other run (latest) pools no window, so K would be ignored without a word.
func checkBaselineRuns(c *cli.Context) error {
	b := c.String("baseline")
	if !c.IsSet("baseline-runs") {
		return nil
	}
	what := ""
	switch _, err := strconv.ParseInt(b, 10, 64); {
	case err == nil:
		what = "run " + b
	case store.IsRunUUID(b):
		what = "the run " + b
	case b == "previous" || b == "latest":
		what = b
	default:
		return nil
	}
	return usageErr("--baseline-runs applies to a labelled baseline (its last K runs); --baseline %s is %s, "+
		"one run per board: drop --baseline-runs, or give a label", b, what)
}
