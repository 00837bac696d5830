package agent

import (
	"bytes"
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/fleetlab/fleet/precision"
	"github.com/fleetlab/fleet/protocol"
)

// noisySource is a fake measurement: job i measures base·(1 + noise·u) with u uniform in [−1, 1] from a seeded
// source, so every run of the test sees the same numbers. invalidEvery > 0 makes every such repeat invalid
// (background CPU far above the limit) and wildly off, so that counting it would show; failed makes every
// repeat fail.
type noisySource struct {
	rng          *rand.Rand
	noise        []float64 // per job
	invalidEvery int
	failed       bool
	clock        *fakeClock
	calls        []([2]int) // (job, repeat) in the order they ran
}

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func (s *noisySource) run(_ context.Context, i, rep int) ([]protocol.Point, error) {
	s.calls = append(s.calls, [2]int{i, rep})
	if s.clock != nil {
		s.clock.t = s.clock.t.Add(time.Second)
	}
	bg := 0.0
	v := 1e9 * (1 + s.noise[i]*(2*s.rng.Float64()-1))
	if s.invalidEvery > 0 && (rep+1)%s.invalidEvery == 0 {
		bg, v = 60, 1e9*(0.3+s.rng.Float64())
	}
	return []protocol.Point{{Mode: "cpu", Algorithm: "sha256", BlockSize: 1024, BytesPerSec: v, Failed: s.failed,
		Evidence: &protocol.Evidence{Cores: 2, BackgroundPct: &bg}}}, nil
}

func newNoisy(seed uint64, noise ...float64) *noisySource {
	return &noisySource{rng: rand.New(rand.NewPCG(seed, 17)), noise: noise}
}

func runsOf(states []jobState) (runs []int, stops []string) {
	for _, st := range states {
		runs, stops = append(runs, st.runs), append(stops, st.stop)
	}
	return runs, stops
}

func TestRepeatQuietPointStopsAtMinimum(t *testing.T) {
	src := newNoisy(1, 0.001, 0.002)
	states, err := repeater{repeats: 20, target: 1, now: time.Now}.loop(context.Background(), 2, src.run)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range states {
		if st.runs != precision.MinN || st.stop != stopReached {
			t.Errorf("quiet job %d: %d runs, stop %q, want %d, %q", i, st.runs, st.stop, precision.MinN, stopReached)
		}
	}
}

func TestRepeatNoisyPointGoesToCap(t *testing.T) {
	src := newNoisy(2, 0.001, 0.30)
	states, err := repeater{repeats: 20, target: 1, now: time.Now}.loop(context.Background(), 2, src.run)
	if err != nil {
		t.Fatal(err)
	}
	runs, stops := runsOf(states)
	if runs[0] != precision.MinN || stops[0] != stopReached || runs[1] != 20 || stops[1] != stopCap {
		t.Errorf("quiet and noisy job: runs %v, stops %q, want [6 20] [reached cap]", runs, stops)
	}
	// interleaved: while both run they alternate; then only the noisy one goes on
	for n, c := range src.calls[:12] {
		if c != [2]int{n % 2, n / 2} {
			t.Fatalf("call %d = %v, want job %d repeat %d (interleaved)", n, c, n%2, n/2)
		}
	}
	for _, c := range src.calls[12:] {
		if c[0] != 1 {
			t.Fatalf("after the quiet job stopped, job %d ran again", c[0])
		}
	}
}

func TestRepeatInvalidRepeatsDoNotCount(t *testing.T) {
	src := newNoisy(3, 0.001)
	src.invalidEvery = 2 // repeats 1, 3, 5, ... are invalid and 30–130 % of the true value
	states, err := repeater{repeats: 20, target: 1, now: time.Now}.loop(context.Background(), 1, src.run)
	if err != nil {
		t.Fatal(err)
	}
	st := states[0]
	// six valid repeats are 0, 2, 4, 6, 8, 10: eleven runs
	if st.runs != 11 || st.stop != stopReached {
		t.Errorf("%d runs, stop %q, want 11 (6 valid), reached", st.runs, st.stop)
	}
	if n := len(st.counted[pointKey{size: 1024}]); n != precision.MinN {
		t.Errorf("%d repeats counted, want %d", n, precision.MinN)
	}
}

func TestRepeatAccountsLimitsFromPlan(t *testing.T) {
	src := newNoisy(4, 0.001)
	src.invalidEvery = 1 // every repeat has 60 % background: invalid by default, fine under a 100 % limit
	peak := 100.0
	r := newRepeater(protocol.Plan{Repeats: 20, PrecisionPct: 1, Limits: &protocol.ValidityLimits{BackgroundPeakPct: &peak}})
	states, err := r.loop(context.Background(), 1, src.run)
	if err != nil {
		t.Fatal(err)
	}
	// values are 30–130 % of the true one: wide, but counted; without the plan's limit nothing would count
	if n := len(states[0].counted[pointKey{size: 1024}]); n != states[0].runs {
		t.Errorf("%d of %d repeats counted under the plan's 100 %% background limit", n, states[0].runs)
	}
}

func TestRepeatFailedJobStops(t *testing.T) {
	src := newNoisy(5, 0.001)
	src.failed = true
	states, err := repeater{repeats: 20, target: 1, now: time.Now}.loop(context.Background(), 1, src.run)
	if err != nil {
		t.Fatal(err)
	}
	if states[0].runs != 1 || states[0].stop != stopFailed {
		t.Errorf("failing job: %d runs, stop %q, want 1, failed", states[0].runs, states[0].stop)
	}
}

func TestRepeatBudgetStops(t *testing.T) {
	clock := &fakeClock{t: time.Unix(0, 0)}
	src := newNoisy(6, 0.3, 0.3, 0.3)
	src.clock = clock // each repeat takes one second
	r := repeater{repeats: 20, target: 1, budget: 10 * time.Second, now: clock.now}
	states, err := r.loop(context.Background(), 3, src.run)
	if err != nil {
		t.Fatal(err)
	}
	// rounds of three 1-s repeats: at 9 s the fourth round starts (job 0), at 10 s the budget is spent
	runs, stops := runsOf(states)
	if want := []int{4, 3, 3}; !equalInts(runs, want) {
		t.Errorf("runs %v, want %v", runs, want)
	}
	for i, s := range stops {
		if s != stopBudget {
			t.Errorf("job %d stopped at %q, want budget", i, s)
		}
	}
}

func TestRepeatFixedWithoutTarget(t *testing.T) {
	src := newNoisy(7, 0.001, 0.5)
	states, err := repeater{repeats: 3, now: time.Now}.loop(context.Background(), 2, src.run)
	if err != nil {
		t.Fatal(err)
	}
	if runs, _ := runsOf(states); !equalInts(runs, []int{3, 3}) {
		t.Errorf("fixed repeats ran %v, want [3 3]", runs)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSweepPrecisionFakeOpenSSL: the fake openssl measures the same every time, so with a target every point
// stops after the minimum six repeats and carries the target in its flags; without one it runs Repeats times.
func TestSweepPrecisionFakeOpenSSL(t *testing.T) {
	fake := writeFakeOpenSSL(t)
	all := 100.0 // this machine is shared: no repeat may be invalid for its neighbours' load here
	plan := protocol.Plan{OpenSSL: fake, Env: map[string]string{"FAKE_LOG": filepath.Join(t.TempDir(), "log")},
		Algorithms: []string{"aes-128-cbc"}, Modes: []string{"soft", "cpu"}, Sizes: []int{16, 64}, Seconds: 1,
		Repeats: 20, PrecisionPct: 2, Limits: &protocol.ValidityLimits{BackgroundPeakPct: &all, ThrottlePct: &all}}
	var out bytes.Buffer
	if _, err := Sweep(context.Background(), plan, protocol.NewEncoder(&out)); err != nil {
		t.Fatal(err)
	}
	repeats := map[[2]any]int{}
	for _, m := range decodeAll(t, out.Bytes()) {
		if m.Point == nil {
			continue
		}
		repeats[[2]any{m.Point.Mode, m.Point.BlockSize}]++
		if tgt, ok := precision.ParseFlags(m.Point.Flags); !ok || tgt != (precision.Target{Pct: 2, MaxRepeat: 20}) {
			t.Errorf("point %s %d repeat %d: flags %q, want the target ±2 %% within 20", m.Point.Mode, m.Point.BlockSize,
				m.Point.Repeat, m.Point.Flags)
		}
	}
	if len(repeats) != 4 {
		t.Errorf("points measured: %v, want soft and cpu at 16 and 64 B", repeats)
	}
	for k, n := range repeats {
		if n != precision.MinN {
			t.Errorf("%v: %d repeats, want %d (a quiet point stops at the minimum)", k, n, precision.MinN)
		}
	}
}
