package agent

import (
	"context"
	"sync"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// maxConcurrencyErrors is how many workers' errors a concurrency check keeps: the first few say what went
// wrong, and a check of 64 workers that all fail alike must not send 64 copies of it.
const maxConcurrencyErrors = 4

// concurrencyWork is one worker of a concurrency check, kcapi's or openssl's: it runs the path while more()
// says so, adding every output to mine, and returns its errors and whether a run of its own timed out.
type concurrencyWork func(w int, more func() bool, mine *distinctOutputs) (errs []string, timedOut bool)

// runConcurrency is the worker pool of every concurrency check: workers copies of work at once, each in its own
// goroutine, until d has passed or ctx ends, their outputs merged into c (distinctOutputs.report) with the
// first maxConcurrencyErrors errors. hang > 0 bounds the wait for a worker that cannot be interrupted (a
// socket call stuck in the kernel): d+hang after the start the check ends as timed out with hung's message
// for the workers still out, and leaves them behind (what they add later is not counted). hang 0 waits for
// every worker: their runs carry deadlines of their own.
func runConcurrency(ctx context.Context, c *protocol.VerifyConcurrency, workers int, d, hang time.Duration,
	hung func(left int) string, work concurrencyWork) {
	var mu sync.Mutex
	all := &distinctOutputs{}
	done := make(chan struct{}, workers)
	deadline := time.Now().Add(d)
	more := func() bool { return time.Now().Before(deadline) && ctx.Err() == nil }
	for w := range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			mine := &distinctOutputs{}
			errs, timedOut := work(w, more, mine)
			mu.Lock()
			defer mu.Unlock()
			all.merge(mine)
			for _, e := range errs {
				if len(c.Errors) < maxConcurrencyErrors {
					c.Errors = append(c.Errors, e)
				}
			}
			c.TimedOut = c.TimedOut || timedOut
		}()
	}
	var timeout <-chan time.Time // nil without hang: waits for every worker
	if hang > 0 {
		timeout = time.After(d + hang)
	}
	for n := 0; n < workers; n++ {
		select {
		case <-done:
		case <-timeout:
			mu.Lock()
			defer mu.Unlock() // held to the end: a late worker must not change c while it is reported
			c.TimedOut = true
			c.Errors = append(c.Errors, hung(workers-n))
			n = workers
		}
	}
	all.report(c)
}
