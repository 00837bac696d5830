package ssh

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/fleetlab/fleet/transport"
)

// backoff is the delay before retry number i (0-based): base doubled each time, capped at max, with up to 25%
// jitter so that boards behind one gateway do not retry in lockstep.
func backoff(i int, base, max time.Duration) time.Duration {
	d := base
	for range i {
		d *= 2
		if d >= max {
			d = max
			break
		}
	}
	if d <= 0 {
		return 0
	}
	return d + rand.N(d/4+1)
}

// retry calls op until it succeeds, fails with an error that is not retryable, ctx ends, or retries more
// attempts have failed after the first. The last error is returned.
func retry(ctx context.Context, retries int, base time.Duration, logf func(string, ...any), what string,
	op func(ctx context.Context) error) error {
	for i := 0; ; i++ {
		err := op(ctx)
		if err == nil || !transport.Retryable(err) || i >= retries {
			return err
		}
		d := backoff(i, base, 10*base)
		if logf != nil {
			logf("%s: %v; retry %d/%d in %v", what, err, i+1, retries, d.Round(time.Millisecond))
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (gave up: %w)", err, ctx.Err())
		case <-t.C:
		}
	}
}
