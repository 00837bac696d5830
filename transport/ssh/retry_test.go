package ssh

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/fleetlab/fleet/transport"
)

func TestRetryBackoff(t *testing.T) {
	tests := []struct {
		i        int
		min, max time.Duration
	}{
		{0, 100 * time.Millisecond, 125 * time.Millisecond},
		{1, 200 * time.Millisecond, 250 * time.Millisecond},
		{3, 800 * time.Millisecond, 1000 * time.Millisecond},
		{10, time.Second, 1250 * time.Millisecond}, // capped
	}
	for _, tc := range tests {
		for range 20 {
			if d := backoff(tc.i, 100*time.Millisecond, time.Second); d < tc.min || d > tc.max {
				t.Errorf("backoff(%d) = %v, want in [%v, %v]", tc.i, d, tc.min, tc.max)
			}
		}
	}
}

func TestRetryOnlyRetryable(t *testing.T) {
	tests := []struct {
		err   error
		calls int
	}{
		{nil, 1},
		{fmt.Errorf("dial: %w", transport.ErrUnreachable), 4},
		{fmt.Errorf("dial: %w", transport.ErrTimeout), 4},
		{fmt.Errorf("handshake: %w", transport.ErrConnectionLost), 4},
		{fmt.Errorf("login: %w", transport.ErrAuthFailed), 1},
		{&HostKeyError{Host: "h", File: "f", Line: 1}, 1},
		{fmt.Errorf("%w: x", transport.ErrUnknownHost), 1},
		{errors.New("something else"), 1},
		{fmt.Errorf("%w: %w", transport.ErrUnreachable, &net.DNSError{Err: "no such host", Name: "typo", IsNotFound: true}), 1},
	}
	for _, tc := range tests {
		calls := 0
		err := retry(context.Background(), 3, time.Microsecond, nil, "test", func(context.Context) error {
			calls++
			return tc.err
		})
		if calls != tc.calls || !errors.Is(err, tc.err) && err != tc.err {
			t.Errorf("retry(%v): %d calls, err %v; want %d calls", tc.err, calls, err, tc.calls)
		}
	}
}

func TestRetryStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := retry(ctx, 5, time.Hour, nil, "test", func(context.Context) error {
		calls++
		cancel()
		return transport.ErrTimeout
	})
	if calls != 1 || !errors.Is(err, context.Canceled) || !errors.Is(err, transport.ErrTimeout) {
		t.Errorf("retry after cancel: %d calls, %v; want 1 call, transport.ErrTimeout and context.Canceled", calls, err)
	}
}

func TestRetryHostKeyErrorIs(t *testing.T) {
	err := fmt.Errorf("connect: %w", &HostKeyError{Host: "h", File: "/k", Line: 7})
	if !errors.Is(err, transport.ErrHostKeyMismatch) {
		t.Error("HostKeyError does not match transport.ErrHostKeyMismatch")
	}
}
