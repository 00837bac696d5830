package fleet

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

// verdictSink is a memSink that also records board-run verdicts.
type verdictSink struct {
	*memSink
	verdicts map[string][]string
}

func (s *verdictSink) BoardValidity(_ context.Context, board, verdict string, reasons []string) error {
	s.verdicts[board] = append([]string{verdict}, reasons...)
	return nil
}

func TestRunJudgesPointsAndBoardRuns(t *testing.T) {
	inner := &verdictSink{memSink: newMemSink(), verdicts: map[string][]string{}}
	peak := 50.0
	boards := []inventory.Board{{Name: "busy"}, {Name: "tolerant"}}
	boards[1].Validity.BackgroundPeakPct = &peak
	s := withValidity(inner, boards, inventory.Profile{Name: "quick"}, nil)
	ctx := context.Background()
	bg := 30.0
	for _, b := range []string{"busy", "tolerant"} {
		p := protocol.Point{Mode: "cpu", Algorithm: "sha256", Evidence: &protocol.Evidence{Cores: 2, BackgroundPct: &bg}}
		if err := s.Point(ctx, b, p); err != nil {
			t.Fatal(err)
		}
		// a point of an agent without evidence is not judged, and does not change the board's verdict
		if err := s.Point(ctx, b, protocol.Point{Mode: "cpu", Algorithm: "sha256"}); err != nil {
			t.Fatal(err)
		}
		if err := s.BoardFinished(ctx, b, protocol.StatusOK, ""); err != nil {
			t.Fatal(err)
		}
	}
	if got := inner.points["busy"][0]; got.Validity != "invalid" || len(got.ValidityReasons) != 1 ||
		got.ValidityReasons[0] != "background CPU 30 % (limit 8 %)" {
		t.Errorf("busy point: %q %q, want invalid for its background", got.Validity, got.ValidityReasons)
	}
	if got := inner.points["busy"][1]; got.Validity != "" {
		t.Errorf("point without evidence judged %q, want not judged", got.Validity)
	}
	if got := inner.points["tolerant"][0]; got.Validity != "suspect" {
		t.Errorf("point of a board with a 50 %% peak limit: %q %q, want suspect (above the 2 %% average)", got.Validity, got.ValidityReasons)
	}
	if v := inner.verdicts["busy"]; len(v) < 2 || v[0] != "invalid" || v[1] != "1 of 1 points invalid (first: background CPU 30 % (limit 8 %))" {
		t.Errorf("busy board run: %q", v)
	}
	if inner.finished["busy"][0] != "ok" {
		t.Errorf("BoardFinished did not reach the inner sink: %v", inner.finished)
	}
}

// TestRunWarnsOfAverageAbovePeak: a board whose boards.toml average limit is above the default peak for the cores
// its facts report is told so once (facts come again after a reconnect); a consistent one is not.
func TestRunWarnsOfAverageAbovePeak(t *testing.T) {
	avg := 10.0
	boards := []inventory.Board{{Name: "two"}, {Name: "one"}}
	boards[0].Validity.BackgroundAvgPct = &avg
	boards[1].Validity.BackgroundAvgPct = &avg
	var said []string
	s := withValidity(newMemSink(), boards, inventory.Profile{Name: "quick"}, func(format string, args ...any) {
		said = append(said, fmt.Sprintf(format, args...))
	})
	ctx := context.Background()
	for range 2 {
		for b, cores := range map[string]int{"two": 2, "one": 1} {
			var f protocol.Facts
			f.CPU.Cores = cores
			if err := s.BoardFacts(ctx, b, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(said) != 1 || !strings.HasPrefix(said[0], "two: validity.background_avg_pct 10 % is above the peak limit") ||
		!strings.Contains(said[0], "2 cores") {
		t.Errorf("said %q: want one warning for the 2-core board (its default peak is 8 %%), none for the 1-core one (16 %%)", said)
	}
}
