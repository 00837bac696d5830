package main

import (
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestIntFlagsDecimalOnly: every int flag of every command takes a plain decimal only: 0x3, 0o7, 0b1 and 1_0
// are refused (urfave/cli read them in Go's bases), and 010 is ten, not octal eight.
func TestIntFlagsDecimalOnly(t *testing.T) {
	app := newApp(strings.NewReader(""), io.Discard, io.Discard)
	n := 0
	var walk func(string, []cli.Flag, []*cli.Command)
	walk = func(path string, flags []cli.Flag, cmds []*cli.Command) {
		for _, f := range flags {
			switch f.(type) {
			case *cli.IntFlag, *onceInt:
				t.Errorf("%s --%s: an int flag that takes base prefixes", path, f.Names()[0])
				continue
			case *decimalInt, *decimalOnceInt:
			default:
				continue
			}
			n++
			name := f.Names()[0]
			set := flag.NewFlagSet(path, flag.ContinueOnError)
			if err := f.Apply(set); err != nil {
				t.Fatalf("%s --%s: %v", path, name, err)
			}
			for _, bad := range []string{"0x3", "0o7", "0b1", "1_0", " 3", ""} {
				if err := set.Lookup(name).Value.Set(bad); err == nil {
					t.Errorf("%s --%s %q: taken", path, name, bad)
				}
			}
			set = flag.NewFlagSet(path, flag.ContinueOnError)
			if err := f.Apply(set); err != nil {
				t.Fatal(err)
			}
			if err := set.Lookup(name).Value.Set("010"); err != nil || set.Lookup(name).Value.String() != "10" {
				t.Errorf("%s --%s 010: %v, value %s; want 10", path, name, err, set.Lookup(name).Value)
			}
		}
		for _, c := range cmds {
			walk(path+" "+c.Name, c.Flags, c.Subcommands)
		}
	}
	walk("fleet", app.Flags, app.Commands)
	if n < 8 {
		t.Errorf("%d int flags checked, want every one of the CLI's (at least 8)", n)
	}
}

// TestBaselineRunsHexRefused: the probe's case through the CLI: exit 2, naming the flag and the value.
func TestBaselineRunsHexRefused(t *testing.T) {
	wantUsage(t, []string{"regress", "--baseline", "nightly", "--baseline-runs", "0x3"},
		`invalid value "0x3" for flag -baseline-runs: want a whole number in decimal digits`)
}
