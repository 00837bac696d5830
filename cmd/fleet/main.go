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
	err := run(ctx, os.Stdin, os.Stdout, os.Stderr, os.Args)
	os.Exit(exitCode(ctx, err, os.Stderr))
}
