package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// maxTableSize is the largest block size a sweep measures (inventory's limit), so the largest a table can be at.
const maxTableSize = 16 << 20

// atSize is the block-size flag of the layout, spelled the same on run and compare: --sizes chooses what run
// measures, and --size filters what results and history list, so the layout's own is --at-size.
const atSize = "at-size"

// layoutFlags choose the text layout of a comparison; sizeName is atSize on every command that has it.
func layoutFlags(sizeName string) []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "wide", Usage: "text: the full tables, one row per algorithm and size with a column per board × mode (wider than a terminal)"},
		&cli.IntFlag{Name: sizeName, Usage: "set the boards against each other at block size `BYTES`",
			DefaultText: "per algorithm, the largest two boards measured"},
	}
}

// oldCompareSize is compare's former spelling of --at-size, refused with the new one: it read like the --size
// filter of results and history, and a script that still says it learns the new name at once.
func oldCompareSize() cli.Flag {
	return &cli.StringFlag{Name: "size", Hidden: true, Action: func(_ *cli.Context, v string) error {
		return usageErr("compare --size %s: the flag is --at-size %s (as on run; --size filters results and history)", v, v)
	}}
}

// layoutFromFlags validates the layout flags: the block size is 1 byte to 16 MiB when given. On a terminal the
// tables fit its width; otherwise report.TextWidth.
func layoutFromFlags(c *cli.Context, sizeName string) (report.Layout, error) {
	l := report.Layout{Wide: c.Bool("wide"), Size: c.Int(sizeName), Width: terminalWidth(c.App.Writer)}
	if c.IsSet(sizeName) && (l.Size < 1 || l.Size > maxTableSize) {
		return l, usageErr("--%s %d: want a block size in bytes from 1 to %d", sizeName, l.Size, maxTableSize)
	}
	return l, nil
}

// terminalWidth is the width of the terminal w writes to, or 0 when it is not one. Below 60 columns tables
// cannot be split finely enough to help, so narrower terminals get the default.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width < 60 {
		return 0
	}
	return width
}

// layoutErr names the flag when the chosen block size was not measured.
func layoutErr(err error, sizeName string) error {
	if errors.Is(err, report.ErrSizeNotMeasured) {
		return usageErr("--%s: %w", sizeName, err)
	}
	return err
}

// checkAtSize refuses, before a sweep starts, a --at-size the sweep does not measure.
func checkAtSize(l report.Layout, sizes []int) error {
	if l.Size == 0 || len(sizes) == 0 || slices.Contains(sizes, l.Size) {
		return nil
	}
	return usageErr("--at-size %d: the sweep does not measure that block size (it measures %s)", l.Size, joinInts(sizes))
}

// writeSweepTables prints the end of `fleet run`. When no point was measured at --at-size (the board failed
// there), the tables are printed at the largest size instead, and stderr says so: a finished run's results
// must not be lost to a layout option.
func writeSweepTables(c *cli.Context, ms []store.Measurement, l report.Layout) error {
	err := report.WriteSweepTables(c.App.Writer, ms, report.DefaultUnit, l)
	if errors.Is(err, report.ErrSizeNotMeasured) {
		fmt.Fprintf(c.App.ErrWriter, "--at-size %d: nothing was measured at that size; boards set against each other at the largest size instead\n", l.Size)
		l.Size = 0
		err = report.WriteSweepTables(c.App.Writer, ms, report.DefaultUnit, l)
	}
	return err
}

func joinInts(vs []int) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ", ")
}
