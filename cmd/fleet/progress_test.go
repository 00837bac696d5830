package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/protocol"
)

// TestProgressLines: the lines a board prints when stderr is not a terminal name each phase as it begins
// (connecting, deploying, probing, verifying each path, measuring) with the time left from the plan (24 points
// of 1 s and the assumed overhead: 25 s), refined by the points measured; the deploy's text does not stay
// once the board verifies. The clock is the test's.
func TestProgressLines(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b)
	p.perPoint = time.Second
	clock := time.Date(2026, 12, 6, 21, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return clock }
	ev := func(advance float64, e fleet.Event) {
		clock = clock.Add(time.Duration(advance * float64(time.Second)))
		e.Board = "local"
		p.Event(e)
	}
	ev(0, fleet.Event{Stage: fleet.StageConnect})
	ev(0, fleet.Event{Stage: fleet.StageDeploy, Msg: "agent ~/.cache/fleet/agent-b136 already there, pushed 0 bytes"})
	ev(0, fleet.Event{Stage: fleet.StageProbe})
	ev(0.1, fleet.Event{Stage: fleet.StageSweep, Total: 24})
	if got := p.board["local"].view(clock); got.phase != "verifying" || got.label != "" {
		t.Errorf("after the plan the bar shows %+v, want verifying without the deploy's text", got)
	}
	ev(0.1, fleet.Event{Stage: fleet.StageVerify, Mode: "soft", Algorithm: "aes-128-cbc", Msg: protocol.VerificationOK})
	ev(0.2, fleet.Event{Stage: fleet.StageMeasure, Mode: "soft", Algorithm: "aes-128-cbc", Size: 16})
	if got := p.board["local"].view(clock.Add(500 * time.Millisecond)); got.phase != "measuring" || got.label != "soft aes-128-cbc 16 B" || got.eta != "about 25 s left" {
		t.Errorf("half-way through the first point the bar shows %+v", got)
	}
	// each point takes 2 s: the overhead measured, 1 s a point, doubles the estimate
	ev(2, fleet.Event{Stage: fleet.StageSweep, Done: 1, Total: 24, Mode: "soft", Algorithm: "aes-128-cbc", Size: 16})
	ev(0, fleet.Event{Stage: fleet.StageMeasure, Done: 1, Mode: "cpu", Algorithm: "aes-128-cbc", Size: 16})
	ev(2, fleet.Event{Stage: fleet.StageSweep, Done: 2, Total: 24, Mode: "cpu", Algorithm: "aes-128-cbc", Size: 16})
	ev(0, fleet.Event{Stage: fleet.StageDone, Status: protocol.StatusOK})
	want := []string{
		"21:00:00 local        connecting",
		"21:00:00 local        deploying: agent ~/.cache/fleet/agent-b136 already there, pushed 0 bytes",
		"21:00:00 local        probing",
		"21:00:00 local        sweep: 24 points planned, about 25 s left",
		"21:00:00 local        verifying soft aes-128-cbc: ok",
		"21:00:00 local        measuring: 24 points, about 25 s left",
		"21:00:02 local        1/24 soft aes-128-cbc 16 B, about 45 s left",
		"21:00:04 local        2/24 cpu aes-128-cbc 16 B, about 45 s left",
		"21:00:04 local        ok",
	}
	if got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("progress lines:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLeftText: the time left in words, rounded as a person would say it.
func TestLeftText(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{2 * time.Second, "a few seconds left"}, {24960 * time.Millisecond, "about 25 s left"}, {58 * time.Second, "about 1 min left"},
		{4*time.Minute + 20*time.Second, "about 4 min left"}, {65 * time.Minute, "about 1 h 5 min left"}, {2 * time.Hour, "about 2 h left"},
	} {
		if got := leftText(tc.d); got != tc.want {
			t.Errorf("leftText(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
