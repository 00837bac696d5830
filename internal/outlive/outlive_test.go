package outlive

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestContextOutlivesItsParentForTheGrace: the context stays usable while the parent runs and for the grace
// after it is cancelled, then ends with the cause; cancel ends it at once.
func TestContextOutlivesItsParentForTheGrace(t *testing.T) {
	cause := errors.New("stuck")
	parent, cancelParent := context.WithCancel(context.Background())
	ctx, cancel := Context(parent, 50*time.Millisecond, cause)
	defer cancel()
	cancelParent()
	if ctx.Err() != nil {
		t.Fatal("cancelled with its parent, want after the grace")
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("not cancelled a minute after its parent")
	}
	if got := context.Cause(ctx); !errors.Is(got, cause) {
		t.Errorf("cause %v, want %v", got, cause)
	}

	ctx, cancel = Context(context.Background(), time.Hour, cause)
	cancel()
	if !errors.Is(context.Cause(ctx), context.Canceled) {
		t.Errorf("after cancel: cause %v, want context.Canceled", context.Cause(ctx))
	}
}
