package transport

import (
	"errors"
	"fmt"
	"net"
	"testing"
)

// TestRetryable: what a retry can fix (a link, a timeout) is retryable, wrapped or not; a key, a known_hosts
// file or a name that does not resolve is not.
func TestRetryable(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{ErrUnreachable, true},
		{fmt.Errorf("dial board1: %w", ErrTimeout), true},
		{fmt.Errorf("session: %w", ErrConnectionLost), true},
		{fmt.Errorf("login: %w", ErrAuthFailed), false},
		{fmt.Errorf("%w: [h]:22", ErrHostKeyMismatch), false},
		{fmt.Errorf("%w: x", ErrUnknownHost), false},
		{errors.New("something else"), false},
		{fmt.Errorf("%w: %w", ErrUnreachable, &net.DNSError{Err: "no such host", Name: "typo", IsNotFound: true}), false},
		{fmt.Errorf("%w: %w", ErrUnreachable, &net.DNSError{Err: "server misbehaving", Name: "h", IsTemporary: true}), true},
	}
	for _, tc := range tests {
		if got := Retryable(tc.err); got != tc.want {
			t.Errorf("Retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
