package agent

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// SignalContext returns a context cancelled by SIGINT, SIGTERM or SIGHUP (Ctrl-C, kill, a dropped SSH session),
// so Main kills its openssl children and returns. It also takes SIGPIPE over: without that, a write to a
// stdout whose reader is gone would kill the agent on the spot and leave its children running.
func SignalContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	return ctx, func() {
		signal.Stop(pipe)
		stop()
	}
}
