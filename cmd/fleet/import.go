package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/capture"
	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
	"github.com/fleetlab/fleet/validity"
)

// store.ImportTx is the sink of a real import: one transaction for all its files.
var _ capture.ImportSink = (*store.ImportTx)(nil)

func importCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "store `openssl speed` output captured by hand (any OpenSSL 1.0–3.x, pasted logs welcome)",
		ArgsUsage: "FILE...",
		Description: `The FILEs given together are one run of the board: one session, compared as a whole (compare
shows all of it) and never against itself (regress --baseline previous). --run-per-file makes each FILE a
run of its own (every run then has the same --date), --split one run per openssl command.

Every openssl command found in the text contributes its points, with the mode taken from its command line
(-engine, -provider, an OPENSSL_armcap=0 or OPENSSL_ia32cap prefix that turns off what mode soft does), its
CPUINFO line's env: or its "engine ... set" line; --mode MODE names the mode of the commands that show none (cpu when not given), and a
command that shows another is refused. The OPENSSL_* environment the text shows (a partial mask such as
OPENSSL_armcap=0x3d, OPENSSL_CONF) is stored as the board's facts, which show, history and changes compare;
commands of one run that ran with different environments are refused (import them as separate runs).
Runs timed on CPU time (no -elapsed) keep OpenSSL's figure and are re-derived on wall time, marked timing=cpu;
each soft or cpu point is judged by its CPU share ("in 1.35s" of "for 3s": 45 %) with the board's validity
limits from boards.toml, invalid below 84 % by default. Other captures' validity is unknown.

An import is all or nothing, in one transaction: a file without any measurement, a value no measurement can
have (see the bounds in the opensslspeed package), a full disk or Ctrl-C store nothing of any FILE (exit 2,
or 130 when interrupted). Files of any size are read as streams. A FILE may be UTF-8 or UTF-16 (either byte
order, as Windows PowerShell's > writes it), with \n, \r\n or lone \r line ends; its raw output is kept as
UTF-8. A UTF-32 FILE is refused, naming its encoding.

   fleet import --board am335x --label wiki-2019 am335x-speed.txt
   fleet import --board am335x --mode soft sw.txt                       a capture of OPENSSL_armcap=0 without its command
   fleet import --board am335x soft.txt cpu.txt cryptodev.txt           one session: one run of three modes
   fleet import --board am335x --dry-run --format json capture.txt      print the points, store nothing
   fleet import --board imx8 --algorithm aes-128-cbc multi.txt          name 1.1.1's "evp" rows` + importReferenceUsage,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "board", Usage: "the board the captures came from (required but with --reference)"},
			&cli.StringFlag{Name: "label", Usage: "`LABEL` the run(s) (e.g. wiki-2019)", Action: checkLabelFlag},
			&cli.StringFlag{Name: "date", Usage: "when the captures were taken, `DATE` (2026-01-31 or 2026-01-31T02:00 UTC; default now)"},
			&cli.StringFlag{Name: "algorithm", Usage: "the `ALG` of -evp ALG, for rows labelled \"evp\" when the capture does not show the command"},
			&cli.StringSliceFlag{Name: "sizes", Usage: "the block `SIZES` of table rows cut from their \"type 16 bytes …\" header (e.g. 16,64,256,1024,8192,16384)"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "parse and print, store nothing"},
			&cli.BoolFlag{Name: "split", Usage: "one run per openssl command"},
			&cli.BoolFlag{Name: "run-per-file", Usage: "one run per FILE instead of one for all of them"},
			formatFlag(report.ViewImport),
		}, referenceImportFlags()...),
		Action: importAction,
	}
}

func importAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageErr("import: name at least one FILE")
	}
	if c.IsSet("reference") {
		return importReferenceAction(c)
	}
	opts, started, err := importOptions(c)
	if err != nil {
		return err
	}
	format, err := report.ViewImport.CheckFormat(c.String("format"))
	if err != nil {
		return usageErr("--format: %w", err)
	}
	if c.Bool("dry-run") {
		return importDryRun(c, opts, format)
	}
	return importStored(c, opts, started)
}

// importOptions is what the flags of an import of openssl captures ask capture.Import for, each refused with
// the flag at fault; started is --date (zero: now).
func importOptions(c *cli.Context) (opts capture.ImportOptions, started time.Time, err error) {
	for _, f := range []string{"source", "column", "threads"} {
		if c.IsSet(f) {
			return opts, started, usageErr("import --%s is for published tables: add --reference LABEL", f)
		}
	}
	if c.String("board") == "" {
		return opts, started, usageErr("import: --board is required (the board the captures came from)")
	}
	opts = capture.ImportOptions{Board: c.String("board"), Files: c.Args().Slice(), Split: c.Bool("split"),
		PerFile: c.Bool("run-per-file"), Mode: c.String("mode"), Algorithm: c.String("algorithm")}
	if c.IsSet("mode") {
		if err := checkImportMode(opts.Mode); err != nil {
			return opts, started, err
		}
	}
	if opts.Validity, err = importBoard(c, opts.Board); err != nil {
		return opts, started, err
	}
	if d := c.String("date"); d != "" {
		if started, err = parseWhen(d, time.Now()); err != nil {
			return opts, started, usageErr("import --date: %w", err)
		}
	}
	if c.IsSet("sizes") {
		if opts.Sizes, err = importSizes(c.StringSlice("sizes")); err != nil {
			return opts, started, err
		}
	}
	if alg := opts.Algorithm; alg != "" {
		if err := inventory.CheckAlgorithm(alg); err != nil {
			return opts, started, usageErr("import --algorithm: %s", report.Printable(err.Error()))
		}
	}
	return opts, started, nil
}

// checkImportMode refuses an --mode no capture can have (capture.CheckMode): a name that is no mode, or a mode
// openssl speed never measures.
func checkImportMode(m string) error {
	err := capture.CheckMode(m)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, capture.ErrNotSpeedMode):
		return usageErr("import --mode %s: %w", m, err)
	}
	return usageErr("import --mode: %s", report.Printable(err.Error()))
}

// importDryRun reads the captures as an import would and prints their points, storing nothing.
func importDryRun(c *cli.Context, opts capture.ImportOptions, format string) error {
	p := &importPrinter{out: c.App.Writer, errw: c.App.ErrWriter, json: format == report.FormatJSON, board: opts.Board}
	opts.Parsed = p.run
	if _, err := capture.Import(c.Context, opts, capture.DiscardImport{}); err != nil {
		return importErr(c.Context, err)
	}
	return p.flush()
}

// importStored imports the captures in one transaction of the database, as runs started at started (zero:
// now), and prints each run stored.
func importStored(c *cli.Context, opts capture.ImportOptions, started time.Time) error {
	db, err := openDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginImport(c.Context, store.RunInfo{Label: c.String("label"), ToolVersion: toolVersion(),
		CommandLine: commandLine(os.Args), Started: started})
	if err != nil {
		return importErr(c.Context, err)
	}
	runs, err := capture.Import(c.Context, opts, tx)
	if err != nil {
		return importErr(c.Context, err)
	}
	// what was stored is the command's result: stdout, where a script reads the run id (progress and
	// warnings go to stderr)
	for _, r := range runs {
		fmt.Fprintf(c.App.Writer, "%s: run %d, %d points from %d openssl command(s)\n", r.File, r.RunID, r.Points, r.Commands)
	}
	return nil
}

// importBoard checks --board and returns the validity limits boards.toml gives the board
// ([boards.NAME.validity]; no profile applies to an import), which judge its CPU-timed captures' CPU share: the
// defaults when the board is not in it or there is no boards.toml. A boards.toml that does not load is refused,
// as every command that reads it does.
func importBoard(c *cli.Context, board string) (validity.Overrides, error) {
	if err := inventory.CheckBoardName(board); err != nil {
		return validity.Overrides{}, usageErr("import --board: %w", err)
	}
	inv, err := inventory.LoadOrDefault(globalString(c, "inventory"), inventoryExplicit(c))
	if err != nil {
		return validity.Overrides{}, usageErr("import: %w", err)
	}
	for _, b := range inv.Boards() {
		if b.Name == board {
			return inventory.ValidityFor(b, inventory.Profile{}), nil
		}
	}
	return validity.Overrides{}, nil
}

// importSizes reads --sizes: block sizes in bytes, 1 B to opensslspeed.MaxBlockSize, each once. An empty value
// is refused rather than read as "not given".
func importSizes(v []string) ([]int, error) {
	list := splitList(v)
	if len(list) == 0 {
		return nil, usageErr("import --sizes: name the block sizes of the table's columns, e.g. 16,64,256,1024,8192,16384")
	}
	var sizes []int
	for _, s := range list {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > opensslspeed.MaxBlockSize {
			return nil, usageErr("import --sizes: %q is not a block size in bytes (1 to %d)", report.Printable(s), opensslspeed.MaxBlockSize)
		}
		if slices.Contains(sizes, n) {
			return nil, usageErr("import --sizes: %d is named twice", n)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// importErr maps what capture.Import returned to what the user reads: every failure stored nothing.
func importErr(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return fmt.Errorf("import interrupted, nothing stored: %w", err)
	case errors.Is(err, opensslspeed.ErrUnnamedEVP):
		return usageErr("import: %w; pass --algorithm ALG, the -evp argument of the command that printed it (nothing stored)", err)
	}
	return usageErr("import: %w (nothing stored)", err)
}
