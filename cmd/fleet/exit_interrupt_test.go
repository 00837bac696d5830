package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestInterruptedErrorsSayInterrupted: whatever an interrupted command's error holds — Go's "context canceled"
// at its end, in the middle, once per board of a joined error, or the deadline a cancelled write saw — the
// user reads "interrupted", never Go's words.
func TestInterruptedErrorsSayInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, err := range []error{
		context.Canceled,
		fmt.Errorf("store batch: %w", context.Canceled),
		fmt.Errorf("board a: %w (after 3 points)", context.Canceled),
		errors.Join(fmt.Errorf("board a: %w", context.Canceled), fmt.Errorf("board b: sweep: %w", context.Canceled)),
		fmt.Errorf("release lease: %w", context.DeadlineExceeded),
	} {
		var stderr bytes.Buffer
		if code := exitCode(ctx, err, &stderr); code != exitInterrupted {
			t.Errorf("exitCode(%q) = %d, want %d", err, code, exitInterrupted)
		}
		got := stderr.String()
		if strings.Contains(got, "context canceled") || strings.Contains(got, "context deadline exceeded") || !strings.Contains(got, "interrupted") {
			t.Errorf("exitCode(%q) printed %q, want the interrupted wording only", err, got)
		}
	}
}
