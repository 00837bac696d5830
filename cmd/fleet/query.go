package main

import (
	"fmt"
	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

func runsCommand() *cli.Command {
	return &cli.Command{
		Name:  "runs",
		Usage: "list runs, newest first",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "label", Usage: "only runs labelled `LABEL`"},
			intFlag("limit", 20, 0, "at most `N` runs (0: all)", "0 lists every run"),
			formatFlag(report.ViewRuns),
		},
		Action: withDB(func(c *cli.Context, db *store.DB) error {
			f := store.RunFilter{Label: c.String("label"), Limit: c.Int("limit")}
			runs, err := db.Runs(c.Context, f)
			if err != nil {
				return err
			}
			if err := report.WriteRuns(c.App.Writer, runs, c.String("format")); err != nil {
				return err
			}
			if f.Limit > 0 && len(runs) == f.Limit {
				// a list cut by the default limit must say so, on stderr so that machine formats stay clean
				f.Limit = 0
				if total, err := db.CountRuns(c.Context, f); err == nil && total > len(runs) {
					fmt.Fprintf(c.App.ErrWriter, "fleet: the newest %d of %d runs; --limit N for more, --limit 0 for all\n", len(runs), total)
				}
			}
			return nil
		}),
	}
}

func resultsCommand() *cli.Command {
	return &cli.Command{
		Name:  "results",
		Usage: "the stored points of a run (default: the latest run of each board)",
		Description: `   fleet results                                  latest run of every board
   fleet results --run 12 --board am64x --mode devcrypto --format csv
   fleet results --algorithm aes-128-cbc --size 16384 --format json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "run", Aliases: []string{"r"}, Value: "latest", Usage: "run `ID`, a label, or latest (per board)"},
			&cli.StringFlag{Name: "board", Usage: "only `BOARD`"},
			&cli.StringFlag{Name: "mode", Usage: "only `MODE`"},
			&cli.StringFlag{Name: "algorithm", Usage: "only `ALG`"},
			sizeFlag(0, "only block size `N` bytes (0: asymmetric algorithms)", "any"),
			formatFlag(report.ViewResults),
		},
		Action: withDB(func(c *cli.Context, db *store.DB) error {
			f := store.Filter{Board: c.String("board"), Mode: c.String("mode"), Algorithm: c.String("algorithm"),
				Size: c.Int("size"), SizeSet: c.IsSet("size")}
			if ref := c.String("run"); ref == "latest" {
				f.Latest = true
			} else {
				id, err := db.ResolveRun(c.Context, ref)
				if err != nil {
					return usageErr("%w", err)
				}
				f.RunID = id
			}
			ms, err := db.Measurements(c.Context, f)
			if err != nil {
				return err
			}
			if len(ms) == 0 {
				if err := checkBoardKnown(c, db, f.Board); err != nil {
					return err
				}
				if format, _ := report.ViewResults.CheckFormat(c.String("format")); format == report.FormatText {
					fmt.Fprintln(c.App.ErrWriter, "fleet: no stored points match (fleet runs lists the runs)")
					return nil
				}
			}
			return report.WriteResults(c.App.Writer, ms, c.String("format"))
		}),
	}
}

func historyCommand() *cli.Command {
	return &cli.Command{
		Name:  "history",
		Usage: "one series over time: a board, mode, algorithm and block size across runs",
		Description: `   fleet history --board am64x --algorithm aes-128-cbc --mode devcrypto --size 16384

Shows each run's median, with its label, and notes where the kernel, OpenSSL or fleet version changed.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "board", Required: true, Usage: "the series' `BOARD` (fleet boards list names them)"},
			&cli.StringFlag{Name: "algorithm", Required: true, Usage: "its algorithm `ALG`, such as aes-128-cbc or sha256"},
			&cli.StringFlag{Name: "mode", Value: "cpu", Usage: "its `MODE`: soft, cpu, devcrypto, afalg, kcapi…"},
			sizeFlag(16384, "block size `N` in bytes (0 for asymmetric)", ""),
			func() cli.Flag {
				f := intFlag("threads", 0, 0, "only -multi `N`", "0 is any number of threads")
				f.DefaultText = "0, any"
				return f
			}(),
			formatFlag(report.ViewHistory),
		},
		Action: withDB(func(c *cli.Context, db *store.DB) error {
			key := store.SeriesKey{Board: c.String("board"), Mode: c.String("mode"), Algorithm: c.String("algorithm"),
				BlockSize: c.Int("size"), Threads: c.Int("threads")}
			ms, err := db.History(c.Context, key)
			if err != nil {
				return err
			}
			if len(ms) == 0 {
				return usageErr("no points for %s %s %s %d B in %s", key.Board, key.Mode, key.Algorithm, key.BlockSize, dbShown(c))
			}
			runs, boards, err := db.SeriesRuns(c.Context, ms)
			if err != nil {
				return err
			}
			return report.WriteHistory(c.App.Writer, ms, runs, boards, c.String("format"))
		}),
	}
}

func showCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "one run: its boards' facts and status, skips with reasons, raw output with --raw",
		ArgsUsage: "RUN (an id, a UUID, a label, or latest)",
		Before:    maxArgs("show", 1),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "raw", Usage: "also print every openssl command and its output"},
			&cli.StringFlag{Name: "board", Usage: "only `BOARD`"},
			formatFlag(report.ViewShow),
		},
		Action: func(c *cli.Context) error {
			ref := c.Args().First()
			if ref == "" {
				ref = "latest"
			}
			db, err := openExistingDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			id, err := db.ResolveRun(c.Context, ref)
			if err != nil {
				return usageErr("%w", err)
			}
			run, err := db.Run(c.Context, id)
			if err != nil {
				return usageErr("%w", err)
			}
			brs, err := db.BoardRuns(c.Context, id)
			if err != nil {
				return err
			}
			var raws []store.RawOutput
			if c.Bool("raw") {
				if raws, err = db.RawOutputs(c.Context, id, c.String("board")); err != nil {
					return err
				}
				raws = append([]store.RawOutput{}, raws...) // not nil: the reasons as stored print without raw outputs too
			}
			return report.WriteRunDetail(c.App.Writer, run, brs, raws, c.String("format"))
		},
	}
}

// checkBoardKnown refuses a --board that no run in db measured (a typing mistake, not an empty answer).
func checkBoardKnown(c *cli.Context, db *store.DB, board string) error {
	if board == "" {
		return nil
	}
	runs, err := db.Runs(c.Context, store.RunFilter{Board: board, Limit: 1})
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return usageErr("--board %s: no run in %s measured it (fleet boards list names the inventory's boards)", board, dbName(db))
	}
	return nil
}
