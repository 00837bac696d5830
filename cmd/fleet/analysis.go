package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"

	"github.com/urfave/cli/v2"

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

   fleet compare --boards am64x,am335x --algorithms aes-128-cbc --unit MB/s
   fleet compare --run 12 --format markdown > wiki.md`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "run", Aliases: []string{"r"}, Value: "latest", Usage: "run `ID`, label, or latest (per board)"},
			&cli.StringSliceFlag{Name: "boards", Aliases: []string{"b"}, Usage: "only these `BOARDS`"},
			modesFlag("only these `MODES`"),
			algorithmsFlag("algorithms", []string{"a"}, "only these `ALGS`"),
			unitFlag(),
			formatFlag(report.ViewCompare),
		},
		Action: withDB(func(c *cli.Context, db *store.DB) error {
			ms, err := selectRun(c, db, c.String("run"))
			if err != nil {
				return err
			}
			cmp, err := report.Compare(ms, report.CompareOptions{Boards: splitList(c.StringSlice("boards")),
				Modes: splitList(c.StringSlice("modes")), Algorithms: splitList(c.StringSlice("algorithms")), Unit: c.String("unit")})
			if err != nil {
				return usageErr("%w", err)
			}
			return report.WriteCompare(c.App.Writer, cmp, c.String("format"))
		}),
	}
}

// selectRun loads a run's points: "latest" is the latest run of each board.
func selectRun(c *cli.Context, db *store.DB, ref string) ([]store.Measurement, error) {
	f := store.Filter{Latest: ref == "latest"}
	if !f.Latest {
		id, err := db.ResolveRun(c.Context, ref)
		if err != nil {
			return nil, usageErr("%w", err)
		}
		f.RunID = id
	}
	ms, err := db.Measurements(c.Context, f)
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, usageErr("no points for run %s in %s (fleet runs lists them)", ref, globalString(c, "db"))
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

   fleet regress --baseline nightly                  latest run vs the last run labelled nightly, per board
   fleet regress --baseline previous --junit regress.xml
   fleet regress --baseline 41 --run 42 --threshold 10%

Exit 0 no regression, 1 regression, 3 the run had failed boards.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "baseline", Required: true, Usage: "run `ID`, a label (its latest run per board), or previous"},
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
		},
		Action: regressAction,
	}
}

func regressAction(c *cli.Context) error {
	th, err := parseThreshold(c.String("threshold"))
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
	curRuns := runsByBoard(cur)
	baseRuns := map[string]int64{}
	switch ref := c.String("baseline"); {
	case ref == "previous":
		for board, id := range curRuns {
			prev, err := db.PreviousRun(c.Context, id, board)
			if err != nil {
				return usageErr("baseline previous for %s: %w", board, err)
			}
			baseRuns[board] = prev
		}
	case isInt(ref):
		id, err := db.ResolveRun(c.Context, ref)
		if err != nil {
			return usageErr("%w", err)
		}
		for board := range curRuns {
			baseRuns[board] = id
		}
	default:
		for board, id := range curRuns {
			byBoard, err := db.RunsForBaseline(c.Context, ref, id)
			if err != nil {
				return usageErr("baseline %q: %w", ref, err)
			}
			if b, ok := byBoard[board]; ok {
				baseRuns[board] = b
			}
		}
	}
	var base []store.Measurement
	baseFacts, curFacts := map[string]*protocol.Facts{}, map[string]*protocol.Facts{}
	failedBoards := 0
	for board, id := range baseRuns {
		if _, ok := curRuns[board]; !ok {
			continue
		}
		ms, err := db.Measurements(c.Context, store.Filter{RunID: id, Board: board})
		if err != nil {
			return err
		}
		base = append(base, ms...)
		if baseFacts[board], _, err = boardFacts(c, db, id, board); err != nil {
			return err
		}
	}
	for board, id := range curRuns {
		var st string
		if curFacts[board], st, err = boardFacts(c, db, id, board); err != nil {
			return err
		}
		if st == "failed" || st == "partial" {
			failedBoards++
		}
	}
	if len(base) == 0 {
		return usageErr("baseline %q has no points for the boards of run %s", c.String("baseline"), c.String("run"))
	}
	r := report.Regress(base, cur, baseFacts, curFacts, report.RegressOptions{Threshold: th, Alpha: c.Float64("alpha")})
	if err := report.WriteRegression(c.App.Writer, r, c.String("format")); err != nil {
		return usageErr("%w", err)
	}
	if path := c.String("junit"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return usageErr("--junit: %w", err)
		}
		werr := report.WriteJUnit(f, r)
		if err := f.Close(); werr == nil {
			werr = err
		}
		if werr != nil {
			return usageErr("--junit %s: %w", path, werr)
		}
	}
	if failedBoards > 0 {
		return &exitError{code: exitBoardFailed, err: fmt.Errorf("%d board(s) of the run failed", failedBoards)}
	}
	if r.HasRegression() {
		return errRegression
	}
	return nil
}

func runsByBoard(ms []store.Measurement) map[string]int64 {
	out := map[string]int64{}
	for _, m := range ms {
		out[m.Board] = m.RunID
	}
	return out
}

func boardFacts(c *cli.Context, db *store.DB, runID int64, board string) (*protocol.Facts, string, error) {
	brs, err := db.BoardRuns(c.Context, runID)
	if err != nil {
		return nil, "", err
	}
	for _, br := range brs {
		if br.Board == board {
			return br.Facts, string(br.Status), nil
		}
	}
	return nil, "", nil
}

func isInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
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
			for board, id := range runsByBoard(ms) {
				run, err := runByID(c, db, id)
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
			if err := addHistories(c, db, ms, data.History, c.StringSlice("history")); err != nil {
				return err
			}
			out := c.App.Writer
			if path := c.String("output"); path != "-" {
				f, err := os.Create(path)
				if err != nil {
					return usageErr("%w", err)
				}
				defer f.Close()
				out = f
				defer fmt.Fprintf(c.App.ErrWriter, "wrote %s\n", path)
			}
			return report.WriteHTML(out, data)
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

// addHistories adds a history chart per (board, mode, algorithm) at the largest block size measured (the size
// where accelerators matter), for the chosen algorithms or all of them; series with one run are left out.
func addHistories(c *cli.Context, db *store.DB, ms []store.Measurement, hist map[string][]store.Measurement, algs []string) error {
	type series struct{ board, mode, alg string }
	largest := map[series]int{}
	for _, m := range ms {
		if m.Failed || (len(algs) > 0 && !slices.Contains(splitList(algs), m.Algorithm)) {
			continue
		}
		k := series{m.Board, m.Mode, m.Algorithm}
		if m.BlockSize > largest[k] {
			largest[k] = m.BlockSize
		} else if _, ok := largest[k]; !ok {
			largest[k] = m.BlockSize
		}
	}
	for k, size := range largest {
		h, err := db.History(c.Context, store.SeriesKey{Board: k.board, Mode: k.mode, Algorithm: k.alg, BlockSize: size})
		if err != nil {
			return err
		}
		runs := map[int64]bool{}
		for _, m := range h {
			runs[m.RunID] = true
		}
		if len(runs) > 1 {
			hist[fmt.Sprintf("%s %s %s %d B", k.board, k.mode, k.alg, size)] = h
		}
	}
	return nil
}
