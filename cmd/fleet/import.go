package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

func importCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "store `openssl speed` output captured by hand (any OpenSSL 1.0–3.x, pasted logs welcome)",
		ArgsUsage: "FILE...",
		Description: `Each FILE becomes one run of the board (--split: one run per openssl command in it). Every openssl
command found in the text contributes its points, with the mode taken from its command line or its
"engine ... set" line (cpu when none), so a paste of a software run and an engine run compares as two modes.
Runs timed on CPU time (no -elapsed) keep OpenSSL's figure and are re-derived on wall time, marked timing=cpu.

   fleet import --board am335x --label wiki-2019 am335x-speed.txt
   fleet import --board am335x --dry-run --format json capture.txt      print the points, store nothing`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "board", Required: true, Usage: "the board the captures came from"},
			&cli.StringFlag{Name: "label", Usage: "`LABEL` the run(s) (e.g. wiki-2019)", Action: checkLabelFlag},
			&cli.StringFlag{Name: "date", Usage: "when the captures were taken, `DATE` (2026-01-31 or 2026-01-31T02:00 UTC; default now)"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "parse and print, store nothing"},
			&cli.BoolFlag{Name: "split", Usage: "one run per openssl command instead of one per file"},
			formatFlag(report.ViewImport),
		},
		Action: importAction,
	}
}

// importedFile is one file's parse.
type importedFile struct {
	path string
	text string
	runs []opensslspeed.Run
}

func importAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageErr("import: name at least one FILE")
	}
	board := c.String("board")
	if !validBoardName(board) {
		return usageErr("import: board name %q: use letters, digits, '.', '_' and '-'", board)
	}
	var started time.Time
	if d := c.String("date"); d != "" {
		t, err := parseWhen(d, time.Now())
		if err != nil {
			return usageErr("import --date: %w", err)
		}
		started = t
	}
	var files []importedFile
	for _, path := range c.Args().Slice() {
		data, err := os.ReadFile(path)
		if err != nil {
			return usageErr("import: %w", err)
		}
		runs, err := opensslspeed.Parse(string(data), opensslspeed.Hint{})
		if err != nil {
			return usageErr("import %s: %w", path, err)
		}
		files = append(files, importedFile{path: path, text: string(data), runs: runs})
	}
	if c.Bool("dry-run") {
		return printImport(c, files)
	}
	db, err := openDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := c.Context
	for _, f := range files {
		groups := [][]opensslspeed.Run{f.runs}
		if c.Bool("split") {
			groups = nil
			for _, r := range f.runs {
				groups = append(groups, []opensslspeed.Run{r})
			}
		}
		for _, g := range groups {
			id, n, err := storeImport(ctx, db, store.RunInfo{Label: c.String("label"), Started: started}, board, f, g)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.ErrWriter, "%s: run %d, %d points from %d openssl command(s)\n", f.path, id, n, len(g))
		}
	}
	return nil
}

func storeImport(ctx context.Context, db *store.DB, info store.RunInfo, board string, f importedFile, runs []opensslspeed.Run) (int64, int, error) {
	abs, _ := filepath.Abs(f.path)
	info.ToolVersion, info.Source, info.CommandLine = toolVersion(), "imported from "+abs, strings.Join(os.Args, " ")
	w, err := db.BeginRun(ctx, info)
	if err != nil {
		return 0, 0, usageErr("%w", err)
	}
	if err := w.BoardStarted(ctx, board); err != nil {
		return 0, 0, err
	}
	if err := w.Raw(ctx, board, protocol.Raw{ID: 1, Command: []string{"import", abs}, Stdout: f.text}); err != nil {
		return 0, 0, err
	}
	n, failed := 0, 0
	seen := map[string]int{} // repeats of one series within the file
	for _, r := range runs {
		if r.Failed != "" && len(r.Points) == 0 {
			if err := w.Skip(ctx, board, protocol.Skip{Mode: r.Mode, Reason: fmt.Sprintf("line %d: %s", r.Line, r.Failed)}); err != nil {
				return 0, 0, err
			}
			continue
		}
		for _, p := range r.Points {
			key := fmt.Sprint(p.Mode, p.Algorithm, p.Op, p.BlockSize, p.KeyBits, p.Curve, p.Threads)
			p.Repeat = seen[key]
			seen[key]++
			p.RawID = 1
			if p.Failed {
				failed++
			}
			if err := w.Point(ctx, board, p); err != nil {
				return 0, 0, err
			}
			n++
		}
	}
	status, cause := protocol.StatusOK, ""
	if n == 0 {
		status, cause = protocol.StatusFailed, "no openssl speed output found"
	}
	if err := w.BoardFinished(ctx, board, status, cause); err != nil {
		return 0, 0, err
	}
	if err := w.Finish(ctx, protocol.StatusImported); err != nil {
		return 0, 0, err
	}
	return w.RunID(), n, nil
}

func printImport(c *cli.Context, files []importedFile) error {
	format, err := report.ViewImport.CheckFormat(c.String("format"))
	if err != nil {
		return usageErr("--format: %w", err)
	}
	var pts []report.ImportedPoint
	for _, f := range files {
		for _, r := range f.runs {
			if format == report.FormatText {
				fmt.Fprintf(c.App.ErrWriter, "%s:%d: %s, %d points, timing %s%s\n", f.path, r.Line, dash(r.Mode), len(r.Points), dash(r.Timing), failedNote(r.Failed))
			}
			for _, p := range r.Points {
				pts = append(pts, report.ImportedPoint{File: f.path, Point: p})
			}
		}
	}
	return report.WriteImport(c.App.Writer, c.String("board"), pts, format)
}

func failedNote(s string) string {
	if s == "" {
		return ""
	}
	return " — FAILED: " + s
}

func validBoardName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || (i > 0 && (r == '.' || r == '_' || r == '-'))
		if !ok {
			return false
		}
	}
	return true
}
