package main

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// sshSweepFromFlags reads what the command line says of mode ssh (issue 15) and adjusts p:
//   - --modes ssh alone: --algorithms must be SSH ciphers (did-you-mean otherwise), and without --algorithms the
//     profile's openssl algorithms are replaced by the default ciphers; --sizes are bytes per transfer (1 MiB to
//     1 GiB), returned, and p keeps its block sizes (no openssl mode uses them);
//   - --modes mixing ssh with openssl modes: --sizes would mean block sizes and transfer sizes at once, so it is
//     refused; mode ssh moves protocol.DefaultSSHTransferBytes;
//   - an SSH cipher in --algorithms without mode ssh in --modes measures nothing: refused.
//
// It returns the transfer sizes (nil: the default) and whether --sizes was consumed as such.
func sshSweepFromFlags(c *cli.Context, p *inventory.Profile) (transfer []int, consumed bool, err error) {
	modes := splitList(c.StringSlice("modes"))
	algs := splitList(c.StringSlice("algorithms"))
	hasSSH := slices.Contains(modes, protocol.ModeSSH)
	if c.IsSet("modes") && !hasSSH {
		for _, a := range algs {
			if protocol.IsSSHCipher(a) {
				return nil, false, usageErr("--algorithms %s is an SSH cipher: add mode ssh to --modes (e.g. --modes ssh) to measure it", a)
			}
		}
	}
	if !hasSSH {
		return nil, false, nil
	}
	only := inventory.OnlySSH(modes)
	if only {
		if len(algs) == 0 {
			p.Algorithms = slices.Clone(protocol.DefaultSSHCiphers)
		} else if err := inventory.CheckSSHCiphers(algs, modes); err != nil {
			return nil, false, usageErr("--algorithms: %w", err)
		}
	} else if len(algs) > 0 && !slices.ContainsFunc(algs, func(a string) bool { return !protocol.IsSSHCipher(a) }) {
		return nil, false, usageErr("--algorithms %s: only SSH ciphers, but --modes also names openssl modes, which would measure nothing: add an openssl algorithm such as aes-128-ctr, or use --modes ssh alone", c.StringSlice("algorithms"))
	}
	sizes := splitList(c.StringSlice("sizes"))
	if len(sizes) == 0 {
		return nil, false, nil
	}
	if !only {
		return nil, false, usageErr("--sizes with --modes mixing ssh and openssl modes: it would be block sizes for the ones and bytes per transfer for the other; run --modes ssh on its own to set its transfer size (default %d, 64 MiB)", protocol.DefaultSSHTransferBytes)
	}
	for _, s := range sizes {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, false, usageErr("--sizes: %q is not a number of bytes per transfer (mode ssh: 1048576 to 1073741824)", s)
		}
		if err := inventory.CheckTransferSize(n); err != nil {
			return nil, false, usageErr("--sizes: %w", err)
		}
		if slices.Contains(transfer, int(n)) {
			return nil, false, usageErr("--sizes: %d is listed twice", n)
		}
		transfer = append(transfer, int(n))
	}
	return transfer, true, nil
}

// writeSSHTable prints mode ssh's table for ssh points, with the raw cipher points of the same boards (their
// newest cpu and devcrypto runs, whichever run that was) for the SSH/raw ratio.
func writeSSHTable(c *cli.Context, db *store.DB, ssh []store.Measurement, opts report.CompareOptions, format string) error {
	var raw []store.Measurement
	for board, algs := range report.RawSeriesFor(ssh) {
		for _, alg := range algs {
			for _, mode := range []string{protocol.ModeCPU, protocol.ModeDevCrypto} {
				ms, err := db.Measurements(c.Context, store.Filter{Board: board, Mode: mode, Algorithm: alg})
				if err != nil {
					return err
				}
				raw = append(raw, ms...)
			}
		}
	}
	cmp, err := report.CompareSSH(ssh, raw, opts)
	if err != nil {
		return usageErr("%w", err)
	}
	if err := report.WriteSSH(c.App.Writer, cmp, format); err != nil {
		return usageErr("%w", err)
	}
	return nil
}

// compareSSHSplit divides a comparison's points between the usual tables and the SSH table: by --modes when
// given, else by what there is (a nil part is not printed). Machine formats (csv, json) hold one table, so a
// selection with both kinds must say which with --modes. opts.Modes loses ssh for the usual tables.
func compareSSHSplit(c *cli.Context, ms []store.Measurement, opts *report.CompareOptions) (others, ssh []store.Measurement, err error) {
	others, ssh = report.SplitSSH(ms)
	wantOthers, wantSSH := len(others) > 0, len(ssh) > 0
	if len(opts.Modes) > 0 {
		wantSSH = slices.Contains(opts.Modes, protocol.ModeSSH)
		wantOthers = !inventory.OnlySSH(opts.Modes)
		opts.Modes = slices.DeleteFunc(slices.Clone(opts.Modes), func(m string) bool { return m == protocol.ModeSSH })
	}
	if wantSSH && wantOthers && len(ssh) > 0 && len(others) > 0 {
		if f, _ := report.ViewCompare.CheckFormat(c.String("format")); f != report.FormatText && f != report.FormatMarkdown {
			return nil, nil, usageErr("--format %s holds one table: the selection has mode ssh points and others; choose with --modes ssh or --modes without ssh", f)
		}
	}
	if wantSSH && (len(ssh) > 0 || !wantOthers) {
		ssh = nonNil(ssh) // CompareSSH says when there is nothing
	} else {
		ssh = nil
	}
	if wantOthers && (len(others) > 0 || ssh == nil) {
		others = nonNil(others) // Compare says when there is nothing
	} else {
		others = nil
	}
	return others, ssh, nil
}

func nonNil(ms []store.Measurement) []store.Measurement {
	if ms == nil {
		return []store.Measurement{}
	}
	return ms
}

// writeRunTables prints what a run measured: the sweep tables, then mode ssh's table when it measured that
// (a machine format holds one: the sweep's, or the SSH table's when the run measured nothing else).
func writeRunTables(c *cli.Context, db *store.DB, ms []store.Measurement, layout report.Layout) error {
	others, ssh := report.SplitSSH(ms)
	f, _ := report.ViewRun.CheckFormat(c.String("format"))
	if f != report.FormatText {
		if len(ssh) > 0 && len(others) == 0 {
			return writeSSHTable(c, db, ssh, report.CompareOptions{}, c.String("format"))
		}
		return report.WriteSweep(c.App.Writer, others, report.DefaultUnit, c.String("format"), layout)
	}
	if len(others) > 0 || len(ssh) == 0 {
		if err := writeSweepTables(c, others, layout); err != nil {
			return err
		}
	}
	if len(ssh) == 0 {
		return nil
	}
	if len(others) > 0 {
		fmt.Fprintln(c.App.Writer)
	}
	return writeSSHTable(c, db, ssh, report.CompareOptions{}, "text")
}
