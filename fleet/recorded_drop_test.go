package fleet

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// dropRecord is a RunRecord whose DropBoards notes the boards it is asked to drop; the rest is not called.
type dropRecord struct {
	RunRecord
	dropped [][]string
	gone    bool
	err     error
}

func (r *dropRecord) DropBoards(_ context.Context, boards []string) (bool, error) {
	r.dropped = append(r.dropped, boards)
	return r.gone, r.err
}

// TestDropRefused: the boards refused for an unknown algorithm are dropped from the record and named in the
// refusal, the others kept; a run with none refused is left alone, and a record that cannot drop says so.
func TestDropRefused(t *testing.T) {
	unknown := func(board string) error {
		return &UnknownAlgorithmsError{Board: board, OpenSSL: "OpenSSL 3.0.19",
			Unknown: []protocol.UnknownAlgorithm{{Name: "aes-128-cbd", Suggestion: "aes-128-cbc"}}}
	}
	ok := BoardOutcome{Board: "a", Status: protocol.StatusOK}
	failed := BoardOutcome{Board: "c", Status: protocol.StatusFailed, Err: errors.New("connect: refused")}
	refusedB := BoardOutcome{Board: "b", Status: protocol.StatusFailed, Err: unknown("b")}
	refusedD := BoardOutcome{Board: "d", Status: protocol.StatusFailed, Err: unknown("d")}

	t.Run("some refused", func(t *testing.T) {
		rec := &dropRecord{}
		kept, gone, refused := RecordedRun{Record: rec, Outcomes: []BoardOutcome{ok, refusedB, failed}}.DropRefused(context.Background())
		if len(kept) != 2 || kept[0].Board != "a" || kept[1].Board != "c" || gone {
			t.Errorf("kept %+v, gone %v; want a and c, not gone", kept, gone)
		}
		if len(rec.dropped) != 1 || !slices.Equal(rec.dropped[0], []string{"b"}) {
			t.Errorf("dropped %q, want b alone", rec.dropped)
		}
		want := "aes-128-cbd: not an algorithm of board b's OpenSSL 3.0.19; did you mean aes-128-cbc? (nothing measured or stored for b)"
		if refused == nil || refused.Error() != want {
			t.Errorf("refused = %v, want %q", refused, want)
		}
	})
	t.Run("all refused", func(t *testing.T) {
		rec := &dropRecord{gone: true}
		kept, gone, refused := RecordedRun{Record: rec, Outcomes: []BoardOutcome{refusedB, refusedD}}.DropRefused(context.Background())
		if len(kept) != 0 || !gone || refused == nil {
			t.Errorf("kept %+v, gone %v, refused %v; want none kept, the run gone, a refusal", kept, gone, refused)
		}
		if len(rec.dropped) != 1 || !slices.Equal(rec.dropped[0], []string{"b", "d"}) {
			t.Errorf("dropped %q, want b and d in one call", rec.dropped)
		}
	})
	t.Run("none refused", func(t *testing.T) {
		rec := &dropRecord{}
		outcomes := []BoardOutcome{ok, failed}
		kept, gone, refused := RecordedRun{Record: rec, Outcomes: outcomes}.DropRefused(context.Background())
		if len(kept) != 2 || gone || refused != nil || len(rec.dropped) != 0 {
			t.Errorf("kept %+v, gone %v, refused %v, dropped %q; want the outcomes as they were, nothing dropped", kept, gone, refused, rec.dropped)
		}
	})
	t.Run("drop fails", func(t *testing.T) {
		broken := errors.New("database is locked")
		rec := &dropRecord{err: broken}
		kept, gone, refused := RecordedRun{Record: rec, Outcomes: []BoardOutcome{ok, refusedB}}.DropRefused(context.Background())
		if len(kept) != 1 || gone || !errors.Is(refused, broken) {
			t.Errorf("kept %+v, gone %v, refused %v; want a kept and the record's error", kept, gone, refused)
		}
	})
}
