package main

import (
	"flag"
	"fmt"

	"github.com/urfave/cli/v2"
)

// A flag that takes one value, given twice (`fleet compare --run 3 --run 6`), would silently mean its last
// value: the user asked for two things and is shown one. onceFlags makes such a flag a usage error when it is
// given again; list flags (--boards, --modes) keep accumulating, which is what repeating them means.

// onceFlags wraps the single-valued string and int flags of flags so that giving one twice is refused.
func onceFlags(flags []cli.Flag) []cli.Flag {
	out := make([]cli.Flag, len(flags))
	for i, f := range flags {
		switch f := f.(type) {
		case *cli.StringFlag:
			out[i] = &onceString{f}
		case *cli.IntFlag:
			out[i] = &onceInt{f}
		default:
			out[i] = f
		}
	}
	return out
}

// onceString is a string flag refused when given twice; every other behaviour is StringFlag's.
type onceString struct{ *cli.StringFlag }

func (f *onceString) Apply(set *flag.FlagSet) error {
	if err := f.StringFlag.Apply(set); err != nil {
		return err
	}
	return wrapOnce(set, f.Names())
}

// onceInt is an int flag refused when given twice.
type onceInt struct{ *cli.IntFlag }

func (f *onceInt) Apply(set *flag.FlagSet) error {
	if err := f.IntFlag.Apply(set); err != nil {
		return err
	}
	return wrapOnce(set, f.Names())
}

// wrapOnce replaces the value of each name (a flag and its aliases, which urfave/cli keeps apart and refuses
// together) with one that refuses a second Set.
func wrapOnce(set *flag.FlagSet, names []string) error {
	for _, n := range names {
		fl := set.Lookup(n)
		if fl == nil {
			return fmt.Errorf("flag %s: not defined", n)
		}
		fl.Value = &onceValue{Value: fl.Value, name: names[0]}
	}
	return nil
}

// onceValue is a flag value that may be set once.
type onceValue struct {
	flag.Value
	name  string
	first *string // the value given first, nil until then
}

func (v *onceValue) Set(s string) error {
	if v.first != nil {
		return fmt.Errorf("--%s given twice (%q, then %q): it takes one value", v.name, *v.first, s)
	}
	v.first = &s
	return v.Value.Set(s)
}

// Get is the wrapped value's, for cli.Context.Value.
func (v *onceValue) Get() any {
	if g, ok := v.Value.(flag.Getter); ok {
		return g.Get()
	}
	return v.Value.String()
}
