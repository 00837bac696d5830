package main

import (
	"flag"
	"fmt"
	"regexp"
	"strconv"

	"github.com/urfave/cli/v2"
)

// urfave/cli reads an int flag with strconv.ParseInt(s, 0, 64), so it takes Go's base prefixes: --baseline-runs
// 0x3 is 3, --size 010 is 8 and 0b101 is 5. No one counts runs, bytes or threads in hex or octal, and a zero
// padded 010 read as 8 is a silent surprise: decimalIntFlags makes every int flag of the CLI take a plain
// decimal only, refused otherwise (a usage error naming the flag, exit 2), before its own range checks run.

// decimalRE is a plain decimal integer: an optional sign, then digits. Go's own forms ("0x10", "0o17", "0b1",
// "1_000") are refused, and a zero-padded "010" is read as ten, not eight.
var decimalRE = regexp.MustCompile(`^[+-]?[0-9]+$`)

// decimalIntFlags makes every int flag of app and its commands decimal-only (decimalInt, decimalOnceInt).
func decimalIntFlags(app *cli.App) {
	app.Flags = decimalFlags(app.Flags)
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			c.Flags = decimalFlags(c.Flags)
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}

func decimalFlags(flags []cli.Flag) []cli.Flag {
	for i, f := range flags {
		switch f := f.(type) {
		case *cli.IntFlag:
			flags[i] = &decimalInt{f}
		case *onceInt:
			flags[i] = &decimalOnceInt{f}
		}
	}
	return flags
}

// decimalInt is an int flag that takes a plain decimal only; every other behaviour is IntFlag's.
type decimalInt struct{ *cli.IntFlag }

func (f *decimalInt) Apply(set *flag.FlagSet) error {
	if err := f.IntFlag.Apply(set); err != nil {
		return err
	}
	return wrapDecimal(set, f.Names())
}

// decimalOnceInt is a once-only int flag (onceFlags) that takes a plain decimal only.
type decimalOnceInt struct{ *onceInt }

func (f *decimalOnceInt) Apply(set *flag.FlagSet) error {
	if err := f.onceInt.Apply(set); err != nil {
		return err
	}
	return wrapDecimal(set, f.Names())
}

func wrapDecimal(set *flag.FlagSet, names []string) error {
	for _, n := range names {
		fl := set.Lookup(n)
		if fl == nil {
			return fmt.Errorf("flag %s: not defined", n)
		}
		fl.Value = &decimalValue{fl.Value}
	}
	return nil
}

// decimalValue is an int flag's value that refuses anything but a plain decimal before the int reads it.
type decimalValue struct{ flag.Value }

func (v *decimalValue) Set(s string) error {
	if !decimalRE.MatchString(s) {
		return fmt.Errorf("want a whole number in decimal digits (not hex, octal or binary)")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%s: out of range", s)
	}
	return v.Value.Set(strconv.FormatInt(n, 10)) // "010" as ten: the int's own base-0 reading takes it for octal
}
