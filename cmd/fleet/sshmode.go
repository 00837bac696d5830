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

// sshSweepFromFlags reads what the command line says of mode ssh and adjusts p:
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

// writeRunSSH prints mode ssh's table of a run's ssh points, set against the raw cipher points of the same boards.
func writeRunSSH(c *cli.Context, db *store.DB, ssh []store.Measurement, format string) error {
	raw, err := db.RawCipherPoints(c.Context, ssh)
	if err != nil {
		return err
	}
	v, err := report.NewCompareView(ssh, raw, report.CompareOptions{}, format)
	if err != nil {
		return usageErr("%w", err)
	}
	if err := report.WriteCompareView(c.App.Writer, v, format, report.Layout{}); err != nil {
		return usageErr("%w", err)
	}
	return nil
}

// writeRunTables prints what a run measured: the sweep tables, then mode ssh's table when it measured that
// (a machine format holds one: the sweep's, or the SSH table's when the run measured nothing else).
func writeRunTables(c *cli.Context, db *store.DB, ms []store.Measurement, layout report.Layout) error {
	others, ssh := report.SplitSSH(ms)
	f, _ := report.ViewRun.CheckFormat(c.String("format"))
	if f != report.FormatText {
		if len(ssh) > 0 && len(others) == 0 {
			return writeRunSSH(c, db, ssh, c.String("format"))
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
	return writeRunSSH(c, db, ssh, "text")
}
