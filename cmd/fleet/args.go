package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/store"
)

// run builds the app and runs it with args as a user types them. Its error has every password of every
// connection string it was given (an argument, FLEET_DB) scrubbed out, whichever parser or driver quoted it.
// A write to stdout or stderr whose reader is gone (EPIPE) cancels it as an interrupt does (closedPipe).
func run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, args []string) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stdout = closedPipe{w: stdout, name: "stdout", cancel: cancel}
	stderr = closedPipe{w: stderr, name: "stderr", cancel: cancel}
	app := newApp(stdin, stdout, stderr)
	err := app.RunContext(ctx, flagsFirst(app, args))
	var closed *outputClosedError
	if err != nil && errors.As(context.Cause(ctx), &closed) && !errors.Is(err, context.Canceled) {
		err = fmt.Errorf("%w (%w)", err, closed) // what failed after the output closed: an interrupt still
	}
	return store.Scrub(err, append(slices.Clone(args), os.Getenv("FLEET_DB"))...)
}

// flagsFirst moves the flags that follow a command's positional arguments in front of them
// (`fleet show 3 --raw --db x.db` → `fleet show --raw --db x.db 3`): urfave/cli stops reading flags at the first
// positional argument, but users put flags anywhere. Everything after "--" is left alone.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	// find the (sub)command whose arguments follow
	i := 1
	var cmd *cli.Command
	cmds := app.Commands
	for i < len(args) {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			flags := app.Flags
			if cmd != nil {
				flags = cmd.Flags
			}
			if !strings.Contains(a, "=") && !isBoolFlag(flags, a) {
				i++ // its value
			}
			i++
			continue
		}
		var next *cli.Command
		for _, c := range cmds {
			if c.HasName(a) {
				next = c
			}
		}
		if next == nil {
			break
		}
		cmd, cmds = next, next.Subcommands
		i++
	}
	if cmd == nil || i >= len(args) {
		return args
	}
	var flags, positional []string
	rest := args[i:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		switch {
		case a == "--":
			positional = append(positional, rest[j:]...)
			j = len(rest)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flags = append(flags, a)
			if !strings.Contains(a, "=") && !isBoolFlag(cmd.Flags, a) && j+1 < len(rest) {
				j++
				flags = append(flags, rest[j])
			}
		default:
			positional = append(positional, a)
		}
	}
	out := append([]string{}, args[:i]...)
	out = append(out, flags...)
	return append(out, positional...)
}

func isBoolFlag(flags []cli.Flag, arg string) bool {
	name := strings.TrimLeft(arg, "-")
	for _, f := range flags {
		if _, ok := f.(*cli.BoolFlag); !ok {
			continue
		}
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}
