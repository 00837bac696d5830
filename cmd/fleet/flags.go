package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// Every flag that can be wrong is checked by its own Action, which urfave/cli runs after parsing and before the
// command's action: a bad value is refused (exit 2, naming the flag and what it accepts) before anything is
// opened, connected or measured. Values are never replaced by defaults.

// formatFlag is a command's --format: the formats its view offers, the first one the default.
func formatFlag(v report.View) *cli.StringFlag {
	formats := v.Formats()
	return &cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: formats[0],
		Usage: "output `FORMAT`: " + strings.Join(formats, ", "),
		Action: func(c *cli.Context, f string) error {
			if _, err := v.CheckFormat(f); err != nil {
				return usageErr("--format: %w", err)
			}
			return nil
		}}
}

// intFlag is an integer flag that refuses values below min; what says what min means, for the message.
func intFlag(name string, value, min int, usage, what string) *cli.IntFlag {
	return &cli.IntFlag{Name: name, Value: value, Usage: usage, Action: func(c *cli.Context, v int) error {
		if v < min {
			return usageErr("--%s %d: want at least %d (%s)", name, v, min, what)
		}
		return nil
	}}
}

// sizeFlag is a block size to select by; 0 selects the asymmetric algorithms, which have none.
func sizeFlag(value int, usage, defaultText string) *cli.IntFlag {
	f := intFlag("size", value, 0, usage, "a block size in bytes, or 0 for asymmetric algorithms")
	f.DefaultText = defaultText
	return f
}

// labelFlag is --label for a command that stores runs.
func labelFlag(usage string) *cli.StringFlag {
	return &cli.StringFlag{Name: "label", Aliases: []string{"l"}, Usage: usage, Action: checkLabelFlag}
}

func checkLabelFlag(c *cli.Context, label string) error {
	if err := store.CheckLabel(label); err != nil {
		return usageErr("--label: %w", err)
	}
	return nil
}

// algorithmsFlag is a list of algorithm names, each checked for its spelling.
func algorithmsFlag(name string, aliases []string, usage string) *cli.StringSliceFlag {
	return &cli.StringSliceFlag{Name: name, Aliases: aliases, Usage: usage, Action: func(c *cli.Context, vs []string) error {
		for _, a := range splitList(vs) {
			if err := inventory.CheckAlgorithm(a); err != nil {
				return usageErr("--%s: %w", name, err)
			}
		}
		return nil
	}}
}

// measurableModes lists the modes of protocol.Modes for run's --modes help: those every probe reports on, the
// engine and provider forms, then those measured only when named, each with its entry's Help.
func measurableModes() string {
	probed := []string{}
	var named []string
	for _, s := range protocol.Modes {
		name := s.Mode
		if s.Help != "" {
			name += " (" + s.Help + ")"
		}
		if s.Probed {
			probed = append(probed, name)
		} else {
			named = append(named, name)
		}
	}
	list := strings.Join(append(probed, protocol.EnginePrefix+"NAME", protocol.ProviderPrefix+"NAME"), ", ")
	if len(named) > 0 {
		list += ", and " + strings.Join(named, ", ")
	}
	return list
}

// modesFlag is --modes, each mode checked.
func modesFlag(usage string) *cli.StringSliceFlag {
	return &cli.StringSliceFlag{Name: "modes", Aliases: []string{"m"}, Usage: usage, Action: func(c *cli.Context, vs []string) error {
		for _, m := range splitList(vs) {
			if err := inventory.CheckMode(m); err != nil {
				return usageErr("--modes: %w", err)
			}
		}
		return nil
	}}
}

// thresholdRange says what --threshold accepts: 0 would call every wobble a change, and a drop beyond 100 %
// cannot happen.
const thresholdRange = "a percentage more than 0% and at most 100%, such as 5%"

// parseThreshold reads --threshold ("5%" or "5") as a fraction (0.05).
func parseThreshold(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil {
		return 0, usageErr("--threshold %q is not a percentage; want %s", s, thresholdRange)
	}
	if math.IsNaN(v) || v <= 0 || v > 100 {
		return 0, usageErr("--threshold %q: out of range, want %s", s, thresholdRange)
	}
	return v / 100, nil
}

func thresholdFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "threshold", Value: "5%", Usage: "smallest change that counts, `PCT` (more than 0%, at most 100%)",
		Action: func(c *cli.Context, s string) error {
			_, err := parseThreshold(s)
			return err
		}}
}

func alphaFlag() *cli.Float64Flag {
	return &cli.Float64Flag{Name: "alpha", Value: report.DefaultAlpha, Usage: "significance level of the U test, between 0 and 1",
		Action: func(c *cli.Context, v float64) error {
			if !(v > 0 && v < 1) { // also refuses NaN
				return usageErr("--alpha %v is out of range; want a significance level more than 0 and less than 1, such as 0.05", v)
			}
			return nil
		}}
}

func unitFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "unit", Value: report.DefaultUnit, Usage: "`UNIT`: " + strings.Join(report.Units, ", "),
		Action: func(c *cli.Context, u string) error {
			if err := report.CheckUnit(u); err != nil {
				return usageErr("--unit: %w", err)
			}
			return nil
		}}
}

// maxArgs refuses more than n positional arguments to the command name (say "show"): a second run id to show,
// or a word after a command that takes none, is a mistake the user should hear about, not something to ignore.
func maxArgs(name string, n int) cli.BeforeFunc {
	return func(c *cli.Context) error {
		if c.NArg() <= n {
			return nil
		}
		args := c.Args().Slice()
		if n == 0 {
			return usageErr("%s takes no arguments, got %s (see fleet %s --help)", name, quoteAll(args), name)
		}
		what := "argument(s)"
		if f := strings.Fields(c.Command.ArgsUsage); len(f) > 0 {
			what = f[0]
		}
		return usageErr("%s takes at most %d %s, got %d arguments: %s (see fleet %s --help)",
			name, n, what, len(args), quoteAll(args), name)
	}
}

// refuseArgs makes every command that takes no positional argument refuse them (see withGlobalFlags).
func refuseArgs(cmd *cli.Command, name string) {
	if cmd.Before == nil && cmd.Action != nil && len(cmd.Subcommands) == 0 && strings.TrimSpace(cmd.ArgsUsage) == "" {
		cmd.Before = maxArgs(name, 0)
	}
}

// quoteAll quotes each argument, so that an empty or blank one shows: "1" "2".
func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, " ")
}

// statErr is what a flag's path check says when the path is there but of the wrong kind.
func statErr(fi os.FileInfo, err error) error {
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("it is a directory")
	}
	return fmt.Errorf("it is not a regular file")
}
