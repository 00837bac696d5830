package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// Exit codes, documented in `fleet --help` and the README.
const (
	exitOK          = 0
	exitRegression  = 1
	exitUsage       = 2
	exitBoardFailed = 3
	exitInvalid     = 4 // regress: nothing regressed, but series were not judged because their points (the run's or the baseline's) were invalid
	exitInterrupted = 130
)

const exitCodesHelp = `EXIT CODES:
   0    ok
   1    regression found (fleet regress), or a drop in the window (fleet changes --fail-on-drop)
   2    usage, configuration or input error (bad flag, boards.toml, database)
   3    one or more boards failed (run, boards check, regress on a run with failed boards)
   4    regress: no regression, but series not judged because the run's or the baseline's points were invalid
        (busy, throttled board), including a baseline whose every run was invalid
   130  interrupted (Ctrl-C or SIGTERM): a run keeps what was measured, an import stores nothing`

// errRegression is returned by regress when any series regressed.
var errRegression = errors.New("regression found")

// exitError carries an explicit exit code.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// exitCode maps an error to the process exit code and prints it for people.
func exitCode(ctx context.Context, err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	code := exitUsage
	var ee *exitError
	switch {
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		code = exitInterrupted
	case errors.Is(err, store.ErrNewerSchema):
		code = exitUsage // whatever wrapped it: the user must upgrade fleet, nothing ran
	case errors.As(err, &ee):
		code = ee.code
	case errors.Is(err, errRegression):
		code = exitRegression
	case errors.Is(err, fleet.ErrBoardsFailed):
		code = exitBoardFailed
	}
	switch {
	case code == exitInterrupted:
		// "context canceled" is Go's word for what the user did: say it in theirs
		msg := err.Error()
		for _, goWords := range []string{context.Canceled.Error(), context.DeadlineExceeded.Error()} {
			msg = strings.ReplaceAll(msg, ": "+goWords, ": interrupted")
		}
		if msg == context.Canceled.Error() || msg == context.DeadlineExceeded.Error() {
			msg = "interrupted"
		} else if !strings.Contains(msg, "interrupt") {
			msg += " (interrupted)"
		}
		fmt.Fprintf(stderr, "fleet: %s\n", report.PrintableText(msg))
	case code != exitRegression && code != exitBoardFailed:
		fmt.Fprintf(stderr, "fleet: %s\n", report.PrintableText(err.Error())) // errors quote what boards printed
	}
	return code
}
