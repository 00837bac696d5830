package main

import (
	"context"
	"errors"
	"io"
	"syscall"
)

// A fleet whose output goes to a pipe that closes (`fleet run … 2>&1 | head -5`) must stop as after Ctrl-C:
// the run marked interrupted, its boards cleaned up and their leases released. Go kills a process that
// writes to a closed pipe on stdout or stderr with SIGPIPE unless SIGPIPE is notified (main does), and then
// the write fails with EPIPE instead: closedPipe turns that failure into the run's cancellation. Without it a
// killed run stayed "running" and held its boards' leases until they expired.

// outputClosedError is the cause of a run cancelled because its stdout or stderr was closed. It is
// context.Canceled to errors.Is: an interrupt like Ctrl-C, exit 130, whatever reports the cancellation's cause.
type outputClosedError struct{ name string }

func (e *outputClosedError) Error() string        { return e.name + " was closed (the pipe's reader ended)" }
func (e *outputClosedError) Is(target error) bool { return target == context.Canceled }

// closedPipe is w, cancelling the run (cancel) the first time a write fails because w's reader is gone.
type closedPipe struct {
	w      io.Writer
	name   string
	cancel context.CancelCauseFunc
}

func (p closedPipe) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		p.cancel(&outputClosedError{p.name})
	}
	return n, err
}
