// Package outlive gives the last work of an interrupted operation (storing what was measured, releasing a
// board) a context that survives the interrupt for a bounded time, so that a peer that stopped answering
// cannot keep an interrupted process from exiting.
package outlive

import (
	"context"
	"sync"
	"time"
)

// Context returns a context that is not cancelled with ctx but grace after ctx is, with cause as its cause:
// everything derived from it shares that one deadline, however many writes are made after the interrupt. Call
// cancel when done with it.
func Context(ctx context.Context, grace time.Duration, cause error) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	var mu sync.Mutex
	var timer *time.Timer
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		timer = time.AfterFunc(grace, func() { cancel(cause) })
	})
	return out, func() {
		stop()
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		cancel(context.Canceled)
	}
}
