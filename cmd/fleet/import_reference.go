package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/capture"
	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/reftable"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// importReferenceUsage is the part of `fleet import`'s description about --reference.
const importReferenceUsage = `

With --reference LABEL, the FILEs are a vendor's published performance tables as pasted from a guide
(tab- or space-separated text, Markdown, reStructuredText csv-table and grid tables, several tables a file),
stored as one run with status reference, labelled LABEL, that fleet compare --reference LABEL puts measured
boards beside; regress, changes, history and "latest" never take it for a measurement. Columns are
recognised from their headers (Accelerator, ARM CE → cpu, ARM → soft, "<board>: throughput (KBytes/Sec)",
MB/s, KB/s, Mbit/s, CPU Load, %, sign/s, verify/s); MB/s is 10^6 bytes/s and KB/s 1000 (openssl's k), MiB/s
2^20. A table that cannot be read unambiguously (a ragged row, a header with no rows) is skipped with a
warning naming FILE:LINE and why, and the file's other tables are stored; a file none of whose tables can be
read is refused with FILE:LINE, nothing stored.

   fleet import --reference ti-am64x-sdk-12.00 --board am64x-evm reference/ti-am64x-sdk-12.00-crypto.txt
   fleet import --reference ti-am64x-spracv1b --board am64x-evm --mode cpu reference/ti-am64x-spracv1b-crypto.txt
   fleet import --reference vendor-x --board evk --column "Accelerator=devcrypto" --source "Vendor X guide 3.1" table.md`

// referenceImportFlags are the flags only --reference reads (--board, --label's rules, --dry-run and --format
// are the import command's own).
func referenceImportFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "reference", Usage: "store the FILEs as vendor-published reference tables labelled `LABEL`", Action: func(c *cli.Context, l string) error {
			if err := store.CheckLabel(l); err != nil || l == "" {
				return usageErr("--reference %q: %v", l, labelProblem(err))
			}
			return nil
		}},
		&cli.StringFlag{Name: "source", Usage: "with --reference: the tables' provenance `TEXT` (default: each file's first \"# source:\" line)"},
		&cli.StringSliceFlag{Name: "column", Usage: "with --reference: `HEADER=MODE`, the mode of a column (\"Accelerator=devcrypto\")"},
		&cli.StringFlag{Name: "mode", Usage: "the `MODE` of commands whose capture names none (soft, cpu, devcrypto, afalg, engine:NAME, provider:NAME; default cpu); with --reference, of columns that name none"},
		&cli.IntFlag{Name: "threads", Usage: "with --reference: the -multi `N` of the figures",
			DefaultText: "the text's own -multi N, else 1"},
	}
}

func labelProblem(err error) string {
	if err != nil {
		return err.Error()
	}
	return "a reference needs a label"
}

// importReferenceAction is `fleet import --reference LABEL FILE...`.
func importReferenceAction(c *cli.Context) error {
	label := c.String("reference")
	if c.IsSet("label") {
		return usageErr("import --reference LABEL already labels the run: drop --label")
	}
	for _, f := range []string{"split", "algorithm", "date"} {
		if c.IsSet(f) {
			return usageErr("import --reference: --%s is for openssl captures, not published tables", f)
		}
	}
	opts := capture.ReferenceOptions{Files: c.Args().Slice(), Source: strings.TrimSpace(c.String("source")),
		Board: c.String("board"), Mode: c.String("mode"), Threads: c.Int("threads"), Columns: map[string]string{}}
	if opts.Board != "" {
		if err := inventory.CheckBoardName(opts.Board); err != nil {
			return usageErr("import --board: %w", err)
		}
	}
	if c.IsSet("source") && (opts.Source == "" || report.Printable(opts.Source) != opts.Source) {
		return usageErr("import --source %q: empty or with control characters", c.String("source"))
	}
	if opts.Mode != "" {
		if err := checkReferenceMode(opts.Mode); err != nil {
			return usageErr("import --mode: %w", err)
		}
	}
	if c.IsSet("threads") && (opts.Threads < 1 || opts.Threads > 1024) {
		return usageErr("import --threads %d: want 1 to 1024 (-multi N)", opts.Threads)
	}
	for _, kv := range c.StringSlice("column") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return usageErr("import --column %q: want HEADER=MODE, e.g. \"Accelerator=devcrypto\"", kv)
		}
		if err := checkReferenceMode(v); err != nil {
			return usageErr("import --column %q: %w", kv, err)
		}
		opts.Columns[k] = v
	}
	format, err := report.ViewImport.CheckFormat(c.String("format"))
	if err != nil {
		return usageErr("--format: %w", err)
	}
	ref, err := capture.ReadReference(c.Context, opts)
	if err != nil {
		return importErr(c.Context, err)
	}
	points := make([]store.BoardPoint, len(ref.Entries))
	for i, e := range ref.Entries {
		points[i] = store.BoardPoint{Board: e.Board, Point: e.Point}
	}
	for _, f := range ref.Files {
		skipped := ""
		if f.Skipped > 0 {
			skipped = fmt.Sprintf(" (%d skipped, see below)", f.Skipped)
		}
		fmt.Fprintf(c.App.ErrWriter, "%s: %d tables%s, %d figures, -multi %d\n", f.Path, f.Tables, skipped, f.Entries, f.Threads)
	}
	for _, w := range ref.Warnings {
		fmt.Fprintf(c.App.ErrWriter, "warning: %s\n", report.Printable(w))
	}
	if c.Bool("dry-run") {
		ms := make([]store.Measurement, len(points))
		for i, p := range points {
			ms[i] = store.Measurement{RunLabel: label, Board: p.Board, Point: p.Point}
		}
		return report.WriteResults(c.App.Writer, ms, format)
	}
	db, err := openDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	id, err := db.ImportReference(c.Context, store.RunInfo{Label: label, Source: ref.Source, ToolVersion: toolVersion(),
		CommandLine: commandLine(os.Args)}, points)
	if err != nil {
		return importErr(c.Context, err)
	}
	fmt.Fprintf(c.App.Writer, "reference %s: run %d, %d figures of %s in modes %s\n", label, id, len(points),
		strings.Join(ref.Boards(), ", "), strings.Join(ref.Modes(), ", "))
	return nil
}

// checkReferenceMode accepts a fleet mode or the reference's own "accelerator" (an engine the vendor did not
// say how it reached).
func checkReferenceMode(m string) error {
	if m == reftable.ModeAccelerator {
		return nil
	}
	return inventory.CheckMode(m)
}
