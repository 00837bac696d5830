package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/capture"
	"github.com/fleetlab/fleet/inventory"
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
	opts, err := referenceOptions(c)
	if err != nil {
		return err
	}
	format, err := report.ViewImport.CheckFormat(c.String("format"))
	if err != nil {
		return usageErr("--format: %w", err)
	}
	ref, err := capture.ReadReference(c.Context, opts)
	if err != nil {
		return importErr(c.Context, err)
	}
	printReferenceFiles(c.App.ErrWriter, ref)
	label := c.String("reference")
	points := make([]store.BoardPoint, len(ref.Entries))
	for i, e := range ref.Entries {
		points[i] = store.BoardPoint{Board: e.Board, Point: e.Point}
	}
	if c.Bool("dry-run") {
		ms := make([]store.Measurement, len(points))
		for i, p := range points {
			ms[i] = store.Measurement{RunLabel: label, Board: p.Board, Point: p.Point}
		}
		return report.WriteResults(c.App.Writer, ms, format)
	}
	return storeReference(c, label, ref, points)
}

// referenceOptions is what the flags of an import of published tables ask capture.ReadReference for, each
// refused with the flag at fault.
func referenceOptions(c *cli.Context) (capture.ReferenceOptions, error) {
	if c.IsSet("label") {
		return capture.ReferenceOptions{}, usageErr("import --reference LABEL already labels the run: drop --label")
	}
	for _, f := range []string{"split", "algorithm", "date"} {
		if c.IsSet(f) {
			return capture.ReferenceOptions{}, usageErr("import --reference: --%s is for openssl captures, not published tables", f)
		}
	}
	opts := capture.ReferenceOptions{Files: c.Args().Slice(), Source: strings.TrimSpace(c.String("source")),
		Board: c.String("board"), Mode: c.String("mode"), Threads: c.Int("threads")}
	if opts.Board != "" {
		if err := inventory.CheckBoardName(opts.Board); err != nil {
			return opts, usageErr("import --board: %w", err)
		}
	}
	if c.IsSet("source") && (opts.Source == "" || report.Printable(opts.Source) != opts.Source) {
		return opts, usageErr("import --source %q: empty or with control characters", c.String("source"))
	}
	if opts.Mode != "" {
		if err := capture.CheckReferenceMode(opts.Mode); err != nil {
			return opts, usageErr("import --mode: %w", err)
		}
	}
	if c.IsSet("threads") && (opts.Threads < 1 || opts.Threads > 1024) {
		return opts, usageErr("import --threads %d: want 1 to 1024 (-multi N)", opts.Threads)
	}
	var err error
	opts.Columns, err = referenceColumns(c.StringSlice("column"))
	return opts, err
}

// referenceColumns reads --column HEADER=MODE, each value a mode a published figure can be stored under.
func referenceColumns(kvs []string) (map[string]string, error) {
	columns := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, usageErr("import --column %q: want HEADER=MODE, e.g. \"Accelerator=devcrypto\"", kv)
		}
		if err := capture.CheckReferenceMode(v); err != nil {
			return nil, usageErr("import --column %q: %w", kv, err)
		}
		columns[k] = v
	}
	return columns, nil
}

// printReferenceFiles says on w (stderr) what each file gave and what could not be read: the figures
// themselves are the command's result.
func printReferenceFiles(w io.Writer, ref capture.Reference) {
	for _, f := range ref.Files {
		skipped := ""
		if f.Skipped > 0 {
			skipped = fmt.Sprintf(" (%d skipped, see below)", f.Skipped)
		}
		fmt.Fprintf(w, "%s: %d tables%s, %d figures, -multi %d\n", f.Path, f.Tables, skipped, f.Entries, f.Threads)
	}
	for _, warning := range ref.Warnings {
		fmt.Fprintf(w, "warning: %s\n", report.Printable(warning))
	}
}

// storeReference stores the reference's figures as one run with status reference, labelled label, and says so
// on stdout.
func storeReference(c *cli.Context, label string, ref capture.Reference, points []store.BoardPoint) error {
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
