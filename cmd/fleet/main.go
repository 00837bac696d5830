// Command fleet measures and compares the crypto performance of embedded Linux boards. See `fleet --help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP) // a closed terminal too
	go func() { <-ctx.Done(); stop() }()                                                                   // a second Ctrl-C kills at once
	// A closed pipe on stdout or stderr fails the write (EPIPE, which cancels the run: closedPipe) instead of
	// killing fleet mid-run; notified, not ignored, so that the programs fleet starts keep the default.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	err := run(ctx, os.Stdin, os.Stdout, os.Stderr, os.Args)
	os.Exit(exitCode(ctx, err, os.Stderr))
}
